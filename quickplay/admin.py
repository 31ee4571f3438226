"""Staff see the reports of quick-play players (and mark them handled), the ratings and the
queue."""

from django.contrib import admin

from quickplay.models import Rating, Report, Ticket


@admin.register(Report)
class ReportAdmin(admin.ModelAdmin):
    list_display = (
        "created_at",
        "reported_nickname",
        "reason",
        "room_code",
        "reporter_nickname",
        "handled",
    )
    list_filter = ("handled", "reason")
    search_fields = ("reported_nickname", "reported_identity", "room_code")
    readonly_fields = (
        "room",
        "room_code",
        "reported",
        "reported_nickname",
        "reported_identity",
        "reporter_nickname",
        "reporter_address",
        "reason",
        "created_at",
    )


@admin.register(Rating)
class RatingAdmin(admin.ModelAdmin):
    list_display = ("nickname", "ordinal", "mu", "sigma", "games", "updated_at")
    search_fields = ("nickname", "identity")


@admin.register(Ticket)
class TicketAdmin(admin.ModelAdmin):
    list_display = ("nickname", "dictionary", "created_at", "seen_at", "room")
    raw_id_fields = ("room", "player")
