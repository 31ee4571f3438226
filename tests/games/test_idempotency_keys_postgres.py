"""tests/games/test_idempotency_keys.py's promises on real PostgreSQL, where copies of one
request really run at once: copies racing in with one caller's key make one room (the
others wait for it and get its answer), another caller's same key is another key, and the
same key with another body is 422 ``idempotency_key_reused``; a key on a path of any length
is no server error (the path is stored as its hash).

The scenario runs in a subprocess (this file run as a script) with Django on a throwaway
PostgreSQL database, and prints what it found as one JSON line.
"""

from __future__ import annotations

import json

import pytest

from tests.servers import run_script_on_postgres

pytestmark = pytest.mark.integration

COPIES = 6


def test_postgres_keys_race_once_and_stay_with_their_caller(postgres_url: str) -> None:
    found = run_script_on_postgres(postgres_url, __file__, {"BOGGLE_RATE_LIMITS": "0"})
    assert found["race_statuses"] == [201] * COPIES
    assert found["race_tokens"] == 1
    assert found["rooms_after_race"] == 1
    assert found["other_caller"] == [201, True]
    assert found["reused"] == [422, "idempotency_key_reused"]
    assert found["rooms_at_end"] == 2
    # /api/rooms/<185 characters>/join and longer: no room, not a DataError (500).
    assert found["long_paths"] == [[404, "room_not_found"]] * 3


def scenario() -> dict:
    import django

    django.setup()
    import threading

    from django.db import connection
    from django.test import Client

    from games.models import Room

    def post(address: str, nickname: str) -> tuple[int, dict]:
        try:
            response = Client(REMOTE_ADDR=address, HTTP_HOST="127.0.0.1").post(
                "/api/rooms",
                json.dumps({"nickname": nickname}),
                content_type="application/json",
                HTTP_IDEMPOTENCY_KEY="1",
            )
            return response.status_code, response.json()
        finally:
            connection.close()  # each thread's own connection

    found: dict = {}
    start = threading.Barrier(COPIES)
    answers: list[tuple[int, dict]] = []

    def copy() -> None:
        start.wait()
        answers.append(post("10.0.0.1", "Victim"))

    threads = [threading.Thread(target=copy) for _ in range(COPIES)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    found["race_statuses"] = [status for status, _ in answers]
    found["race_tokens"] = len({body["player"]["token"] for _, body in answers})
    found["rooms_after_race"] = Room.objects.count()
    victim_token = answers[0][1]["player"]["token"]
    status, body = post("10.0.0.2", "Victim")
    found["other_caller"] = [status, body["player"]["token"] != victim_token]
    status, body = post("10.0.0.1", "Changed")
    found["reused"] = [status, body["error"]["code"]]
    found["rooms_at_end"] = Room.objects.count()
    found["long_paths"] = []
    for length in (185, 500, 4000):
        try:
            response = Client(REMOTE_ADDR="10.0.0.3", HTTP_HOST="127.0.0.1").post(
                f"/api/rooms/{'a' * length}/join",
                json.dumps({"nickname": "Long"}),
                content_type="application/json",
                HTTP_IDEMPOTENCY_KEY="1",
            )
            found["long_paths"].append([response.status_code, response.json()["error"]["code"]])
        finally:
            connection.close()
    return found


if __name__ == "__main__":
    print(json.dumps(scenario()))
