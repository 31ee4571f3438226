"""Staff pages for dice sets: what each set learnt, its dice as small pictures, and
deleting one exemplar (the inline's Delete box), all of a set's (an action), or the set
(not the installation's: it can only be emptied).

"Remembered dice" lists every die of every set with where it came from (room, photo,
when), what the reader alone read on it and whether it is contested; its actions approve
dice for the installation's set (which reads nothing else) and undo, in one go, everything
the selected dice's rooms or photos taught, in every set (``dicesets.services``)."""

from __future__ import annotations

import io
from typing import Any

from django.contrib import admin, messages
from django.db.models import Count, Q, QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html
from PIL import Image

from dicesets import services
from dicesets.models import CROP_BYTES, DiceSet, Exemplar
from vision.nets import CLASSIFIER_INPUT

# How big a crop is shown (pixels): twice its size, still a page of hundreds of dice.
SHOWN_SIDE = 2 * CLASSIFIER_INPUT


def crop_png(crop: bytes) -> bytes:
    """A stored crop (grayscale, row by row) as PNG bytes; ValueError if it is no crop."""
    data = bytes(crop)
    if len(data) != CROP_BYTES:
        raise ValueError(f"a crop is {CROP_BYTES} bytes, not {len(data)}")
    buffer = io.BytesIO()
    Image.frombytes("L", (CLASSIFIER_INPUT, CLASSIFIER_INPUT), data).save(buffer, "PNG")
    return buffer.getvalue()


def die_picture(obj: Exemplar) -> str:
    url = reverse("admin:dicesets_exemplar_crop", args=[obj.pk])
    return format_html(
        '<img src="{}" width="{}" height="{}" alt="{}">', url, SHOWN_SIDE, SHOWN_SIDE, obj.face
    )


def unaided_text(obj: Exemplar) -> str:
    """What the reader alone read on the die, e.g. "a (0.99)"; "?" when not known."""
    if not obj.unaided_face or obj.unaided_confidence is None:
        return "?"
    return f"{obj.unaided_face} ({obj.unaided_confidence:.2f})"


class ExemplarInline(admin.TabularInline):
    model = Exemplar
    extra = 0
    fields = (
        "picture",
        "face",
        "reader_alone",
        "contested",
        "approved_at",
        "room_code",
        "photo_id",
        "created_at",
    )
    readonly_fields = fields
    ordering = ("face", "-id")
    verbose_name = "remembered die"
    verbose_name_plural = "remembered dice (tick Delete, then Save, to forget one)"

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # dice come from confirmed photos only

    @admin.display(description="die")
    def picture(self, obj: Exemplar) -> str:
        return die_picture(obj)

    @admin.display(description="the reader alone read")
    def reader_alone(self, obj: Exemplar) -> str:
        return unaided_text(obj)


