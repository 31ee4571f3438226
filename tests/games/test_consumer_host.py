"""Host powers over the websocket: settings, boards, hosting, kicking; and leaving."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import sync_to_async
from django.test import Client

from games import consumers
from games.models import Player as PlayerRow
from games.models import Room, Round
from tests.games.ws_helpers import (
    BOARD,
    ask,
    collect,
    connect,
    create_room,
    join_room,
    open_socket,
    receive,
    receive_until,
    start_round,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_sockets")]


async def room_of_three():
    """Ann (host), Bob and Cy, all connected."""
    ann = await create_room()
    bob = await join_room(ann.code, "Bob")
    cy = await join_room(ann.code, "Cy")
    for player in (ann, bob, cy):
        await connect(player)
    return ann, bob, cy


HOST_ONLY = [
    ("start_round", {}),
    ("end_round", {}),
    ("update_settings", {"settings": {"round_seconds": 60}}),
    ("set_board", {"board": BOARD}),
    ("kick", {"player_id": "ANN"}),
    ("transfer_host", {"player_id": "CY"}),
    ("unkick", {"player_id": "CY"}),
]


@pytest.mark.parametrize(("kind", "fields"), HOST_ONLY)
async def test_host_only_actions_by_a_non_host_get_not_host(kind, fields):
    """Every host-only action by another player is answered with an error not_host (never
    silence), and changes nothing."""
    ann, bob, cy = await room_of_three()
    ids = {"ANN": ann.id, "CY": cy.id}
    fields = {k: ids.get(v, v) if isinstance(v, str) else v for k, v in fields.items()}
    version = (await sync_to_async(Room.objects.get)(code=ann.code)).version
    reply = await ask(bob.comm, kind, **fields)
    assert reply["type"] == "error" and reply["code"] == "not_host", reply
    assert reply["request"] == kind and reply["message"]
    room = await sync_to_async(Room.objects.get)(code=ann.code)
    assert room.version == version and room.host_id == ann.id
    assert not await sync_to_async(Round.objects.exists)()


async def test_host_only_actions_during_a_round_by_a_non_host():
    """end_round while a round runs is still host-only."""
    ann, bob, cy = await room_of_three()
    await start_round(ann, bob, cy)
    reply = await ask(bob.comm, "end_round")
    assert reply["code"] == "not_host"
    assert (await sync_to_async(Round.objects.get)()).status == "running"


async def test_the_host_changes_settings_and_everyone_hears():
    """update_settings: ok with the new settings, and settings.changed to the room."""
    ann, bob, _ = await room_of_three()
    reply = await ask(ann.comm, "update_settings", settings={"board_size": "5x5", "min_length": 5})
    assert reply["type"] == "ok"
    assert reply["settings"]["board_size"] == "5x5" and reply["settings"]["min_length"] == 5
    changed = await receive_until(bob.comm, "settings.changed")
    assert changed["settings"] == reply["settings"]
    assert changed["settings"]["dice_set"] == "big"


async def test_settings_cannot_change_while_a_round_runs():
    """During a round, update_settings is wrong_round_state and the room keeps its settings."""
    ann, bob, cy = await room_of_three()
    await start_round(ann, bob, cy)
    reply = await ask(ann.comm, "update_settings", settings={"round_seconds": 60})
    assert reply["type"] == "error" and reply["code"] == "wrong_round_state"
    room = await sync_to_async(Room.objects.get)(code=ann.code)
    assert room.round_seconds == 180


async def test_a_second_start_while_a_round_runs_is_wrong_round_state():
    """start_round during a round is refused."""
    ann, bob, cy = await room_of_three()
    await start_round(ann, bob, cy)
    reply = await ask(ann.comm, "start_round")
    assert reply["code"] == "wrong_round_state"


async def test_the_host_sets_the_next_board():
    """set_board stores a typed board (normalised) and announces it; null clears it."""
    ann, bob, _ = await room_of_three()
    reply = await ask(ann.comm, "set_board", board="CATS QUIEX DOGZ WENT")
    assert (reply["type"], reply["board"]) == ("ok", BOARD)
    changed = await receive_until(bob.comm, "settings.changed")
    assert changed["settings"]["next_board"] == BOARD
    reply = await ask(ann.comm, "set_board", board=None)
    assert reply["board"] is None
    bad = await ask(ann.comm, "set_board", board="abc def ghi")
    assert bad["code"] == "invalid" and "4x4" in bad["message"]


async def test_transfer_host():
    """The host hands over: everyone hears host.changed, the new host may start a round, the
    old one may not."""
    ann, bob, cy = await room_of_three()
    reply = await ask(ann.comm, "transfer_host", player_id=bob.id)
    assert reply["type"] == "ok"
    for player in (ann, bob, cy):
        changed = await receive_until(player.comm, "host.changed")
        assert changed["host_id"] == bob.id
    assert (await ask(ann.comm, "start_round"))["code"] == "not_host"
    assert (await ask(bob.comm, "start_round"))["type"] == "ok"


@pytest.mark.parametrize("target", ["SELF", 10**9, "7", None])
async def test_transfer_host_to_nobody_valid_is_refused(target):
    """Handing hosting to yourself, an unknown id or a non-number is invalid."""
    ann, _, _ = await room_of_three()
    player_id = ann.id if target == "SELF" else target
    reply = await ask(ann.comm, "transfer_host", player_id=player_id)
    assert reply["type"] == "error" and reply["code"] == "invalid"
    assert (await sync_to_async(Room.objects.get)(code=ann.code)).host_id == ann.id


async def test_kick():
    """The kicked player's socket gets ``kicked`` and closes with 4001; the others hear
    player.left; the kicked token no longer opens the room."""
    ann, bob, cy = await room_of_three()
    reply = await ask(ann.comm, "kick", player_id=bob.id)
    assert reply["type"] == "ok"
    kicked = await receive_until(bob.comm, "kicked")
    assert kicked["message"]
    assert await bob.comm.receive_output(timeout=2) == {
        "type": "websocket.close",
        "code": consumers.CLOSE_KICKED,
    }
    for player in (ann, cy):
        left = await receive_until(player.comm, "player.left")
        assert (left["player_id"], left["kicked"]) == (bob.id, True)
    comm = await open_socket(ann.code, bob.token)
    assert (await receive(comm))["code"] == "not_a_player"
    row = await sync_to_async(PlayerRow.objects.get)(pk=bob.id)
    assert row.kicked and row.left_at is not None


async def test_unkick_lets_the_kicked_device_back_as_the_same_player():
    """Kicked, Bob's token is refused (403 kicked) and the state lists him under
    ``kicked``; the host's unkick tells the room (player.allowed_back), and Bob's token then
    joins again as the same player, whose socket opens."""
    ann, bob, cy = await room_of_three()
    await ask(ann.comm, "kick", player_id=bob.id)
    for player in (ann, cy):
        await receive_until(player.comm, "player.left")

    def join_with_token() -> tuple[int, dict]:
        response = Client().post(
            f"/api/rooms/{ann.code}/join",
            json.dumps({"nickname": "Bob"}),
            content_type="application/json",
            headers={"Authorization": f"Bearer {bob.token}"},
        )
        return response.status_code, response.json()

    status, body = await sync_to_async(join_with_token)()
    assert (status, body["error"]["code"]) == (403, "kicked")
    state = (await ask(cy.comm, "sync"))["state"]
    assert state["kicked"] == [{"id": bob.id, "nickname": "Bob"}]

    reply = await ask(ann.comm, "unkick", player_id=bob.id)
    assert (reply["type"], reply["request"]) == ("ok", "unkick")
    for player in (ann, cy):
        event = await receive_until(player.comm, "player.allowed_back")
        assert event["player_id"] == bob.id
    again = await ask(ann.comm, "unkick", player_id=bob.id)
    assert again["code"] == "invalid"
    status, body = await sync_to_async(join_with_token)()
    assert status == 200 and body["player"]["id"] == bob.id
    joined = await receive_until(cy.comm, "player.joined")
    assert joined["player"]["id"] == bob.id
    comm = await open_socket(ann.code, bob.token)
    assert (await receive(comm))["type"] == "state"
    assert (await ask(cy.comm, "sync"))["state"]["kicked"] == []


async def test_a_kicked_player_is_gone_from_the_state():
    """After a kick the room's players list no longer has them."""
    ann, bob, cy = await room_of_three()
    await ask(ann.comm, "kick", player_id=cy.id)
    state = (await ask(bob.comm, "sync"))["state"]
    assert [p["nickname"] for p in state["players"]] == ["Ann", "Bob"]


