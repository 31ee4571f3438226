"""Admin forms: a dictionary with its word-list upload, a single-word edit, the look-up box,
a theme list with its upload."""

from __future__ import annotations

from django import forms
from django.core.exceptions import ValidationError

from dictionaries import files, services, themes
from dictionaries.exceptions import UnusableWordList
from dictionaries.models import Dictionary, DictionaryEdit, ThemeList
from solver import compiler
from solver.errors import WordListError


class DictionaryAdminForm(forms.ModelForm):
    """A dictionary; an uploaded list is checked against the rules before it is stored."""

    word_list = forms.FileField(
        required=False,
        help_text="Plain text or gzip, UTF-8 or Latin-1, one word per line (at most "
        f"{compiler.MAX_LINE_CHARS} characters); blank lines and lines starting with # are "
        f"ignored. At most {services.MAX_UPLOAD_BYTES // 2**20} MiB uploaded "
        f"({compiler.MAX_WORDLIST_BYTES // 2**20} MiB unpacked). Saving a new list compiles "
        "it in the background; the old version stays in use until that succeeds.",
    )

    class Meta:
        model = Dictionary
        fields = "__all__"

    def clean_word_list(self):
        upload = self.cleaned_data.get("word_list")
        if upload is None:
            return None
        if upload.size > services.MAX_UPLOAD_BYTES:
            raise ValidationError(
                f"the file is larger than {services.MAX_UPLOAD_BYTES // 2**20} MiB"
            )
        return upload

    def clean(self):
        cleaned = super().clean()
        if self.instance.pk and self.instance.is_default and not cleaned.get("is_default"):
            self.add_error(
                "is_default",
                "there must be a default dictionary: make another one the default instead",
            )
        upload = cleaned.get("word_list")
        checked = None
        if upload is not None and not self.errors:
            try:
                rules = self._rules(cleaned)
            except WordListError:
                return cleaned  # the model's clean names the bad rule
            # A quick check (the whole file for binary data and encoding, the first lines for
            # the rules); the compile, in the background, checks every line.
            try:
                checked = services.check_upload(upload.file, rules, compiler.SAMPLE_LINES)
            except UnusableWordList as error:
                self.add_error("word_list", str(error))
                return cleaned
            self.checked_upload = checked
        if upload is None and not self.instance.upload and not cleaned.get("named_list"):
            self.add_error("word_list", "upload a word list (or choose a named list)")
        named = cleaned.get("named_list")
        if named and upload is None and not self.instance.upload:
            try:
                files.check_named_list(named)
            except (UnusableWordList, WordListError) as error:
                self.add_error("named_list", str(error))
        return cleaned

    @staticmethod
    def _rules(cleaned: dict):
        probe = Dictionary(
            alphabet=cleaned.get("alphabet") or "",
            fold_accents=bool(cleaned.get("fold_accents")),
            qu_rule=bool(cleaned.get("qu_rule")),
            min_length=cleaned.get("min_length") or 0,
            max_length=cleaned.get("max_length") or 0,
            keep_capitalised=bool(cleaned.get("keep_capitalised")),
        )
        return probe.rules()


class DictionaryEditForm(forms.ModelForm):
    """One row of the edits inline: the word is stored in the dictionary's form."""

    class Meta:
        model = DictionaryEdit
        fields = ("word", "action", "note")

    def clean_word(self) -> str:
        word = self.cleaned_data["word"]
        # The dictionary as the page being saved has it (rules included), set by the formset.
        dictionary = getattr(self, "parent_dictionary", None)
        if dictionary is None:
            return word.strip().lower()
        try:
            return services.check_edit_word(dictionary, word)
        except (UnusableWordList, WordListError) as error:
            raise ValidationError(str(error)) from None


class DictionaryEditFormSet(forms.BaseInlineFormSet):
    """The edits inline: each form knows its (possibly unsaved) dictionary."""

    def _construct_form(self, i, **kwargs):
        form = super()._construct_form(i, **kwargs)
        form.parent_dictionary = self.instance
        return form


class WordForm(forms.Form):
    """The look-up box on a dictionary's page: look a word up, add it or remove it."""

    ACTIONS = ("lookup", "add", "remove")

    word = forms.CharField(max_length=72)
    do = forms.ChoiceField(choices=[(action, action) for action in ACTIONS])
    note = forms.CharField(max_length=200, required=False)


class ThemeListAdminForm(forms.ModelForm):
    """A theme list: its words from an uploaded file (which wins) or the text box, checked
    (``dictionaries.themes.check_theme_words``) and stored one per line."""

    upload = forms.FileField(
        required=False,
        label="Word file",
        help_text="Plain text in UTF-8, one word per line; replaces the words below. At most "
        f"{themes.MAX_THEME_LIST_BYTES // 2**20} MiB and {themes.MAX_THEME_LIST_WORDS:,} words.",
    )

    class Meta:
        model = ThemeList
        fields = "__all__"

    def clean(self):
        cleaned = super().clean()
        upload = cleaned.get("upload")
        if upload is not None:
            if upload.size > themes.MAX_THEME_LIST_BYTES:
                self.add_error(
                    "upload",
                    f"the file is larger than {themes.MAX_THEME_LIST_BYTES // 2**20} MiB",
                )
                return cleaned
            source, field = upload.read(), "upload"
        elif "words" in self.fields:
            source, field = cleaned.get("words") or "", "words"
        else:
            return cleaned  # too long to edit here: the stored words stay
        try:
            cleaned["words"] = themes.check_theme_words(source)
        except UnusableWordList as error:
            self.add_error(field, str(error))
        return cleaned

    def save(self, commit: bool = True):
        if "words" in self.cleaned_data:  # the upload's words, when there is one
            self.instance.words = self.cleaned_data["words"]
        return super().save(commit)
