"""The room's dice set over the websocket: the host chooses or starts a set and gives or
withdraws consent with ``update_settings``; everyone hears ``photo_set.changed`` and sees it
in the state. Every client value is checked: unknown or strangers' set ids answer
``photo_set_not_found``, bad names and values ``invalid``."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from dicesets import choices
from dicesets.models import DiceSet, RoomDiceSet
from games.models import Room
from tests.games.ws_helpers import (
    ask,
    connect,
    create_room,
    post_json,
    receive_until,
    start_round,
    two_players,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_sockets")]


async def settings_reply(comm, **changes) -> dict:
    return await ask(comm, "update_settings", settings=changes)


async def photo_set_of(code: str) -> dict:
    room = await sync_to_async(Room.objects.get)(code=code)
    return await sync_to_async(choices.photo_set_dict)(room)


async def test_the_state_shows_the_installation_set_and_learning_at_home(embedded):
    """The embedded default (bin/start) learns unless the host says no; the setting is
    there to see."""
    ann = await create_room()
    state = await connect(ann)
    photo_set = state["photo_set"]
    installation = await sync_to_async(choices.installation_set)()
    assert photo_set == {
        "id": installation.pk,
        "name": "The usual dice",
        "installation": True,
        "exemplars": 0,
        "faces": 0,
        "learn": True,
        "checked_against": [],
        "choices": [
            {"id": installation.pk, "name": "The usual dice", "installation": True, "exemplars": 0}
        ],
        "can_start": True,
    }


async def test_on_a_public_installation_learning_is_off_until_the_host_says_yes(public):
    ann, bob = await two_players()
    assert (await photo_set_of(ann.code))["learn"] is False
    reply = await settings_reply(ann.comm, learn_photo_set=True)
    assert reply["type"] == "ok", reply
    event = await receive_until(bob.comm, "photo_set.changed")
    assert event["photo_set"]["learn"] is True
    assert isinstance(event["version"], int)


async def test_the_host_starts_a_set_and_everyone_sees_it():
    ann, bob = await two_players()
    reply = await settings_reply(ann.comm, new_photo_set="  Grandma's   French set ")
    assert reply["type"] == "ok", reply
    for player in (ann, bob):
        event = await receive_until(player.comm, "photo_set.changed")
        photo_set = event["photo_set"]
        assert photo_set["name"] == "Grandma's French set"
        assert photo_set["installation"] is False
        assert [choice["name"] for choice in photo_set["choices"]][-1] == "Grandma's French set"
    dice_set = await sync_to_async(DiceSet.objects.get)(name="Grandma's French set")
    assert dice_set.started_in_id == (await sync_to_async(Room.objects.get)(code=ann.code)).pk
    state = await ask(bob.comm, "sync")
    assert state["state"]["photo_set"]["id"] == dice_set.pk


async def test_starting_a_set_again_with_the_same_name_chooses_it():
    """update_settings is safe to resend: the same name (case and spaces aside) is the set
    already started, not a second one."""
    ann = await create_room()
    await connect(ann)
    await settings_reply(ann.comm, new_photo_set="Camping set")
    await settings_reply(ann.comm, photo_set=None)
    reply = await settings_reply(ann.comm, new_photo_set="camping  SET")
    assert reply["type"] == "ok", reply
    assert await sync_to_async(DiceSet.objects.filter(name__iexact="camping set").count)() == 1
    assert (await photo_set_of(ann.code))["name"] == "Camping set"


async def test_choosing_back_the_installation_set_by_id_or_null():
    ann = await create_room()
    await connect(ann)
    await settings_reply(ann.comm, new_photo_set="Camping set")
    installation = await sync_to_async(choices.installation_set)()
    assert (await settings_reply(ann.comm, photo_set=installation.pk))["type"] == "ok"
    assert (await photo_set_of(ann.code))["installation"] is True
    await settings_reply(ann.comm, photo_set=(await photo_set_of(ann.code))["choices"][-1]["id"])
    assert (await photo_set_of(ann.code))["name"] == "Camping set"
    assert (await settings_reply(ann.comm, photo_set=None))["type"] == "ok"
    assert (await photo_set_of(ann.code))["installation"] is True


async def test_a_stranger_rooms_set_is_not_found_on_a_public_installation(public):
    """Its id answers like an id that does not exist, and its name is in no list."""
    other = await create_room("Zoe", settings={"new_photo_set": "Zoe's secret dice"})
    secret = await sync_to_async(DiceSet.objects.get)(name="Zoe's secret dice")
    ann = await create_room()
    state = await connect(ann)
    assert "Zoe's secret dice" not in str(state)
    reply = await settings_reply(ann.comm, photo_set=secret.pk)
    assert reply["type"] == "error"
    assert reply["code"] == "photo_set_not_found"
    assert reply["request"] == "update_settings"
    missing = await settings_reply(ann.comm, photo_set=secret.pk + 1000)
    assert missing["code"] == "photo_set_not_found"
    assert missing["message"].replace(str(secret.pk + 1000), "N") == reply["message"].replace(
        str(secret.pk), "N"
    )
    # The room that started it still sees and uses it.
    assert (await photo_set_of(other.code))["name"] == "Zoe's secret dice"


async def test_at_home_every_set_is_a_choice(embedded):
    """On a laptop at home the sets are the household's: last week's room's set is there."""
    await create_room("Zoe", settings={"new_photo_set": "Grandma's French set"})
    ann = await create_room()
    state = await connect(ann)
    names = [choice["name"] for choice in state["photo_set"]["choices"]]
    assert "Grandma's French set" in names
    chosen = next(c for c in state["photo_set"]["choices"] if c["name"] == "Grandma's French set")
    assert (await settings_reply(ann.comm, photo_set=chosen["id"]))["type"] == "ok"


