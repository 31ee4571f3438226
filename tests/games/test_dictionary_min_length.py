"""A dictionary that keeps no words under 4 letters: the room's shortest word follows it
(the lobby's settings and the round say 4, a 3-letter entry is too short), even when the
room asks for 3."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from dictionaries.models import Dictionary, DictionaryVersion
from tests.games.ws_helpers import ask, connect, create_room, start_round, submit

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_sockets")]


@sync_to_async
def keep_words_from(name: str, length: int) -> None:
    """As if staff set the list's shortest word to ``length`` and it was compiled so."""
    Dictionary.objects.filter(name=name).update(min_length=length)
    for version in DictionaryVersion.objects.filter(dictionary__name=name):
        version.rules = {**version.rules, "min_length": length}
        version.save(update_fields=["rules"])


async def test_a_dictionary_of_4_letters_and_more_makes_the_room_say_4():
    ann = await create_room(settings={"min_length": 3})
    state = await connect(ann)
    assert state["settings"]["min_length"] == 3
    await keep_words_from(state["settings"]["dictionary"], 4)

    reply = await ask(ann.comm, "update_settings", settings={"round_seconds": 60})
    assert reply["type"] == "ok" and reply["settings"]["min_length"] == 4, reply

    await start_round(ann)
    state = (await ask(ann.comm, "sync"))["state"]
    assert state["settings"]["min_length"] == 4
    assert state["round"]["min_length"] == 4
    verdict = await submit(ann.comm, "cat", client_id="c1")
    assert verdict["verdict"] == "too_short", verdict
    assert (await submit(ann.comm, "cats", client_id="c2"))["verdict"] == "accepted"