async def test_the_host_cannot_kick_themselves():
    """Kicking yourself is invalid; leaving is the way out."""
    ann, _, _ = await room_of_three()
    reply = await ask(ann.comm, "kick", player_id=ann.id)
    assert reply["code"] == "invalid"


async def test_leaving_passes_hosting_on():
    """The host leaves: ok, the socket closes, the others hear player.left and host.changed
    naming the longest-present player still here."""
    ann, bob, cy = await room_of_three()
    reply = await ask(ann.comm, "leave")
    assert reply["type"] == "ok"
    for player in (bob, cy):
        left = await receive_until(player.comm, "player.left")
        assert left["player_id"] == ann.id
        changed = await receive_until(player.comm, "host.changed")
        assert changed["host_id"] == bob.id
    assert (await ask(bob.comm, "start_round"))["type"] == "ok"
    state = (await ask(cy.comm, "sync"))["state"]
    assert state["host_id"] == bob.id
    assert [p["nickname"] for p in state["players"]] == ["Bob", "Cy"]


async def test_a_non_host_leaving_keeps_the_host():
    """When someone else leaves, hosting stays where it is (no host.changed)."""
    ann, bob, _ = await room_of_three()
    await ask(bob.comm, "leave")
    left = await receive_until(ann.comm, "player.left")
    assert left["player_id"] == bob.id
    assert not [m for m in await collect(ann.comm) if m["type"] == "host.changed"]


async def test_changing_board_size_drops_a_typed_board_of_the_old_size():
    """A typed 4x4 board cannot be played once the room switches to 5x5: it is cleared."""
    ann, _bob, _cy = await room_of_three()
    assert (await ask(ann.comm, "set_board", board="aeol iejm pdls orkf"))["type"] == "ok"
    reply = await ask(ann.comm, "update_settings", settings={"board_size": "5x5"})
    assert reply["settings"]["board_size"] == "5x5"
    assert reply["settings"]["next_board"] is None
