"""Locked rooms (games.waiting_room): newcomers wait for the host's yes, players come back
freely, and a kicked or refused device stays out (docs/api.md, "Locked rooms")."""

from __future__ import annotations

import json
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.test import Client

from games import waiting_room
from games.models import JoinRequest
from games.models import Player as PlayerRow
from tests.games.ws_helpers import (
    Player,
    ask,
    connect,
    create_room,
    join_room,
    open_socket,
    post_json,
    receive,
    receive_until,
    start_round,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_sockets")]


async def locked_room() -> tuple[Player, Player]:
    """Ann (host) and Bob, connected, in a room Ann has locked."""
    ann = await create_room()
    bob = await join_room(ann.code, "Bob")
    await connect(ann)
    await connect(bob)
    reply = await ask(ann.comm, "lock_room", locked=True)
    assert (reply["type"], reply["locked"]) == ("ok", True), reply
    for player in (ann, bob):
        event = await receive_until(player.comm, "room.locked")
        assert event["locked"] is True and isinstance(event["version"], int)
    return ann, bob


async def ask_to_join(code: str, nickname: str, client: Client | None = None) -> tuple[Client, Any]:
    """A join from a browser (a fresh one unless ``client``): its client and response."""
    client = client or Client()
    response = await post_json(client, f"/api/rooms/{code}/join", {"nickname": nickname})
    return client, response


async def poll(client: Client, code: str, **headers: str) -> Any:
    return await sync_to_async(client.get)(f"/api/rooms/{code}/join-request", headers=headers)


async def test_a_newcomer_waits_and_the_host_lets_them_in():
    """At a locked room a newcomer's join is answered 202 with a join request (no token);
    the room hears join.requested; the newcomer's polls say waiting until the host admits,
    then give the player's token, which opens a socket; the room hears player.joined."""
    ann, bob = await locked_room()
    client, response = await ask_to_join(ann.code, "Dan")
    assert response.status_code == 202, response.content
    body = response.json()
    assert "player" not in body
    asked = body["join_request"]
    assert asked["status"] == "waiting" and asked["nickname"] == "Dan"
    assert asked["poll_url"] == f"/api/rooms/{ann.code}/join-request" and asked["key"]
    event = await receive_until(ann.comm, "join.requested")
    assert event["join_request"]["id"] == asked["id"] and "key" not in event["join_request"]
    state = (await ask(ann.comm, "sync"))["state"]
    assert state["locked"] is True
    assert [item["nickname"] for item in state["waiting"]] == ["Dan"]

    waiting = await poll(client, ann.code)
    assert waiting.status_code == 200 and waiting.json()["join_request"]["status"] == "waiting"
    assert "player" not in waiting.json()
    # No socket for a newcomer: they are no player yet.
    comm = await open_socket(ann.code)
    assert (await receive(comm))["code"] == "not_a_player"

    reply = await ask(ann.comm, "admit", join_request_id=asked["id"])
    assert (reply["type"], reply["request"]) == ("ok", "admit"), reply
    joined = await receive_until(bob.comm, "player.joined")
    assert joined["player"]["nickname"] == "Dan"
    decided = await receive_until(bob.comm, "join.decided")
    assert decided["join_request_id"] == asked["id"] and decided["status"] == "admitted"
    assert decided["player_id"] == joined["player"]["id"] == reply["player_id"]

    admitted = await poll(client, ann.code)
    assert admitted.status_code == 200, admitted.content
    body = admitted.json()
    assert body["join_request"]["status"] == "admitted"
    assert body["player"]["id"] == reply["player_id"] and body["room"]["you"] == reply["player_id"]
    dan = Player(body, client)
    state = await connect(dan)
    assert state["you"] == dan.id and state["waiting"] == []
    # The session remembers the player, as after any join: the page reloads as Dan.
    again = await post_json(client, f"/api/rooms/{ann.code}/join", {"nickname": "Dan"})
    assert again.status_code == 200 and again.json()["player"]["id"] == dan.id


async def test_the_host_refuses_and_the_newcomer_is_told_and_stays_out():
    """A refused newcomer's poll says refused; their browser asking again gets 403
    join_refused, and no player was made."""
    ann, bob = await locked_room()
    client, response = await ask_to_join(ann.code, "Eve")
    asked = response.json()["join_request"]
    reply = await ask(ann.comm, "refuse", join_request_id=asked["id"])
    assert (reply["type"], reply["request"]) == ("ok", "refuse"), reply
    decided = await receive_until(bob.comm, "join.decided")
    assert (decided["status"], decided["player_id"]) == ("refused", None)
    told = await poll(client, ann.code)
    assert told.status_code == 200 and told.json()["join_request"]["status"] == "refused"
    assert "player" not in told.json()
    _, again = await ask_to_join(ann.code, "Eve", client)
    assert again.status_code == 403 and again.json()["error"]["code"] == "join_refused"
    # Unlocked later, the refused browser still stays out.
    await ask(ann.comm, "lock_room", locked=False)
    _, after_unlock = await ask_to_join(ann.code, "Eve", client)
    assert after_unlock.json()["error"]["code"] == "join_refused"
    assert not await sync_to_async(PlayerRow.objects.filter(nickname="Eve").exists)()
    second = await ask(ann.comm, "admit", join_request_id=asked["id"])
    assert second["code"] == "invalid"


async def test_a_kicked_player_from_a_fresh_browser_stays_out_while_locked():
    """Kicked, Bob opens a fresh browser (no token, no session) under the same or another
    nickname: he only waits, gets no token, and the host refuses him."""
    ann, bob = await locked_room()
    await ask(ann.comm, "kick", player_id=bob.id)
    for nickname in ("Bob", "Robert"):
        client, response = await ask_to_join(ann.code, nickname)
        assert response.status_code == 202, response.content
        assert "player" not in response.json()
        asked = response.json()["join_request"]
        assert (await ask(ann.comm, "refuse", join_request_id=asked["id"]))["type"] == "ok"
        told = await poll(client, ann.code)
        assert told.json()["join_request"]["status"] == "refused"
    active = await sync_to_async(
        lambda: sorted(
            PlayerRow.objects.filter(left_at__isnull=True).values_list("nickname", flat=True)
        )
    )()
    assert active == ["Ann"]


async def test_players_of_the_room_come_back_freely_while_locked():
    """Locked, a player who left rejoins from their browser (same player), a player's token
    reopens a socket, and the host's page keeps working: no waiting for them."""
    ann, bob = await locked_room()
    cy_client = Client()
    cy_response = await post_json(cy_client, f"/api/rooms/{ann.code}/join", {"nickname": "Cy"})
    assert cy_response.status_code == 202
    await ask(ann.comm, "lock_room", locked=False)
    await ask(ann.comm, "lock_room", locked=True)
    # Bob leaves, then comes back from the same browser: the same player, at once.
    await ask(bob.comm, "leave")
    back = await post_json(bob.client, f"/api/rooms/{ann.code}/join", {"nickname": "Bob"})
    assert back.status_code == 200 and back.json()["player"]["id"] == bob.id
    comm = await open_socket(ann.code, bob.token)
    assert (await receive(comm))["type"] == "state"
    # The host reconnects too.
    comm = await open_socket(ann.code, ann.token)
    assert (await receive(comm))["type"] == "state"


async def test_the_host_answers_mid_round_and_only_the_host():
    """Let in during a round: the newcomer joins the running round's room. Lock, admit and
    refuse by another player are refused with not_host."""
    ann, bob = await locked_room()
    await start_round(ann, bob)
    client, response = await ask_to_join(ann.code, "Dan")
    asked = response.json()["join_request"]
    for kind, fields in (
        ("admit", {"join_request_id": asked["id"]}),
        ("refuse", {"join_request_id": asked["id"]}),
        ("lock_room", {"locked": False}),
    ):
        reply = await ask(bob.comm, kind, **fields)
        assert reply["code"] == "not_host", reply
    assert (await ask(ann.comm, "admit", join_request_id=asked["id"]))["type"] == "ok"
    body = (await poll(client, ann.code)).json()
    state = await connect(Player(body, client))
    assert state["round"]["status"] == "running"


async def test_an_api_client_waits_with_its_key_and_may_withdraw():
    """Without cookies, the key from the 202 reads the request (Bearer); DELETE withdraws it
    (the room hears join.decided withdrawn); a wrong key gets 404 join_request_not_found."""
    ann, _ = await locked_room()

    def without_cookies(method: str, key: str) -> Any:
        client = Client()
        return getattr(client, method)(
            f"/api/rooms/{ann.code}/join-request", headers={"Authorization": f"Bearer {key}"}
        )

    _, response = await ask_to_join(ann.code, "Dan")
    key = response.json()["join_request"]["key"]
    read = await sync_to_async(without_cookies)("get", key)
    assert read.status_code == 200 and read.json()["join_request"]["status"] == "waiting"
    assert "key" not in read.json()["join_request"]
    for bad in ("nope", "a\x00b", "x" * 10_000):
        wrong = await sync_to_async(without_cookies)("get", bad)
        assert wrong.status_code == 404
        assert wrong.json()["error"]["code"] == "join_request_not_found"
    gone = await sync_to_async(without_cookies)("delete", key)
    assert gone.json()["join_request"]["status"] == "withdrawn"
    decided = await receive_until(ann.comm, "join.decided")
    assert decided["status"] == "withdrawn"
    assert (await ask(ann.comm, "sync"))["state"]["waiting"] == []


async def test_the_waiting_list_is_bounded_and_nicknames_do_not_clash(monkeypatch):
    """Beyond MAX_WAITING newcomers, 409 waiting_list_full; a nickname already waiting (or
    a player's) is 409 nickname_taken; an unlocked room lets newcomers straight in."""
    monkeypatch.setattr(waiting_room, "MAX_WAITING", 2)
    ann, _ = await locked_room()
    _, first = await ask_to_join(ann.code, "Dan")
    assert first.status_code == 202
    _, same = await ask_to_join(ann.code, "dan")
    assert (same.status_code, same.json()["error"]["code"]) == (409, "nickname_taken")
    _, player_name = await ask_to_join(ann.code, "Bob")
    assert player_name.json()["error"]["code"] == "nickname_taken"
    _, second = await ask_to_join(ann.code, "Fay")
    assert second.status_code == 202
    _, third = await ask_to_join(ann.code, "Gus")
    assert (third.status_code, third.json()["error"]["code"]) == (409, "waiting_list_full")
    assert await sync_to_async(JoinRequest.objects.count)() == 2
    await ask(ann.comm, "lock_room", locked=False)
    _, open_join = await ask_to_join(ann.code, "Gus")
    assert open_join.status_code == 201


async def test_lock_room_takes_only_true_or_false():
    """lock_room with anything but a boolean is invalid and changes nothing."""
    ann = await create_room()
    await connect(ann)
    reply = await ask(ann.comm, "lock_room", locked="yes")
    assert reply["code"] == "invalid"
    assert (await ask(ann.comm, "sync"))["state"]["locked"] is False
    assert json.dumps(reply)  # a plain JSON error
