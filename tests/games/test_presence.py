"""Presence by heartbeat: sockets recorded per process, renewed by it, swept when it died."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection as db_connection
from django.utils import timezone

from games import events, presence, rooms, state
from games.models import PRESENCE_TIMEOUT, Connection, Player, Room

# Real commits: events leave after commit.
pytestmark = pytest.mark.django_db(transaction=True)

LONG_AGO = PRESENCE_TIMEOUT + timedelta(seconds=1)


@pytest.fixture(autouse=True)
def no_open_sockets() -> Iterator[None]:
    presence._open.clear()
    yield
    presence._open.clear()


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Events as they leave (after commit)."""
    delivered: list[dict[str, Any]] = []
    monkeypatch.setattr(
        events, "_deliver", lambda group, handler, message: delivered.append(message)
    )
    return delivered


def online_events(sent: list[dict[str, Any]]) -> list[tuple[int, bool]]:
    return [(m["player_id"], m["online"]) for m in sent if m["type"] == "player.online"]


def connect(player: Player, channel_name: str) -> None:
    """What the consumer does when a socket of the player opens."""
    presence.hold(channel_name, player.pk)
    presence.do_connect(player, channel_name)


def channel() -> str:
    return f"test.{uuid.uuid4().hex}"


def socket_of_dead_process(player: Player) -> Connection:
    """A socket recorded by a process that stopped renewing it PRESENCE_TIMEOUT ago."""
    return Connection.objects.create(
        player=player,
        channel_name=channel(),
        process="dead-process",
        beat_at=timezone.now() - LONG_AGO,
    )


def online(room: Room) -> dict[str, bool]:
    room.refresh_from_db()
    return {p["nickname"]: p["online"] for p in state.room_state(room)["players"]}


def test_connecting_and_closing_say_online_and_offline(sent: list) -> None:
    """A closed socket is forgotten at once; the next beat deletes its row and, for the
    player's last socket, says they went offline."""
    room, ann = rooms.do_create_room("Ann")
    connect(ann, first := channel())
    connect(ann, second := channel())  # a second tab: no second announcement
    assert online_events(sent) == [(ann.id, True)]
    presence.forget(first)
    assert presence.beat() == []  # still here in the other tab
    assert online(room) == {"Ann": True}
    presence.forget(second)
    [(code, offline)] = presence.beat()
    assert code == room.code
    assert (offline["type"], offline["player_id"], offline["online"]) == (
        "player.online",
        ann.id,
        False,
    )
    assert offline["version"] == Room.objects.get(pk=room.pk).version
    assert online(room) == {"Ann": False}
    assert presence.open_sockets() == 0 and not Connection.objects.exists()


def test_a_socket_that_opens_during_a_beat_keeps_its_row(sent: list) -> None:
    """A socket held and recorded while a beat runs (after the beat looked at the open
    sockets, before it read the rows) is not taken for one that closed."""
    _room, ann = rooms.do_create_room("Ann")
    connect(ann, channel())
    connect(ann, leaving := channel())
    presence.forget(leaving)  # a tab closed: this beat deletes a row
    newcomer = channel()

    def open_a_socket_meanwhile(execute, sql, params, many, context):
        # Once the beat has renewed its rows, just before it reads them.
        if (
            sql.startswith("SELECT")
            and "games_connection" in sql
            and newcomer not in presence._open
        ):
            connect(ann, newcomer)  # on the event loop, in the real server
        return execute(sql, params, many, context)

    with db_connection.execute_wrapper(open_a_socket_meanwhile):
        assert presence.beat() == []
    stored = set(Connection.objects.values_list("channel_name", flat=True))
    assert newcomer in stored and leaving not in stored
    assert presence.beat() == [] and Connection.objects.count() == 2
    assert online_events(sent) == [(ann.id, True)]


