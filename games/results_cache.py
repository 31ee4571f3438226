"""A round's whole results, encoded once, for the sockets of its room that ask for them.

When a round ends every socket gets the scores and its own words (``round.ended``) and
then asks for the whole results (the ``results`` message, docs/api.md): a room of 100
asks 100 times at once for the same few hundred kilobytes. A web process keeps the
encoded results of recent rounds and answers from memory, without the database. Whoever
ends the round (a web process or a worker) builds the results once and sends them, encoded,
with the ``round.ended`` message of the channel layer (never to a socket): every process
with sockets in the room (the only ones asked) keeps them (``keep``). A process that has
none (restarted since, say) builds them once, however many of its sockets ask at once.

The results of an ended round change only through a challenge (its votes, its ruling, the
rescore), each announced to the room by a versioned event, which every such process also
receives: it drops the room's results (``forget_room``). Results sent with an older event
than that (events from two processes may cross), or built while it came, are not kept.
"""

from __future__ import annotations

import asyncio
import threading
from collections import OrderedDict

from django.utils.translation import gettext as _

from games import state
from games.exceptions import RoundNotFound, WrongRoundState
from games.models import Room, Round
from web import wire
from web.threads import in_thread

# How much a process keeps, in characters of JSON, the most recently used rooms first: a
# room of 100's round is some 240 thousand, a room of 8's some 25 thousand.
KEPT_CHARACTERS = 32_000_000

_lock = threading.Lock()  # builds finish on the thread pool; sockets ask on the event loop
_kept: OrderedDict[int, dict[int, str]] = OrderedDict()  # room id -> round number -> JSON
_kept_characters = 0
_generation: dict[int, int] = {}  # room id -> how many times its results were dropped
_forgotten_at: dict[int, int] = {}  # room id -> version of the event that last dropped them
_building: dict[tuple[int, int], asyncio.Future[str]] = {}


def keep(room_id: int, round_number: int, results: str, version: int) -> None:
    """Keep the encoded results that came with the room's event ``version`` (its
    ``round.ended``), unless a later event has changed them since."""
    with _lock:
        if version < _forgotten_at.get(room_id, 0):
            return  # a later event changed them
        if _kept.get(room_id, {}).get(round_number) is results:
            return  # another socket of this process got the same message
        generation = _generation.get(room_id, 0)
    _keep(room_id, round_number, results, generation)


def forget_room(room_id: int, version: int) -> None:
    """The room's event ``version`` changed (or may have changed) its results."""
    with _lock:
        _drop(room_id)
        _generation[room_id] = _generation.get(room_id, 0) + 1
        _forgotten_at[room_id] = max(version, _forgotten_at.get(room_id, 0))


def clear() -> None:
    """Forget everything (tests: each starts as a fresh process)."""
    global _kept_characters
    with _lock:
        _kept.clear()
        _kept_characters = 0
        _generation.clear()
        _forgotten_at.clear()
        _building.clear()


async def encoded(room_id: int, round_number: int) -> str:
    """The results of the room's ended round ``round_number`` as JSON text. Raises
    RoundNotFound, or WrongRoundState while the round has not ended."""
    with _lock:
        kept = _kept.get(room_id, {}).get(round_number)
        if kept is not None:
            _kept.move_to_end(room_id)
            return kept
    key = (room_id, round_number)
    building = _building.get(key)
    if building is not None:  # another socket asked first: one build for all
        return await asyncio.shield(building)
    building = _building[key] = asyncio.get_running_loop().create_future()
    generation = _generation_of(room_id)
    try:
        text = wire.encode(await in_thread(_build)(room_id, round_number))
    except BaseException as error:
        building.set_exception(error)
        building.exception()  # retrieved: nobody else may be waiting
        raise
    finally:
        _building.pop(key, None)
    _keep(room_id, round_number, text, generation)
    building.set_result(text)
    return text


def _build(room_id: int, round_number: int) -> dict:
    found = (
        Round.objects.select_related("room").filter(room_id=room_id, number=round_number).first()
    )
    if found is None:
        code = Room.objects.filter(pk=room_id).values_list("code", flat=True).first()
        raise RoundNotFound(
            _("room %(code)s has no round %(number)s") % {"code": code, "number": round_number}
        )
    if found.status != Round.Status.ENDED:
        raise WrongRoundState(_("results come when the round ends"))
    return state.results(found)


def _generation_of(room_id: int) -> int:
    with _lock:
        return _generation.get(room_id, 0)


def _keep(room_id: int, round_number: int, text: str, generation: int) -> None:
    global _kept_characters
    with _lock:
        if _generation.get(room_id, 0) != generation:
            return  # the results changed while these were built
        rounds = _kept.setdefault(room_id, {})
        _kept_characters += len(text) - len(rounds.get(round_number, ""))
        rounds[round_number] = text
        _kept.move_to_end(room_id)
        while _kept_characters > KEPT_CHARACTERS and len(_kept) > 1:
            _drop(next(iter(_kept)))


def _drop(room_id: int) -> None:
    """Forget the room's kept results (the caller holds the lock)."""
    global _kept_characters
    for text in _kept.pop(room_id, {}).values():
        _kept_characters -= len(text)
