"""The ready check: with the room's ``ready_check`` on, a round's countdown waits until every
online player has said they are ready, or the host starts it anyway.

The round is solved first (``games.rounds``), then ``round.ready_check`` asks every page,
with the board's size but not its letters (``presenters.board_shown``): they reach everyone
at once with ``round.started``, so holding back "ready" is no head start. Then:

- ``ready``: a player is ready; when nobody online is waited for any more, the countdown
  starts (``rounds.start_countdown``);
- ``force_start``: the host starts the countdown whoever is waited for;
- who is waited for follows presence: a player whose phone went away (offline, left,
  kicked) is no longer waited for, one who came online is. Every web process looks once a
  second (``recheck_waiting``, from ``games.background``), sends ``round.ready`` when the
  list changed and starts the countdown when it is empty.

A round starts only once someone is ready (or forced): a room whose phones are all away
keeps waiting rather than playing to nobody.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from games import events, presence, rounds
from games.checks import check_host, check_round_number
from games.exceptions import WrongRoundState
from games.models import Player, Round


def do_ready(player: Player, round_number: Any) -> None:
    """The player is ready for the round the room waits on."""
    number = check_round_number(round_number)
    with transaction.atomic():
        round_ = _waiting_round(player.room_id, number)
        if player.pk in round_.ready_players:
            return  # said twice: nothing changed, nothing to tell the room
        round_.ready_players = [*round_.ready_players, player.pk]
        Round.objects.filter(pk=round_.pk).update(ready_players=round_.ready_players)
        _announce_or_start(round_, force=True)


def do_force_start(host: Player, round_number: Any) -> None:
    """The host starts the countdown without waiting for everyone."""
    check_host(host)
    number = check_round_number(round_number)
    with transaction.atomic():
        round_ = _waiting_round(host.room_id, number)
    rounds.start_countdown(round_.pk)


def recheck_waiting() -> int:
    """Follow presence in every round waiting for its players: announce who is waited for
    when that changed, start those nobody online holds back. Returns how many started."""
    started = 0
    waiting_ids = Round.objects.filter(
        status=Round.Status.PREPARING, ready_since__isnull=False
    ).values_list("pk", flat=True)
    for round_id in list(waiting_ids):
        with transaction.atomic():
            round_ = (
                Round.objects.select_for_update()
                .select_related("room")
                .filter(pk=round_id, status=Round.Status.PREPARING)
                .first()
            )
            if round_ is None:
                continue
            started += _announce_or_start(round_, force=False)
    return started


def _waiting_round(room_id: int, number: int) -> Round:
    """The room's round ``number``, locked, if it is the one waiting for its players."""
    round_ = (
        Round.objects.select_for_update()
        .select_related("room")
        .filter(room_id=room_id, number=number)
        .first()
    )
    latest = Round.objects.filter(room_id=room_id).order_by("-number").values("number").first()
    if (
        round_ is None
        or latest is None
        or latest["number"] != number
        or round_.status != Round.Status.PREPARING
        or round_.ready_since is None
    ):
        raise WrongRoundState(_("no round is waiting for its players"))
    return round_


def _announce_or_start(round_: Round, force: bool) -> int:
    """Start the countdown when nobody online is waited for and someone is ready; else send
    ``round.ready`` (always when ``force``, else only when who is waited for changed).
    Inside the caller's transaction, the round locked; returns 1 when it started."""
    online = presence.online_player_ids(round_.room_id)
    ready_and_online = set(round_.ready_players) & set(online)
    waiting = [player_id for player_id in online if player_id not in ready_and_online]
    if ready_and_online and not waiting:
        return int(rounds.start_countdown(round_.pk))
    if not force and waiting == round_.ready_waiting:
        return 0
    Round.objects.filter(pk=round_.pk).update(ready_waiting=waiting)
    events.emit_to_room(
        round_.room,
        "round.ready",
        {"round_number": round_.number, "ready": round_.ready_players, "waiting": waiting},
    )
    return 0