@admin.register(DiceSet)
class DiceSetAdmin(admin.ModelAdmin):
    list_display = (
        "name",
        "installation",
        "started_in",
        "exemplar_count",
        "waiting_count",
        "faces_covered",
        "created_at",
        "last_used_at",
    )
    list_filter = ("installation",)
    search_fields = ("name", "started_in__code")
    list_select_related = ("started_in",)
    fields = ("name", "installation", "started_in", "faces", "created_at", "last_used_at")
    readonly_fields = ("installation", "started_in", "faces", "created_at", "last_used_at")
    inlines = [ExemplarInline]
    actions = ["empty_sets"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[DiceSet]:
        return (
            super()
            .get_queryset(request)
            .annotate(
                exemplar_count=Count("exemplars"),
                waiting_count=Count(
                    "exemplars", filter=Q(installation=True, exemplars__approved_at__isnull=True)
                ),
                face_count=Count("exemplars__face", distinct=True),
            )
        )

    @admin.display(description="dice remembered", ordering="exemplar_count")
    def exemplar_count(self, obj: DiceSet) -> int:
        return getattr(obj, "exemplar_count", 0)

    @admin.display(description="waiting for approval", ordering="waiting_count")
    def waiting_count(self, obj: DiceSet) -> int:
        """The installation's set reads only the dice staff approved ("Remembered dice")."""
        return getattr(obj, "waiting_count", 0)

    @admin.display(description="faces covered", ordering="face_count")
    def faces_covered(self, obj: DiceSet) -> int:
        return getattr(obj, "face_count", 0)

    @admin.display(description="dice per face")
    def faces(self, obj: DiceSet) -> str:
        counts = (
            obj.exemplars.values_list("face").annotate(count=Count("id")).order_by("face")
            if obj.pk
            else []
        )
        return ", ".join(f"{face}: {count}" for face, count in counts) or "none yet"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # a room's host starts sets; the installation's comes with the site

    def has_delete_permission(self, request: HttpRequest, obj: DiceSet | None = None) -> bool:
        if obj is not None and obj.installation:
            return False  # rooms fall back on it: empty it instead
        return super().has_delete_permission(request, obj)

    def get_deleted_objects(self, objs: Any, request: HttpRequest) -> tuple[Any, Any, Any, Any]:
        """Bulk deletion refuses the installation's set, saying why (as protected, rather
        than as a permission this staff member lacks)."""
        deleted, counts, perms_needed, protected = super().get_deleted_objects(objs, request)
        kept = [f"{obj}: empty it instead" for obj in objs if obj.installation]
        if kept and super().has_delete_permission(request):
            perms_needed = set(perms_needed) - {str(DiceSet._meta.verbose_name)}
        return deleted, counts, perms_needed, [*protected, *kept]

    @admin.action(description="Forget every die of the selected sets", permissions=["change"])
    def empty_sets(self, request: HttpRequest, queryset: QuerySet[DiceSet]) -> None:
        deleted, _ = Exemplar.objects.filter(dice_set__in=queryset).delete()
        self.message_user(request, f"Forgot {deleted} dice.", messages.SUCCESS)

    def get_urls(self) -> list[URLPattern]:
        crop = path(
            "exemplar/<int:exemplar_id>.png",
            self.admin_site.admin_view(self.crop_view),
            name="dicesets_exemplar_crop",
        )
        return [crop, *super().get_urls()]

    def crop_view(self, request: HttpRequest, exemplar_id: int) -> HttpResponse:
        """One remembered die as a PNG, for staff who may see dice sets."""
        if not self.has_view_permission(request):
            raise Http404
        crop = Exemplar.objects.filter(pk=exemplar_id).values_list("crop", flat=True).first()
        if crop is None:
            raise Http404
        try:
            png = crop_png(crop)
        except ValueError:
            raise Http404 from None
        response = HttpResponse(png, content_type="image/png")
        response["Cache-Control"] = "private, max-age=3600"  # an exemplar never changes
        return response


@admin.register(Exemplar)
class ExemplarAdmin(admin.ModelAdmin):
    """Every remembered die: where it came from, and the approve and undo actions."""

    list_display = (
        "picture",
        "face",
        "reader_alone",
        "contested",
        "dice_set",
        "approved",
        "room_code",
        "photo_id",
        "created_at",
    )
    list_filter = ("contested", ("approved_at", admin.EmptyFieldListFilter), "dice_set")
    search_fields = ("room_code", "=photo_id", "face")
    list_select_related = ("dice_set",)
    fields = list_display
    readonly_fields = list_display
    actions = ["approve_for_installation", "forget_rooms", "forget_photos"]
    list_per_page = 200

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # dice come from confirmed photos only

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # nothing to edit: approve or forget (the actions)

    def has_approve_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("dicesets.change_diceset")

    @admin.display(description="die")
    def picture(self, obj: Exemplar) -> str:
        return die_picture(obj)

    @admin.display(description="the reader alone read")
    def reader_alone(self, obj: Exemplar) -> str:
        return unaided_text(obj)

    @admin.display(description="read in the installation's set", boolean=True)
    def approved(self, obj: Exemplar) -> bool | None:
        if not obj.dice_set.installation:
            return None  # a room's own set: read by that room without approval
        return obj.approved_at is not None

    @admin.action(
        description="Approve for the installation's set (every room reads it)",
        permissions=["approve"],
    )
    def approve_for_installation(self, request: HttpRequest, queryset: QuerySet[Exemplar]) -> None:
        added = services.approve_for_installation(queryset, approved_by=request.user.get_username())
        self.message_user(
            request, f"The installation's set gained {added} approved dice.", messages.SUCCESS
        )

    @admin.action(
        description="Forget everything the selected dice's rooms taught (every set)",
        permissions=["delete"],
    )
    def forget_rooms(self, request: HttpRequest, queryset: QuerySet[Exemplar]) -> None:
        codes = set(queryset.values_list("room_code", flat=True))
        forgotten = services.forget_taught_by(room_codes=codes)  # type: ignore[arg-type]
        self.message_user(request, f"Forgot {forgotten} dice.", messages.SUCCESS)

    @admin.action(
        description="Forget everything the selected dice's photos taught (every set)",
        permissions=["delete"],
    )
    def forget_photos(self, request: HttpRequest, queryset: QuerySet[Exemplar]) -> None:
        photos = set(queryset.values_list("photo_id", flat=True))
        forgotten = services.forget_taught_by(photo_ids=photos)  # type: ignore[arg-type]
        self.message_user(request, f"Forgot {forgotten} dice.", messages.SUCCESS)
