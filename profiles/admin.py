"""Staff see how many rounds accounts keep; a round's record is the player's own."""

from django.contrib import admin

from profiles.models import ProfileRound


@admin.register(ProfileRound)
class ProfileRoundAdmin(admin.ModelAdmin):
    list_display = ("user", "record_id", "ended_at")
    raw_id_fields = ("user",)
    search_fields = ("user__username",)