def test_the_sockets_of_a_dead_process_are_swept_and_their_players_go_offline(
    sent: list,
) -> None:
    room, ann = rooms.do_create_room("Ann")
    bob = rooms.do_join_room(room, "Bob")
    cy = rooms.do_join_room(room, "Cy")
    connect(ann, channel())  # in this (live) process
    socket_of_dead_process(bob)
    socket_of_dead_process(cy)
    connect(cy, channel())  # Cy also has a tab here: still online
    assert online(room) == {"Ann": True, "Bob": False, "Cy": True}  # stale rows never count
    sent.clear()
    assert presence.sweep() == 2
    assert online_events(sent) == [(bob.id, False)]
    assert not Connection.objects.filter(process="dead-process").exists()
    assert presence.sweep() == 0  # each stale socket is reported once


def test_the_beat_renews_this_processs_sockets_and_takes_back_swept_ones(sent: list) -> None:
    """A process cut off from the database for longer than the timeout had its sockets
    swept by another; its next beat records them again and says the player is back."""
    room, ann = rooms.do_create_room("Ann")
    connect(ann, mine := channel())
    Connection.objects.filter(channel_name=mine).update(beat_at=timezone.now() - LONG_AGO)
    presence.sweep()
    assert online(room) == {"Ann": False}
    sent.clear()
    presence.beat()
    assert online(room) == {"Ann": True}
    assert online_events(sent) == [(ann.id, True)]
    assert Connection.objects.live().filter(channel_name=mine).exists()


def test_a_player_who_left_is_not_brought_back_by_the_beat() -> None:
    room, _ = rooms.do_create_room("Ann")
    bob = rooms.do_join_room(room, "Bob")
    connect(bob, channel())
    rooms.do_leave(bob)  # their socket closes a moment later
    presence.beat()
    assert not Connection.objects.filter(player=bob).exists()


def test_hosting_passes_on_when_the_host_has_been_away_for_the_timeout(sent: list) -> None:
    room, ann = rooms.do_create_room("Ann")
    bob = rooms.do_join_room(room, "Bob")
    cy = rooms.do_join_room(room, "Cy")
    socket_of_dead_process(ann)  # the host's process died
    connect(cy, channel())
    presence.sweep()
    # Away, but not yet for long (last seen when their process last beat, just now).
    Player.objects.filter(pk=ann.pk).update(last_seen_at=timezone.now())
    assert presence.pass_on_hosting_from_absent_hosts() == 0
    away = presence.HOST_AWAY + timedelta(seconds=1)
    Player.objects.filter(pk=ann.pk).update(last_seen_at=timezone.now() - away)
    sent.clear()
    assert presence.pass_on_hosting_from_absent_hosts() == 1
    assert Room.objects.get(pk=room.pk).host_id == cy.id  # online beats joined earlier (Bob)
    assert [m["host_id"] for m in sent if m["type"] == "host.changed"] == [cy.id]
    assert bob.id != cy.id


def test_hosting_stays_when_nobody_else_is_there_or_the_host_is_back() -> None:
    room, ann = rooms.do_create_room("Ann")
    bob = rooms.do_join_room(room, "Bob")
    away = presence.HOST_AWAY + timedelta(seconds=1)
    Player.objects.filter(pk=ann.pk).update(last_seen_at=timezone.now() - away)
    assert presence.pass_on_hosting_from_absent_hosts() == 0  # nobody online to take it
    connect(ann, channel())
    connect(bob, channel())
    assert presence.pass_on_hosting_from_absent_hosts() == 0  # the host is back
    assert Room.objects.get(pk=room.pk).host_id == ann.id


def test_a_socket_closed_while_another_was_swept_still_goes_offline(sent: list) -> None:
    """The beat compares which sockets it renewed with which are open, not how many: one
    socket's row swept by another process (this one could not reach the database) while
    another socket closed here left the counts equal, and the closed socket's player online
    for as long as the process ran."""
    room, ann = rooms.do_create_room("Ann")
    bob = rooms.do_join_room(room, "Bob")
    connect(ann, ann_socket := channel())
    connect(bob, bob_socket := channel())
    Connection.objects.filter(channel_name=ann_socket).delete()  # swept elsewhere
    presence.forget(bob_socket)  # Bob's socket closed here
    offline = presence.beat()
    assert [(event["player_id"], event["online"]) for _, event in offline] == [(bob.id, False)]
    assert set(Connection.objects.values_list("channel_name", flat=True)) == {ann_socket}
    assert online(room) == {"Ann": True, "Bob": False}
