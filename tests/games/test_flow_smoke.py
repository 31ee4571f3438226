"""A whole round through two websocket clients, in-process (embedded settings)."""

import asyncio
import json

import pytest
from channels.testing import WebsocketCommunicator
from django.test import Client

from boggle_site.asgi import application
from games import background
from games.models import Round

pytestmark = pytest.mark.django_db(transaction=True)


async def receive_until(comm, kind, timeout=5.0):
    """Read messages until one of type ``kind`` arrives; return it."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while True:
        message = json.loads(await comm.receive_from(timeout=max(end - loop.time(), 0.01)))
        if message["type"] == kind:
            return message


async def test_two_players_play_a_round():
    """Host creates, friend joins, both submit, the round ends on time and is scored."""
    from asgiref.sync import sync_to_async

    client = Client()
    created = await sync_to_async(client.post)(
        "/api/rooms",
        json.dumps({"nickname": "Ann", "settings": {"round_seconds": 30}}),
        content_type="application/json",
    )
    assert created.status_code == 201, created.content
    code = created.json()["room"]["code"]
    host_token = created.json()["player"]["token"]
    joined = await sync_to_async(Client().post)(
        f"/api/rooms/{code}/join", json.dumps({"nickname": "Bob"}), content_type="application/json"
    )
    assert joined.status_code == 201, joined.content
    bob_token = joined.json()["player"]["token"]

    ann = WebsocketCommunicator(
        application, f"/ws/rooms/{code}/", [(b"authorization", f"Bearer {host_token}".encode())]
    )
    bob = WebsocketCommunicator(
        application, f"/ws/rooms/{code}/", [(b"authorization", f"Bearer {bob_token}".encode())]
    )
    assert (await ann.connect())[0] and (await bob.connect())[0]
    await receive_until(ann, "state")
    await receive_until(bob, "state")

    await ann.send_to(text_data=json.dumps({"type": "start_round"}))
    started = await receive_until(bob, "round.started")
    board = started["round"]["board"]
    rnd = await sync_to_async(Round.objects.get)(room__code=code)
    words = [entry[0] for entry in rnd.solution]
    assert words, board
    # skip the countdown
    from django.utils import timezone

    await sync_to_async(Round.objects.filter(pk=rnd.pk).update)(
        starts_at=timezone.now(), ends_at=timezone.now() + timezone.timedelta(seconds=2)
    )
    await ann.send_to(text_data=json.dumps({"type": "submit", "word": words[0]}))
    verdict = await receive_until(ann, "verdict")
    assert verdict["accepted"], verdict
    await bob.send_to(text_data=json.dumps({"type": "submit", "word": words[0]}))
    assert (await receive_until(bob, "verdict"))["accepted"]
    await bob.send_to(text_data=json.dumps({"type": "submit", "word": "zzzzqx"}))
    rejected = await receive_until(bob, "verdict")
    # A lone q never matches the Qu die: not on any board, so not_on_board.
    assert rejected["verdict"] == "not_on_board", rejected
    ended = await receive_until(ann, "round.ended", timeout=5)
    assert ended["mine"]["words"][0]["cancelled"] is True  # Ann's socket: Ann's words
    await ann.disconnect()
    await bob.disconnect()
    await background.stop()
