"""Staff pages for dictionaries: upload, rules, single-word edits, compile status and report,
versions and the rounds that used them, a look-up box, and a "recompile" action; and the
theme lists rounds may be played with (upload or text box).

Only staff reach these (``admin_site.admin_view`` and the model permissions).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import Count, QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.defaultfilters import filesizeformat
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join

from dictionaries import services
from dictionaries.exceptions import UnusableWordList
from dictionaries.forms import (
    DictionaryAdminForm,
    DictionaryEditForm,
    DictionaryEditFormSet,
    ThemeListAdminForm,
    WordForm,
)
from dictionaries.models import Dictionary, DictionaryEdit, ThemeList
from solver.errors import WordListError

# Fields whose change makes the saved dictionary compile again.
COMPILE_FIELDS = {
    "named_list",
    "alphabet",
    "fold_accents",
    "qu_rule",
    "min_length",
    "max_length",
    "keep_capitalised",
    "word_list",
}
# How many rounds the change page links to.
ROUNDS_SHOWN = 20

if TYPE_CHECKING:

    class _SavingRequest(HttpRequest):
        # Set on the admin's request by save_model and save_formset, read by save_related:
        # whether the saved dictionary compiles again.
        _dictionary_compile: bool


class DictionaryEditInline(admin.TabularInline):
    model = DictionaryEdit
    form = DictionaryEditForm
    formset = DictionaryEditFormSet
    extra = 0
    fields = ("word", "action", "note", "created_at", "created_by")
    readonly_fields = ("created_at", "created_by")
    verbose_name = "single-word edit"
    verbose_name_plural = "single-word edits (applied on every compile; saving recompiles)"


@admin.register(Dictionary)
class DictionaryAdmin(admin.ModelAdmin):
    form = DictionaryAdminForm
    change_form_template = "admin/dictionaries/dictionary/change_form.html"
    list_display = (
        "name",
        "title",
        "language",
        "status_label",
        "word_count",
        "enabled",
        "is_default",
        "compiled_at",
    )
    list_filter = ("status", "enabled", "is_default", "language")
    search_fields = ("name", "title", "description")
    list_select_related = ("current_version",)
    actions = ["recompile"]
    inlines = [DictionaryEditInline]
    readonly_fields = (
        "status_label",
        "upload_label",
        "current_version_label",
        "report_label",
        "versions_label",
        "rounds_label",
    )
    fieldsets = (
        (
            None,
            {
                "fields": (
                    "name",
                    "title",
                    "language",
                    "description",
                    "source",
                    "licence",
                    "enabled",
                    "is_default",
                )
            },
        ),
        ("Word list", {"fields": ("word_list", "upload_label", "named_list")}),
        (
            "Rules",
            {
                "fields": (
                    "min_length",
                    "max_length",
                    "fold_accents",
                    "qu_rule",
                    "alphabet",
                    "keep_capitalised",
                )
            },
        ),
        (
            "Compiled",
            {
                "fields": (
                    "status_label",
                    "current_version_label",
                    "report_label",
                    "versions_label",
                    "rounds_label",
                )
            },
        ),
    )

    def get_readonly_fields(self, request: HttpRequest, obj: Dictionary | None = None):
        # Rooms, rounds and challenges refer to a dictionary by name: it is set once.
        fields = super().get_readonly_fields(request, obj)
        return (*fields, "name") if obj is not None else fields

    # ------------------------------------------------------------ permissions

    def has_delete_permission(self, request: HttpRequest, obj: Dictionary | None = None) -> bool:
        if obj is not None and obj.is_default:
            return False  # make another dictionary the default first
        return super().has_delete_permission(request, obj)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet) -> None:
        if queryset.filter(is_default=True).exists():
            self.message_user(
                request, "The default dictionary was kept: it cannot be deleted.", messages.WARNING
            )
        super().delete_queryset(request, queryset.exclude(is_default=True))

    # ------------------------------------------------------------ read-only displays

    @admin.display(description="status", ordering="status")
    def status_label(self, obj: Dictionary) -> str:
        if obj.status == Dictionary.Status.COMPILING:
            since = obj.compile_requested_at
            started = f" since {timezone.localtime(since):%H:%M:%S}" if since else ""
            return f"compiling…{started} (this page reloads until it is done)"
        if obj.status == Dictionary.Status.FAILED:
            kept = "; the previous version stays in use" if obj.current_version_id else ""
            return f"failed: {obj.status_message}{kept}"
        return obj.get_status_display()

    @admin.display(description="words")
    def word_count(self, obj: Dictionary) -> str:
        version = obj.current_version
        return f"{version.word_count:,}" if version else "—"

    @admin.display(description="uploaded list")
    def upload_label(self, obj: Dictionary) -> str:
        waiting = ""
        if obj.pending_upload:
            waiting = f"; {obj.pending_upload_name} is compiling and replaces it once it works"
        if not obj.upload:
            label = f"none (named list {obj.named_list})" if obj.named_list else "none"
            return label + waiting
        when = timezone.localtime(obj.uploaded_at) if obj.uploaded_at else None
        return format_html(
            "{} ({}, in use since {}){}",
            obj.upload_name,
            filesizeformat(obj.upload_size or 0),
            f"{when:%Y-%m-%d %H:%M}" if when else "?",
            waiting,
        )

    @admin.display(description="current version")
    def current_version_label(self, obj: Dictionary) -> str:
        version = obj.current_version
        if version is None:
            return "none yet"
        return format_html(
            "{} words, {}, <code>{}</code>, compiled {}",
            f"{version.word_count:,}",
            filesizeformat(version.file_size),
            version.path,
            f"{timezone.localtime(version.created_at):%Y-%m-%d %H:%M}",
        )

    @admin.display(description="report")
    def report_label(self, obj: Dictionary) -> str:
        version = obj.current_version
        if version is None:
            return "—"
        report = version.report or {}
        rows = [
            ("lines read", f"{report.get('lines', 0):,}", ""),
            ("blank or comment lines", f"{report.get('ignored_lines', 0):,}", ""),
            ("kept from the list", f"{report.get('kept', 0):,}", ""),
        ]
        examples = report.get("examples", {})
        for reason, count in sorted(report.get("dropped", {}).items(), key=lambda item: -item[1]):
            rows.append((f"dropped: {reason}", f"{count:,}", ", ".join(examples.get(reason, []))))
        edits = report.get("edits") or {}
        for kind in ("added", "removed", "unchanged"):
            if edits.get(f"{kind}_count"):
                words = ", ".join(edits.get(kind, []))
                rows.append((f"edits: {kind}", f"{edits[f'{kind}_count']:,}", words))
        if edits.get("refused_count"):
            refused = "; ".join(f"{word} ({reason})" for word, reason in edits.get("refused", []))
            rows.append(("edits: refused by the rules", f"{edits['refused_count']:,}", refused))
        rows.append(("words in the dictionary", f"{version.word_count:,}", ""))
        body = format_html_join(
            "", "<tr><th>{}</th><td>{}</td><td>{}</td></tr>", ((a, b, c) for a, b, c in rows)
        )
        return format_html(
            "<table><thead><tr><th></th><th>count</th><th>examples</th></tr></thead>"
            "<tbody>{}</tbody></table>",
            body,
        )

    @admin.display(description="versions")
    def versions_label(self, obj: Dictionary) -> str:
        if obj.pk is None:
            return "—"
        versions = obj.versions.annotate(round_count=Count("rounds")).order_by("-created_at")
        if not versions:
            return "none yet"
        body = format_html_join(
            "",
            "<tr><td>{}</td><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            (
                (
                    f"{timezone.localtime(v.created_at):%Y-%m-%d %H:%M}",
                    v.digest[:16],
                    f"{v.word_count:,}",
                    filesizeformat(v.file_size),
                    v.round_count,
                    "current" if v.pk == obj.current_version_id else "",
                )
                for v in versions
            ),
        )
        return format_html(
            "<table><thead><tr><th>compiled</th><th>digest</th><th>words</th><th>size</th>"
            "<th>rounds</th><th></th></tr></thead><tbody>{}</tbody></table>",
            body,
        )

    @admin.display(description="rounds played with it")
    def rounds_label(self, obj: Dictionary) -> str:
        if obj.pk is None:
            return "—"
        # Through the versions' reverse relation: the dictionaries app imports no games code.
        rounds = (
            obj.versions.filter(rounds__isnull=False)
            .order_by("-rounds__id")
            .values_list("rounds__id", "rounds__room__code", "rounds__number", "digest")
        )
        total = rounds.count()
        if not total:
            return "none"
        links = format_html_join(
            ", ",
            '<a href="{}">{} round {}</a> <small>({})</small>',
            (
                (reverse("admin:games_round_change", args=[round_id]), code, number, digest[:8])
                for round_id, code, number, digest in rounds[:ROUNDS_SHOWN]
            ),
        )
        more = f" and {total - ROUNDS_SHOWN} more" if total > ROUNDS_SHOWN else ""
        return format_html("{} round(s): {}{}", total, links, more)

    # ------------------------------------------------------------ saving and compiling

    def save_model(self, request: HttpRequest, obj: Dictionary, form, change: bool) -> None:
        super().save_model(request, obj, form, change)
        if getattr(form, "checked_upload", None) is not None:
            services.set_upload_file(obj, form.cleaned_data["word_list"])
        compile_again = not change or bool(COMPILE_FIELDS & set(form.changed_data))
        cast("_SavingRequest", request)._dictionary_compile = compile_again

    def save_formset(self, request: HttpRequest, form, formset, change: bool) -> None:
        instances = formset.save(commit=False)
        for instance in instances:
            if instance.pk is None:
                instance.created_by = request.user
            instance.save()
        for deleted in formset.deleted_objects:
            deleted.delete()
        if formset.has_changed():
            cast("_SavingRequest", request)._dictionary_compile = True

    def save_related(self, request: HttpRequest, form, formsets, change: bool) -> None:
        super().save_related(request, form, formsets, change)
        if getattr(request, "_dictionary_compile", False):
            services.request_compile(form.instance, background=True)
            self.message_user(
                request,
                f"{form.instance.name}: compiling. The current version stays in use until "
                "the new one is ready.",
                messages.INFO,
            )

    @admin.action(description="Recompile the selected dictionaries")
    def recompile(self, request: HttpRequest, queryset: QuerySet) -> None:
        names = []
        for dictionary in queryset:
            services.request_compile(dictionary, background=True)
            names.append(dictionary.name)
        self.message_user(request, f"Compiling: {', '.join(names)}.", messages.INFO)

    # ------------------------------------------------------------ the look-up box

    def get_urls(self):
        return [
            path(
                "<path:object_id>/words/",
                self.admin_site.admin_view(self.words_view),
                name="dictionaries_dictionary_words",
            ),
            *super().get_urls(),
        ]

    def words_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        """POST from the look-up box: look a word up, or add or remove it and recompile."""
        dictionary = self.get_object(request, object_id)
        if dictionary is None:
            raise Http404("no such dictionary")
        back = HttpResponseRedirect(
            reverse("admin:dictionaries_dictionary_change", args=[dictionary.pk])
        )
        if request.method != "POST":
            return back
        form = WordForm(request.POST)
        if not form.is_valid():
            self.message_user(request, "Type a word (at most 72 letters).", messages.ERROR)
            return back
        word, action = form.cleaned_data["word"], form.cleaned_data["do"]
        if action == "lookup":
            if not self.has_view_permission(request, dictionary):
                raise PermissionDenied
            accepted, reason = services.lookup(dictionary, word)
            verdict = "is in" if accepted else "is not in"
            self.message_user(
                request,
                f"{word!r} {verdict} {dictionary.name}: {reason}",
                messages.SUCCESS if accepted else messages.WARNING,
            )
            return back
        if not self.has_change_permission(request, dictionary):
            raise PermissionDenied
        try:
            (stored,) = services.do_edit_words(
                dictionary,
                [word],
                action,
                note=form.cleaned_data["note"],
                user=request.user,
                background=True,
            )
        except (UnusableWordList, WordListError) as error:
            self.message_user(request, str(error), messages.ERROR)
            return back
        dictionary.refresh_from_db()
        verb = "added to" if action == "add" else "removed from"
        if dictionary.status == Dictionary.Status.FAILED:
            self.message_user(
                request,
                f"{stored!r} is {verb} the edits, but compiling failed: {dictionary.status_message}",
                messages.ERROR,
            )
        elif dictionary.status == Dictionary.Status.COMPILING:
            self.message_user(
                request, f"{stored!r} {verb} {dictionary.name}: compiling…", messages.INFO
            )
        else:
            self.message_user(
                request, f"{stored!r} {verb} {dictionary.name}; recompiled.", messages.SUCCESS
            )
        return back


# A theme list longer than this is not put in the change page's text box: the page would
# be megabytes, and sending it back over Django's form limit (2.5 MB). Upload a file instead.
THEME_TEXT_BOX_MAX_CHARS = 1 * 2**20
# Words the change page shows of a list too long for the text box.
THEME_WORDS_SHOWN = 50


@admin.register(ThemeList)
class ThemeListAdmin(admin.ModelAdmin):
    form = ThemeListAdminForm
    list_display = ("name", "title", "language", "word_count", "enabled", "updated_at")
    list_filter = ("enabled", "language")
    search_fields = ("name", "title")

    def get_fields(self, request: HttpRequest, obj: ThemeList | None = None):
        words = "words_summary" if self._too_long(obj) else "words"
        return ("name", "title", "language", "enabled", "upload", words)

    def get_readonly_fields(self, request: HttpRequest, obj: ThemeList | None = None):
        fields = ("words_summary",) if self._too_long(obj) else ()
        # Rooms choose a list by name: it is set once.
        return (*fields, "name") if obj is not None else fields

    @staticmethod
    def _too_long(obj: ThemeList | None) -> bool:
        return obj is not None and len(obj.words) > THEME_TEXT_BOX_MAX_CHARS

    @admin.display(description="words")
    def word_count(self, obj: ThemeList) -> str:
        return f"{obj.words.count(chr(10)) + 1 if obj.words else 0:,}"

    @admin.display(description="words")
    def words_summary(self, obj: ThemeList) -> str:
        shown = ", ".join(obj.words.split("\n", THEME_WORDS_SHOWN)[:THEME_WORDS_SHOWN])
        return (
            f"{self.word_count(obj)} words, too many to edit here (upload a file to replace"
            f" them): {shown}, …"
        )
