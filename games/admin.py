"""Staff pages for rooms, players, rounds, submissions and challenged words."""

from collections import defaultdict
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import OuterRef, QuerySet, Subquery
from django.http import HttpRequest

from dictionaries import services as dictionary_services
from dictionaries.exceptions import DictionaryError
from dictionaries.models import Dictionary, DictionaryEdit
from games.models import Challenge, Player, Room, Round, Submission
from solver.errors import SolverError


class PlayerInline(admin.TabularInline):
    model = Player
    extra = 0
    fields = ("nickname", "joined_at", "left_at", "kicked", "last_seen_at")
    readonly_fields = ("joined_at", "last_seen_at")


def dictionary_choices(current: str = "") -> list[tuple[str, str]]:
    """Every dictionary of the dictionaries app, by title (value: its name); a room's
    current name that no dictionary has any more is kept, marked, so saving keeps it."""
    choices = [
        (name, title)
        for name, title in Dictionary.objects.order_by("title").values_list("name", "title")
    ]
    if current and current not in {name for name, _ in choices}:
        choices.append((current, f"{current} (no such dictionary)"))
    return choices


class RoomAdminForm(forms.ModelForm):
    """The room's dictionary is picked from the existing dictionaries, shown by title."""

    dictionary = forms.ChoiceField(choices=(), help_text="The dictionary of the next rounds.")

    class Meta:
        model = Room
        fields = "__all__"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        current = self.instance.dictionary if self.instance.pk else ""
        field = self.fields["dictionary"]
        assert isinstance(field, forms.ChoiceField)
        field.choices = dictionary_choices(current)


@admin.register(Room)
class RoomAdmin(admin.ModelAdmin):
    form = RoomAdminForm
    list_display = (
        "code",
        "board_size",
        "dictionary_title",
        "round_seconds",
        "created_at",
        "last_active_at",
    )
    list_filter = ("board_size", "dictionary")
    search_fields = ("code",)
    readonly_fields = (
        "code",
        "created_at",
        "last_active_at",
        "version",
        "game",
        # Set by quick play (quickplay) and its autopilot: not for staff to turn on or off.
        "public",
        "autopilot_rounds",
        "next_round_at",
    )
    inlines = [PlayerInline]

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        # The title in the same query as the rooms (a room names its dictionary by name).
        titles = Dictionary.objects.filter(name=OuterRef("dictionary")).values("title")[:1]
        return super().get_queryset(request).annotate(dictionary_title=Subquery(titles))

    @admin.display(description="dictionary", ordering="dictionary_title")
    def dictionary_title(self, obj: Room) -> str:
        title = getattr(obj, "dictionary_title", None)
        return title or f"{obj.dictionary} (no such dictionary)"


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):
    list_display = ("nickname", "room", "joined_at", "left_at", "kicked", "last_seen_at")
    search_fields = ("nickname", "room__code")
    exclude = ("token",)


@admin.register(Round)
class RoundAdmin(admin.ModelAdmin):
    list_display = ("room", "number", "status", "board", "dictionary", "starts_at", "ended_at")
    list_filter = ("status", "dictionary")
    search_fields = ("room__code",)
    readonly_fields = ("solution", "dictionary_version")


@admin.register(Submission)
class SubmissionAdmin(admin.ModelAdmin):
    list_display = ("word", "verdict", "player", "round", "points", "cancelled", "created_at")
    list_filter = ("verdict", "cancelled")
    search_fields = ("word", "player__nickname", "round__room__code")


@admin.register(Challenge)
class ChallengeAdmin(admin.ModelAdmin):
    """Words players challenged and how hosts ruled; staff may add them to a dictionary."""

    list_display = (
        "word",
        "status",
        "dictionary",
        "room",
        "round_number",
        "player",
        "created_at",
        "decided_at",
        "added_to",
    )
    list_filter = ("status", "dictionary", "added_to", "decided_at")
    search_fields = ("word", "room__code", "player__nickname")
    list_select_related = ("room", "round", "player", "added_to")
    readonly_fields = ("room", "round", "player", "decided_by", "created_at", "decided_at")
    actions = ["add_to_dictionary"]

    @admin.display(description="round", ordering="round__number")
    def round_number(self, obj: Challenge) -> int:
        return obj.round.number

    @admin.action(
        description="Add the selected words to the dictionary they were played with",
        permissions=["change"],
    )
    def add_to_dictionary(self, request: HttpRequest, queryset: QuerySet) -> None:
        """One single-word edit per word in its round's dictionary, then one recompile per
        dictionary; the challenges remember where their word went."""
        by_dictionary: dict[str, list[Challenge]] = defaultdict(list)
        for challenge in queryset.select_related("room"):
            by_dictionary[challenge.dictionary].append(challenge)
        for name, challenges in sorted(by_dictionary.items()):
            dictionary = Dictionary.objects.filter(name=name).first()
            if dictionary is None:
                self.message_user(request, f"There is no dictionary {name!r}.", messages.ERROR)
                continue
            words = sorted({challenge.word for challenge in challenges})
            rooms = ", ".join(sorted({challenge.room.code for challenge in challenges}))
            try:
                dictionary_services.do_edit_words(
                    dictionary,
                    words,
                    str(DictionaryEdit.Action.ADD),
                    note=f"challenged in room {rooms}",
                    user=request.user,
                )
            except (DictionaryError, SolverError) as error:
                self.message_user(request, f"{name}: {error}", messages.ERROR)
                continue
            Challenge.objects.filter(pk__in=[c.pk for c in challenges]).update(added_to=dictionary)
            self.message_user(
                request, f"Added {', '.join(words)} to {name}; recompiling.", messages.SUCCESS
            )
