"""A daily attempt retried with its ``Idempotency-Key`` (docs/api.md, "Retrying a request"):
when the first answer is lost on a first visit, the retry gets that answer and a session
that knows the attempt (``GET /api/daily``'s ``playing``), as the first answer gave; when
only its body is lost, the retry with the cookie it set is the same attempt, not a second."""

from __future__ import annotations

import json

import pytest
from django.conf import settings
from django.test import Client

from daily.models import DailyGame

pytestmark = pytest.mark.django_db

PHONE = "10.0.0.5"


def start_attempt(client: Client):
    return client.post(
        "/api/daily",
        json.dumps({"nickname": "Ann"}),
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY="daily-1",
    )


def test_a_replayed_attempt_on_a_first_visit_is_this_devices_attempt() -> None:
    lost = start_attempt(Client(REMOTE_ADDR=PHONE))
    assert lost.status_code == 201, lost.content
    phone = Client(REMOTE_ADDR=PHONE)
    again = start_attempt(phone)
    assert again.status_code == 201 and again.json() == lost.json()
    playing = phone.get("/api/daily").json()["playing"]
    assert playing is not None and playing["code"] == lost.json()["room"]["code"]
    room = phone.get(f"/api/rooms/{lost.json()['room']['code']}").json()["room"]
    assert room["you"] == lost.json()["player"]["id"]
    assert DailyGame.objects.count() == 1


def test_an_attempt_retried_with_the_cookie_it_set_is_not_a_second_attempt() -> None:
    phone = Client(REMOTE_ADDR=PHONE)
    first = start_attempt(phone)
    assert phone.cookies[settings.SESSION_COOKIE_NAME].value
    again = start_attempt(phone)
    assert again.status_code == 201 and again.json() == first.json()
    assert DailyGame.objects.count() == 1
