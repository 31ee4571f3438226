from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from definitions.models import Definition


@admin.register(Definition)
class DefinitionAdmin(admin.ModelAdmin):
    list_display = ("word", "language", "part_of_speech", "short_text", "updated_at")
    list_filter = ("language",)
    search_fields = ("word", "key", "text")
    fields = ("language", "word", "part_of_speech", "text")

    @admin.display(description=_("text"))
    def short_text(self, definition: Definition) -> str:
        text = definition.text
        return text if len(text) <= 80 else f"{text[:79]}…"
