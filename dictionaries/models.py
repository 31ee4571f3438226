"""Dictionaries, their compiled versions and staff edits.

A ``Dictionary`` is what a room chooses (by ``name``). Compiling it writes a new,
content-addressed ``.lex`` file and records a ``DictionaryVersion``; only then does the
dictionary switch its ``current_version``. A round stores the version it started with, so
recompiling never changes a round already played or under way.
"""

from __future__ import annotations

from itertools import chain
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.db.models.signals import pre_delete
from django.dispatch import receiver
from django.utils import timezone

from solver.dictionaries import NAMED_LISTS
from solver.errors import WordListError
from solver.wordrules import ENGLISH_ALPHABET, WordRules

# WordRules' defaults, mirrored here so that a new dictionary starts from them.
_DEFAULT_RULES = WordRules()


class Dictionary(models.Model):
    """A word list rooms can play with, its rules and where it comes from."""

    class Status(models.TextChoices):
        NEW = "new", "not compiled yet"
        COMPILING = "compiling", "compiling"
        READY = "ready", "ready"
        FAILED = "failed", "failed"

    name = models.SlugField(
        max_length=64, unique=True, help_text="What rooms and the API call it, e.g. french."
    )
    title = models.CharField(max_length=100, help_text="Shown to players, e.g. Français.")
    language = models.CharField(
        max_length=16, blank=True, help_text="Language code, e.g. en, fr, nl."
    )
    description = models.TextField(blank=True)
    source = models.CharField(
        max_length=300, blank=True, help_text="Where the word list comes from (for people)."
    )
    licence = models.CharField(max_length=200, blank=True)
    named_list = models.CharField(
        max_length=32,
        blank=True,
        choices=[(name, name) for name in NAMED_LISTS],
        help_text="A word list the project knows by name (shipped, or from a Debian package). "
        "An uploaded list takes precedence.",
    )
    upload = models.CharField(
        max_length=200,
        blank=True,
        editable=False,
        help_text="The uploaded word list: a file under BOGGLE_DICTIONARY_DIR named by its SHA-256.",
    )
    upload_name = models.CharField(max_length=200, blank=True, editable=False)
    upload_size = models.PositiveBigIntegerField(null=True, blank=True, editable=False)
    uploaded_at = models.DateTimeField(null=True, blank=True, editable=False)
    # A new upload waits here until it compiles: only then does it replace ``upload`` (a list
    # that fails to compile must not take the place of the one in use).
    pending_upload = models.CharField(max_length=200, blank=True, editable=False)
    pending_upload_name = models.CharField(max_length=200, blank=True, editable=False)
    pending_upload_size = models.PositiveBigIntegerField(null=True, blank=True, editable=False)

    # The rules: the fields of solver.wordrules.WordRules.
    alphabet = models.CharField(
        max_length=64,
        default=ENGLISH_ALPHABET,
        help_text="The letters the dice show, lower-case; a word with any other letter is dropped.",
    )
    fold_accents = models.BooleanField(
        default=_DEFAULT_RULES.fold_accents,
        help_text="Strip accents first (été becomes ete): for languages whose dice have none.",
    )
    qu_rule = models.BooleanField(
        default=_DEFAULT_RULES.qu_rule,
        help_text="Drop words with a q not followed by u (the Qu die cannot spell them).",
    )
    min_length = models.PositiveSmallIntegerField(
        default=_DEFAULT_RULES.min_length, help_text="Shortest word kept, in letters."
    )
    max_length = models.PositiveSmallIntegerField(
        default=_DEFAULT_RULES.max_length, help_text="Longest word kept, in letters."
    )
    keep_capitalised = models.BooleanField(
        default=_DEFAULT_RULES.keep_capitalised,
        help_text="Keep capitalised entries (Paris) as words; by default they are proper nouns.",
    )

    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.NEW, db_index=True
    )
    status_message = models.TextField(blank=True, help_text="Why the last compile failed.")
    revision = models.PositiveIntegerField(
        default=0,
        editable=False,
        help_text="Bumped by every compile request; a compile of an older revision is dropped.",
    )
    compile_requested_at = models.DateTimeField(null=True, blank=True, editable=False)
    compiled_at = models.DateTimeField(null=True, blank=True, editable=False)
    current_version = models.ForeignKey(
        "DictionaryVersion",
        null=True,
        blank=True,
        editable=False,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="The compiled list new rounds play with.",
    )
    enabled = models.BooleanField(default=True, help_text="Offered to rooms (once compiled).")
    is_default = models.BooleanField(
        default=False, help_text="New rooms play with it. Exactly one dictionary is the default."
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-is_default", "title"]
        verbose_name_plural = "dictionaries"
        constraints = [
            models.UniqueConstraint(
                fields=["is_default"],
                condition=models.Q(is_default=True),
                name="one_default_dictionary",
            )
        ]

    def __str__(self) -> str:
        return self.name

    def rules(self) -> WordRules:
        """The solver rules; raises solver.WordListError when they are inconsistent."""
        return WordRules(
            alphabet=self.alphabet,
            fold_accents=self.fold_accents,
            qu_rule=self.qu_rule,
            min_length=self.min_length,
            max_length=self.max_length,
            keep_capitalised=self.keep_capitalised,
        )

    def clean(self) -> None:
        try:
            self.rules()
        except WordListError as error:
            field = "alphabet" if "alphabet" in str(error) else "min_length"
            raise ValidationError({field: str(error)}) from None
        if self.is_default and not self.enabled:
            raise ValidationError({"enabled": "the default dictionary must be enabled"})

    def validate_constraints(self, exclude=None) -> None:
        # A second default is no conflict: save() unsets the first.
        super().validate_constraints(exclude={*(exclude or ()), "is_default"})

    def save(self, *args, **kwargs) -> None:
        """Saving a default dictionary makes it the only one."""
        with transaction.atomic():
            if self.is_default:
                Dictionary.objects.filter(is_default=True).exclude(pk=self.pk).update(
                    is_default=False
                )
            super().save(*args, **kwargs)


class DictionaryVersion(models.Model):
    """One compiled state of a dictionary: an immutable ``.lex`` file named by its content."""

    dictionary = models.ForeignKey(Dictionary, on_delete=models.CASCADE, related_name="versions")
    digest = models.CharField(
        max_length=64, help_text="SHA-256 of the word list, the rules and the edits."
    )
    path = models.CharField(max_length=255, help_text="File name under BOGGLE_DICTIONARY_DIR.")
    upload = models.CharField(
        max_length=200,
        blank=True,
        editable=False,
        help_text="The uploaded word list it was compiled from, kept as long as the version "
        "(empty for a named list, and for versions compiled before this was recorded).",
    )
    word_count = models.PositiveIntegerField()
    file_size = models.PositiveBigIntegerField(default=0, help_text="Bytes.")
    rules = models.JSONField(default=dict)
    report = models.JSONField(
        default=dict, help_text="What compiling kept and dropped, and why (solver CompileReport)."
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["dictionary", "digest"], name="one_version_per_digest")
        ]

    def __str__(self) -> str:
        return self.path


