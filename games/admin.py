"""Staff pages for rooms, players, rounds and submissions."""

from django.contrib import admin

from games.models import Player, Room, Round, Submission


class PlayerInline(admin.TabularInline):
    model = Player
    extra = 0
    fields = ("nickname", "joined_at", "left_at", "kicked", "connections")
    readonly_fields = ("joined_at",)


@admin.register(Room)
class RoomAdmin(admin.ModelAdmin):
    list_display = (
        "code",
        "board_size",
        "dictionary",
        "round_seconds",
        "created_at",
        "last_active_at",
    )
    list_filter = ("board_size", "dictionary")
    search_fields = ("code",)
    readonly_fields = ("code", "created_at", "last_active_at", "version")
    inlines = [PlayerInline]


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):
    list_display = ("nickname", "room", "joined_at", "left_at", "kicked", "connections")
    search_fields = ("nickname", "room__code")
    exclude = ("token",)


@admin.register(Round)
class RoundAdmin(admin.ModelAdmin):
    list_display = ("room", "number", "status", "board", "dictionary", "starts_at", "ended_at")
    list_filter = ("status", "dictionary")
    search_fields = ("room__code",)
    readonly_fields = ("solution",)


@admin.register(Submission)
class SubmissionAdmin(admin.ModelAdmin):
    list_display = ("word", "verdict", "player", "round", "points", "cancelled", "created_at")
    list_filter = ("verdict", "cancelled")
    search_fields = ("word", "player__nickname", "round__room__code")
