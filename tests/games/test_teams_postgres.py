"""Teams stay even when players join at once, on real PostgreSQL (issue 48, defect 12): each
newcomer goes to the smallest team (games.teams.place), counted under the room's row lock,
so a burst of joins in a teams room splits 4/4, never 5/3 or 8/0 as when every join counted
the teams before the others had written theirs. (SQLite has one writer at a time: the race
needs PostgreSQL.)

The scenario runs in a subprocess (this file run as a script) with Django on a throwaway
PostgreSQL database, and prints what it found as one JSON line.
"""

from __future__ import annotations

import json

import pytest

from tests.servers import run_script_on_postgres

pytestmark = pytest.mark.integration

# Joins released together per room, and rooms tried (each a burst).
BURST = 8
ROOMS = 6


def test_a_burst_of_joins_keeps_the_teams_even(postgres_url: str) -> None:
    found = run_script_on_postgres(postgres_url, __file__)
    assert found["errors"] == []
    assert len(found["sizes"]) == ROOMS
    for sizes in found["sizes"]:
        # The host is in team 1 before the burst: 9 players split 5/4.
        assert sorted(sizes.values()) == [4, 5], found["sizes"]


def scenario() -> dict:
    import threading

    import django

    django.setup()
    from django.db import connection

    from games import rooms
    from games.models import Player, Room, Round

    found: dict = {"sizes": [], "errors": []}
    for attempt in range(ROOMS):
        room, _host = rooms.do_create_room(f"Host{attempt}", {"mode": "teams", "team_count": 2})
        barrier = threading.Barrier(BURST)

        def join(room: Room, barrier: threading.Barrier, number: int) -> None:
            try:
                barrier.wait(timeout=30)
                rooms.do_join_room(room, f"Player{number}")
            except Exception as error:  # reported, not raised: the thread has no caller
                found["errors"].append(repr(error))
            finally:
                connection.close()

        threads = [threading.Thread(target=join, args=(room, barrier, n)) for n in range(BURST)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        sizes: dict[int | None, int] = {}
        for team in Player.objects.filter(room=room).values_list("team", flat=True):
            sizes[team] = sizes.get(team, 0) + 1
        found["sizes"].append({str(team): count for team, count in sizes.items()})
    assert not Round.objects.exists()
    return found


if __name__ == "__main__":
    print(json.dumps(scenario()))