class DiscardedFile(models.Model):
    """A file under BOGGLE_DICTIONARY_DIR that stopped being used: an uploaded word list a
    dictionary replaced or dropped, or a file of a deleted dictionary. ``dictionaries.retention``
    deletes it once discarded for the retention period, unless something uses it by then.

    Only files this database used are ever deleted: the directory may be shared with other
    databases (tests use var/dictionaries), whose files this one knows nothing about."""

    path = models.CharField(
        max_length=255, unique=True, help_text="File name under BOGGLE_DICTIONARY_DIR."
    )
    discarded_at = models.DateTimeField(default=timezone.now, db_index=True)

    def __str__(self) -> str:
        return self.path

    @classmethod
    def record(cls, *paths: str) -> None:
        """Discard these files now (empty names are skipped; a file discarded earlier gets
        a new date)."""
        now = timezone.now()
        for path in sorted({path for path in paths if path}):
            cls.objects.update_or_create(path=path, defaults={"discarded_at": now})


@receiver(pre_delete, sender=Dictionary)
def discard_files_of_dictionary(
    sender: type[Dictionary], instance: Dictionary, **kwargs: Any
) -> None:
    """A deleted dictionary's word lists and compiled files (its versions go with it; a
    round's version protects the dictionary from deletion) are discarded."""
    versions = DictionaryVersion.objects.filter(dictionary=instance).values_list("path", "upload")
    DiscardedFile.record(instance.upload, instance.pending_upload, *chain.from_iterable(versions))


class DictionaryEdit(models.Model):
    """A single word staff add to or remove from a dictionary; applied on every compile."""

    class Action(models.TextChoices):
        ADD = "add", "add"
        REMOVE = "remove", "remove"

    dictionary = models.ForeignKey(Dictionary, on_delete=models.CASCADE, related_name="edits")
    word = models.CharField(max_length=72, help_text="In the dictionary's form (lower-case).")
    action = models.CharField(max_length=8, choices=Action.choices)
    note = models.CharField(max_length=200, blank=True, help_text="Why, for other staff.")
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["word"]
        constraints = [
            models.UniqueConstraint(fields=["dictionary", "word"], name="one_edit_per_word")
        ]

    def __str__(self) -> str:
        return f"{self.action} {self.word}"


class ThemeList(models.Model):
    """A list of words on one theme (animals, a dialect) that staff upload: a round whose
    theme is this list counts only the dictionary's words that are on it
    (``games.room_themes``). The words are kept as written, one per line, and put in a
    round's dictionary form (``solver.wordrules.normalise_word``) when used."""

    name = models.SlugField(
        max_length=64, unique=True, help_text="What rooms and the API call it, e.g. animals."
    )
    title = models.CharField(max_length=100, help_text="Shown to players, e.g. Animals.")
    language = models.CharField(
        max_length=16, blank=True, help_text="Language code of its words, e.g. en, fr, nl."
    )
    words = models.TextField(
        blank=True,
        help_text="One word per line. Paste up to 1 MiB here; upload a file for a longer list.",
    )
    enabled = models.BooleanField(default=True, help_text="Offered to rooms.")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["title", "name"]

    def __str__(self) -> str:
        return self.name
