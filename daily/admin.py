"""Staff pages for daily boards, attempts and the leaderboard. Results played at a pace, or
finding words, no person does (daily.plausibility) are flagged: kept off the public leaderboard, listed
here under the "flagged" filter with the reason."""

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from daily.attempts import do_clear_flag
from daily.models import DailyBoard, DailyGame, DailyScore


@admin.register(DailyBoard)
class DailyBoardAdmin(admin.ModelAdmin):
    list_display = ("date", "board", "dictionary", "word_count", "roll_number")
    readonly_fields = ("date", "board", "dictionary", "word_count", "roll_number")


@admin.register(DailyGame)
class DailyGameAdmin(admin.ModelAdmin):
    list_display = ("date", "room", "player", "device", "counted")
    list_filter = ("date", "counted")
    raw_id_fields = ("room", "player")


@admin.register(DailyScore)
class DailyScoreAdmin(admin.ModelAdmin):
    list_display = (
        "date",
        "nickname",
        "points",
        "words",
        "best_word",
        "finished_at",
        "listed",
        "flagged",
        "flag_reason",
    )
    list_filter = ("date", "flagged", "listed")
    search_fields = ("nickname", "device")
    raw_id_fields = ("player",)
    readonly_fields = ("listed", "flagged", "flag_reason", "device")
    actions = ["clear_flag"]

    @admin.action(
        description="Clear the flag (a person played it) and list it if the nickname is free"
    )
    def clear_flag(self, request: HttpRequest, queryset: QuerySet[DailyScore]) -> None:
        listed = sum(do_clear_flag(score) for score in queryset.filter(flagged=True))
        self.message_user(request, f"{listed} result(s) now on the leaderboard.", messages.SUCCESS)