@pytest.mark.parametrize(
    ("changes", "code", "words"),
    [
        ({"photo_set": "1"}, "invalid", "photo_set is a dice set's id"),
        ({"photo_set": True}, "invalid", "photo_set is a dice set's id"),
        ({"photo_set": 1.5}, "invalid", "photo_set is a dice set's id"),
        ({"photo_set": [1]}, "invalid", "photo_set is a dice set's id"),
        ({"photo_set": 0}, "photo_set_not_found", "no dice set 0"),
        ({"photo_set": -3}, "photo_set_not_found", "no dice set -3"),
        ({"photo_set": 2**70}, "photo_set_not_found", "no dice set"),
        ({"new_photo_set": ""}, "invalid", "give the new dice set a name"),
        ({"new_photo_set": "   "}, "invalid", "give the new dice set a name"),
        ({"new_photo_set": "x" * 41}, "invalid", "at most 40 characters"),
        ({"new_photo_set": "bad\u0007name"}, "invalid", "control characters"),
        ({"new_photo_set": "\u0301\u0301"}, "invalid", "a letter or a digit"),
        ({"new_photo_set": "!!!"}, "invalid", "a letter or a digit"),
        ({"new_photo_set": 12}, "invalid", "as text"),
        ({"new_photo_set": {"name": "x"}}, "invalid", "as text"),
        ({"new_photo_set": "A", "photo_set": None}, "invalid", "not both"),
        ({"learn_photo_set": "yes"}, "invalid", "learn_photo_set is true or false"),
        ({"learn_photo_set": None}, "invalid", "learn_photo_set is true or false"),
        ({"photo_sets": 1}, "invalid", "unknown setting 'photo_sets'"),
    ],
)
async def test_hostile_values_are_refused_and_change_nothing(changes, code, words):
    ann = await create_room()
    await connect(ann)
    before = await photo_set_of(ann.code)
    reply = await settings_reply(ann.comm, **changes)
    assert reply["type"] == "error", reply
    assert reply["code"] == code
    assert words in reply["message"]
    assert await photo_set_of(ann.code) == before
    assert not await sync_to_async(RoomDiceSet.objects.exists)()


async def test_a_bad_dice_set_value_refuses_the_whole_change():
    """Validated before anything is stored: the round length sent with it is not set."""
    ann = await create_room()
    await connect(ann)
    reply = await settings_reply(ann.comm, round_seconds=60, photo_set=999_999)
    assert reply["code"] == "photo_set_not_found"
    room = await sync_to_async(Room.objects.get)(code=ann.code)
    assert room.round_seconds == 180


async def test_a_room_starts_a_bounded_number_of_sets():
    ann = await create_room()
    await connect(ann)
    for index in range(choices.MAX_SETS_PER_ROOM):
        reply = await settings_reply(ann.comm, new_photo_set=f"Set {index}")
        assert reply["type"] == "ok", reply
    assert (await photo_set_of(ann.code))["can_start"] is False
    reply = await settings_reply(ann.comm, new_photo_set="One too many")
    assert reply["code"] == "invalid"
    assert "at most 5 dice sets" in reply["message"]
    # An existing name still chooses that set.
    assert (await settings_reply(ann.comm, new_photo_set="set 0"))["type"] == "ok"


async def test_only_the_host_and_only_between_rounds():
    ann, bob = await two_players()
    reply = await settings_reply(bob.comm, new_photo_set="Bob's dice")
    assert reply["code"] == "not_host"
    await start_round(ann, bob)
    reply = await settings_reply(ann.comm, learn_photo_set=False)
    assert reply["code"] == "wrong_round_state"
    assert not await sync_to_async(DiceSet.objects.filter(name="Bob's dice").exists)()


async def test_a_new_room_can_start_with_its_set_over_http(public):
    ann = await create_room(settings={"new_photo_set": "Holiday dice", "learn_photo_set": True})
    photo_set = await photo_set_of(ann.code)
    assert (photo_set["name"], photo_set["learn"]) == ("Holiday dice", True)


async def test_creating_a_room_with_a_strangers_set_is_refused(public):
    await create_room("Zoe", settings={"new_photo_set": "Zoe's secret dice"})
    secret = await sync_to_async(DiceSet.objects.get)(name="Zoe's secret dice")
    from django.test import Client

    response = await post_json(
        Client(), "/api/rooms", {"nickname": "Ann", "settings": {"photo_set": secret.pk}}
    )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "photo_set_not_found"
    assert await sync_to_async(Room.objects.count)() == 1


async def test_errors_follow_the_sockets_language():
    """Messages are translated like the other settings' (Accept-Language of the handshake)."""
    from tests.games.ws_helpers import open_socket, receive

    ann = await create_room()
    ann.comm = await open_socket(ann.code, ann.token, headers=[(b"accept-language", b"fr")])
    await receive(ann.comm)
    reply = await settings_reply(ann.comm, new_photo_set="")
    assert reply["code"] == "invalid"
    assert reply["message"] != "give the new dice set a name"
