"""Rooms and their players: create, join, leave, hand over hosting, kick, settings and the
next board. Each ``do_*`` runs in one transaction and sends its events after commit."""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any, cast

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games import events, modes, presenters, signals, teams
from games.checks import (
    apply_settings_parts,
    check_board,
    check_host,
    check_nickname,
    check_settings,
    check_settings_parts,
    current_round,
    is_int,
)
from games.exceptions import Kicked, NicknameTaken, WrongRoundState
from games.models import (
    Connection,
    Player,
    Room,
    Round,
)
from games.nicknames import nickname_key
from games.room_dictionaries import (
    default_dictionary,
)
from games.totals import room_totals
from solver.board import Board
from web.errors import InvalidInput

logger = logging.getLogger(__name__)


@transaction.atomic
def do_create_room(nickname: Any, room_settings: Any = None) -> tuple[Room, Player]:
    """Create a room with its host; settings are optional (defaults make a classic game)."""
    room = Room(dictionary=default_dictionary())
    cleaned = check_settings(room, room_settings or {})
    owned = check_settings_parts(room, room_settings or {})
    nickname = check_nickname(room, nickname)
    for field, value in cleaned.items():
        setattr(room, field, value)
    for _attempt in range(5):  # a clash of 40-bit codes is rare; try a fresh code if it happens
        try:
            with transaction.atomic():
                room.save()
            break
        except IntegrityError:
            room.code = Room._meta.get_field("code").default()
    host = Player.objects.create(room=room, nickname=nickname)
    if room.mode == modes.TEAMS:
        teams.place(room, host)
    room.host = host
    room.save(update_fields=["host"])
    apply_settings_parts(room, owned)
    return room, host


@transaction.atomic
def do_join_room(room: Room, nickname: Any) -> Player:
    signals.player_joining.send(sender=Room, room=room)  # a receiver may refuse (daily)
    cleaned = check_nickname(room, nickname)
    try:
        with transaction.atomic():
            player = Player.objects.create(room=room, nickname=cleaned)
    except IntegrityError:  # someone took it between the check and the insert
        raise NicknameTaken(
            _("%(nickname)r is taken in this room; pick another nickname") % {"nickname": cleaned}
        ) from None
    if room.host_id is None:
        Room.objects.filter(pk=room.pk).update(host=player)
        room.host_id = player.id
    teams.seat(room, player)  # player.joined says the team
    player.is_online = False  # a socket comes next
    events.emit_to_room(room, "player.joined", {"player": presenters.player_dict(player, 0)})
    return player


def former_player(room: Room, token: str | None, player_id: int | None) -> Player | None:
    """The player of ``room`` that this device was before it left or was kicked: named by
    the Bearer token, else by the browser session's player id. Kicked (and not let back)
    raises ``Kicked``; None when the device names no player who is gone from the room."""
    players = Player.objects.filter(room=room, left_at__isnull=False)
    if token:
        former = players.filter(token=token).first()
    elif player_id:
        former = players.filter(pk=player_id).first()
    else:
        return None
    if former is not None and former.kicked:
        raise Kicked(_("The host removed you from this room. Only the host can let you back in."))
    return former


@transaction.atomic
def do_rejoin(room: Room, player: Player, nickname: Any) -> Player:
    """A player who left comes back on the same device: the same player (id, token, points
    of earlier rounds) is active again, under the nickname sent (the old one if none)."""
    cleaned = check_nickname(room, player.nickname if nickname is None else nickname, player)
    try:
        with transaction.atomic():
            updated = Player.objects.filter(
                pk=player.pk, left_at__isnull=False, kicked=False
            ).update(left_at=None, nickname=cleaned, nickname_key=nickname_key(cleaned))
    except IntegrityError:  # someone took the nickname between the check and the update
        raise NicknameTaken(
            _("%(nickname)r is taken in this room; pick another nickname") % {"nickname": cleaned}
        ) from None
    if not updated:  # kicked (or back already) a moment ago
        raise Kicked(_("The host removed you from this room. Only the host can let you back in."))
    player.refresh_from_db()
    if room.host_id is None:
        Room.objects.filter(pk=room.pk).update(host=player)
        room.host_id = player.id
    player.room = room
    teams.seat(room, player)  # their team, also in a teams round under way
    player.is_online = False  # a socket comes next
    # Back with the points of this game's rounds played before they left (or were kicked).
    points = room_totals(room).get(player.id, 0)
    events.emit_to_room(room, "player.joined", {"player": presenters.player_dict(player, points)})
    return player


@transaction.atomic(durable=True)
def do_leave(player: Player) -> None:
    """The player leaves the room. If they hosted, hosting passes on (``_pass_hosting``): to
    the player who has been in the room longest among those online, else among all."""
    now = timezone.now()
    Player.objects.filter(pk=player.pk).update(left_at=now)
    player.left_at = now
    Connection.objects.filter(player=player).delete()  # offline now; their sockets close
    room = Room.objects.select_for_update().get(pk=player.room_id)
    events.emit_to_room(room, "player.left", {"player_id": player.id})
    # Every socket of the player closes (other tabs, other devices), not only the one that
    # sent ``leave``: a player who left plays no more.
    events.emit_to_player(player.id, "left", {"message": "you left the room"})
    if room.host_id == player.id:
        _pass_hosting(room)


