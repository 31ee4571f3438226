"""Staff pages for uploaded board photos."""

from django.contrib import admin

from photos.models import BoardPhoto


@admin.register(BoardPhoto)
class BoardPhotoAdmin(admin.ModelAdmin):
    list_display = ("id", "room", "uploaded_by", "status", "created_at", "used_at")
    list_filter = ("status",)
    search_fields = ("room__code",)
    readonly_fields = (
        "room",
        "uploaded_by",
        "image",
        "width",
        "height",
        "corners",
        "side",
        "result",
        "error",
        "created_at",
        "queued_at",
        "used_at",
    )
