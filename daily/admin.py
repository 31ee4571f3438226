"""Staff pages for daily boards, attempts and the leaderboard."""

from django.contrib import admin

from daily.models import DailyBoard, DailyGame, DailyScore


@admin.register(DailyBoard)
class DailyBoardAdmin(admin.ModelAdmin):
    list_display = ("date", "board", "dictionary", "word_count", "roll_number")
    readonly_fields = ("date", "board", "dictionary", "word_count", "roll_number")


@admin.register(DailyGame)
class DailyGameAdmin(admin.ModelAdmin):
    list_display = ("date", "room", "player", "counted")
    list_filter = ("date", "counted")
    raw_id_fields = ("room", "player")


@admin.register(DailyScore)
class DailyScoreAdmin(admin.ModelAdmin):
    list_display = ("date", "nickname", "points", "words", "best_word", "finished_at")
    list_filter = ("date",)
    search_fields = ("nickname",)
    raw_id_fields = ("player",)