def _pass_hosting(room: Room) -> None:
    """Hosting goes to the longest-present player who is online, else to the longest-present
    player; the room has no host when nobody is left."""
    successor = (
        Player.objects.filter(room=room, left_at__isnull=True, kicked=False)
        .exclude(pk=cast(int, room.host_id))  # callers' rooms have a host: leaving or away
        .with_presence()
        .order_by("-is_online", "joined_at")
        .first()
    )
    room.host = successor
    room.save(update_fields=["host"])
    events.emit_to_room(room, "host.changed", {"host_id": room.host_id})


@transaction.atomic
def pass_hosting_if_away(room_id: int, away_since: datetime) -> bool:
    """Pass hosting on if the room's host is still away (no live socket, last seen before
    ``away_since``) and another player is online; checked again under the room's lock."""
    room = Room.objects.select_for_update().get(pk=room_id)
    if room.host_id is None:  # hosting went to nobody meanwhile
        return False
    host = Player.objects.filter(pk=room.host_id).with_presence().first()
    if host is None or host.is_online or host.last_seen_at >= away_since:
        return False
    others_online = (
        Player.objects.filter(room=room, left_at__isnull=True, kicked=False)
        .exclude(pk=host.pk)
        .with_presence()
        .filter(is_online=True)
    )
    if not others_online.exists():
        return False
    _pass_hosting(room)
    return True


@transaction.atomic(durable=True)
def do_transfer_host(host: Player, player_id: Any) -> None:
    check_host(host)
    target = _other_active_player(host, player_id)
    room = Room.objects.select_for_update().get(pk=host.room_id)
    room.host = target
    room.save(update_fields=["host"])
    events.emit_to_room(room, "host.changed", {"host_id": target.id})


@transaction.atomic(durable=True)
def do_kick(host: Player, player_id: Any) -> None:
    check_host(host)
    target = _other_active_player(host, player_id)
    Player.objects.filter(pk=target.pk).update(kicked=True, left_at=timezone.now())
    room = Room.objects.get(pk=host.room_id)
    events.emit_to_player(target.id, "kicked", {"message": "the host removed you from the room"})
    events.emit_to_room(room, "player.left", {"player_id": target.id, "kicked": True})


@transaction.atomic(durable=True)
def do_unkick(host: Player, player_id: Any) -> None:
    """The host lets a kicked player back: their device may join again (and gets the same
    player, with their points, back). ``player.allowed_back`` tells the room."""
    check_host(host)
    if not is_int(player_id):
        raise InvalidInput("player_id is a number")
    room = Room.objects.select_for_update().get(pk=host.room_id)
    updated = Player.objects.filter(pk=player_id, room=room, kicked=True).update(kicked=False)
    if not updated:
        raise InvalidInput(_("no kicked player with that id in this room"))
    events.emit_to_room(room, "player.allowed_back", {"player_id": player_id})


def _other_active_player(host: Player, player_id: Any) -> Player:
    if not is_int(player_id):
        raise InvalidInput("player_id is a number")
    if player_id == host.id:
        raise InvalidInput(_("that is you"))
    target = Player.objects.filter(
        pk=player_id, room_id=host.room_id, left_at__isnull=True, kicked=False
    ).first()
    if target is None:
        raise InvalidInput(_("no such player in this room"))
    return target


@transaction.atomic(durable=True)
def do_update_settings(host: Player, changes: Any) -> dict:
    check_host(host)
    room = Room.objects.select_for_update().get(pk=host.room_id)
    running = current_round(room.pk)
    if running is not None and running.status != Round.Status.ENDED:
        raise WrongRoundState(_("settings change between rounds; wait for this round to end"))
    cleaned = check_settings(room, changes)
    owned = check_settings_parts(room, changes)
    to_teams = room.mode != modes.TEAMS and cleaned.get("mode") == modes.TEAMS
    for field, value in cleaned.items():
        setattr(room, field, value)
    room.save(update_fields=list(cleaned))
    apply_settings_parts(room, owned)
    data = presenters.settings_dict(room)
    events.emit_to_room(room, "settings.changed", {"settings": data})
    # To teams, or fewer teams: everyone has one (and, to teams, the pages hear them all).
    teams.place_players(room, announce_all=to_teams)
    return data


@transaction.atomic(durable=True)
def do_set_next_board(host: Player, board_text: Any) -> str:
    """Use a typed (or photographed, then confirmed) board for the next round."""
    check_host(host)
    room = Room.objects.select_for_update().get(pk=host.room_id)
    board: Board | None = None
    if board_text in (None, ""):
        room.next_board = ""
    else:
        board = check_board(board_text)
        if board.size != room.board_size:
            raise InvalidInput(
                _("this room plays %(room_size)s; that board is %(size)s")
                % {"room_size": room.board_size, "size": board.size}
            )
        room.next_board = board.to_text()
    room.save(update_fields=["next_board"])
    events.emit_to_room(room, "settings.changed", {"settings": presenters.settings_dict(room)})
    _announce_next_board(room, board)
    return room.next_board


def _announce_next_board(room: Room, board: Board | None) -> None:
    """Tell other apps (games.signals.next_board_set) inside the transaction; a failing
    receiver is logged, the board is set anyway."""
    for receiver, outcome in signals.next_board_set.send_robust(
        sender=Room, room=room, board=board
    ):
        if isinstance(outcome, Exception):
            logger.error("next_board_set receiver %r failed: %r", receiver, outcome)
