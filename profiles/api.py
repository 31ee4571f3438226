"""The profile's JSON API (docs/api.md, "Profile"), for a browser signed in to an account:
the account's rounds, new rounds joined to them, and the whole account as a download."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods

from profiles.models import ProfileRound
from profiles.rounds import MAX_BODY_BYTES, MAX_ROUNDS_PER_ACCOUNT, clean_rounds
from web import throttle
from web.errors import ClientError
from web.json_api import json_api, rate_limited, read_json

# A device syncs on each visit of its profile page, a first sync in a few batches.
SYNC = throttle.Limit("profile_sync", 30, 30, _("too many profile requests from your address"))


class NotSignedIn(ClientError):
    code = "not_signed_in"
    status = 401


class ProfileFull(ClientError):
    code = "profile_full"
    status = 409


def _user(request: HttpRequest) -> Any:
    if not request.user.is_authenticated:
        raise NotSignedIn("sign in to an account first (/profile/account/)")
    return request.user


def _rounds(user: Any) -> list[dict[str, Any]]:
    return list(ProfileRound.objects.filter(user=user).values_list("data", flat=True))


@json_api
@never_cache
@rate_limited(SYNC)
@require_http_methods(["GET", "POST"])
def rounds(request: HttpRequest) -> JsonResponse:
    """GET: the account's rounds, oldest first. POST ``{"rounds": [...]}``: join them to the
    account's (a round already kept under its id is replaced); answers the count kept."""
    user = _user(request)
    if request.method == "GET":
        return JsonResponse({"account": {"email": user.email}, "rounds": _rounds(user)})
    cleaned = clean_rounds(read_json(request, MAX_BODY_BYTES), timezone.now())
    with transaction.atomic():
        # The account's row, locked: two devices syncing at once count the limit in turn.
        get_user_model().objects.select_for_update().filter(pk=user.pk).first()
        kept = ProfileRound.objects.filter(user=user)
        known = set(
            kept.filter(record_id__in=[r["id"] for r in cleaned]).values_list(
                "record_id", flat=True
            )
        )
        if kept.count() + sum(1 for r in cleaned if r["id"] not in known) > MAX_ROUNDS_PER_ACCOUNT:
            raise ProfileFull(f"an account keeps at most {MAX_ROUNDS_PER_ACCOUNT} rounds")
        ProfileRound.objects.bulk_create(
            [
                ProfileRound(
                    user=user,
                    record_id=r["id"],
                    ended_at=datetime.fromtimestamp(r["at"] / 1000, UTC),
                    data=r,
                )
                for r in cleaned
            ],
            update_conflicts=True,
            unique_fields=["user", "record_id"],
            update_fields=["ended_at", "data"],
        )
        count = kept.count()
    return JsonResponse({"saved": len(cleaned), "count": count})


@json_api
@never_cache
@rate_limited(SYNC)
@require_GET
def export(request: HttpRequest) -> HttpResponse:
    """The account and all its rounds as one JSON file to keep."""
    user = _user(request)
    body = {
        "exported_at": timezone.now().isoformat(),
        "account": {"email": user.email, "created_at": user.date_joined.isoformat()},
        "rounds": _rounds(user),
    }
    response = HttpResponse(
        json.dumps(body, ensure_ascii=False, indent=1), content_type="application/json"
    )
    response["Content-Disposition"] = 'attachment; filename="boggle-profile.json"'
    return response
