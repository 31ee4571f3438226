"""Who is online, by heartbeat: a row per open socket, renewed by the process holding it.

Each web process knows the sockets it holds (``_open``). Every ``BEAT_SECONDS`` it renews
their rows in one UPDATE (``beat``) and sweeps rows that no process renewed for
``PRESENCE_TIMEOUT`` (``sweep``): those belonged to a process that died or lost the
database, so their players go offline within that time, with nothing to clean by hand. A
host who has been away that long hands the room to a player who is there.

A clean disconnect deletes its row at once; the player goes offline when no live row is
left. Events are sent after the commit (``games.events``).
"""

from __future__ import annotations

import logging
import os
import secrets
import socket
from datetime import timedelta

from django.db import transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone

from games import events, rooms
from games.models import PRESENCE_TIMEOUT, Connection, Player, Room

logger = logging.getLogger(__name__)

# How often a process renews its sockets' rows and sweeps dead ones (seconds); well under
# PRESENCE_TIMEOUT, so a process that misses a beat or two (a busy moment) stays present.
BEAT_SECONDS = 5.0
# A host away (no live socket) this long hands the room to a player who is there: longer
# than a reload or a look at another app on the phone.
HOST_AWAY = timedelta(seconds=30)

# This process: names its rows so that it renews only its own.
PROCESS = f"{socket.gethostname()[:60]}:{os.getpid()}:{secrets.token_hex(4)}"
# This process's open sockets: channel name -> player id.
_open: dict[str, int] = {}


def do_connect(player: Player, channel_name: str) -> None:
    """Record a socket of the player; ``player.online`` goes to the room if they were
    offline."""
    _open[channel_name] = player.pk
    with transaction.atomic():
        was_online = Connection.objects.live().filter(player=player).exists()
        Connection.objects.update_or_create(
            channel_name=channel_name,
            defaults={"player": player, "process": PROCESS, "beat_at": timezone.now()},
        )
        if not was_online:
            room = Room.objects.get(pk=player.room_id)
            events.emit_to_room(room, "player.online", {"player_id": player.id, "online": True})


def forget(channel_name: str) -> None:
    """The socket closed: this process no longer renews it. Called on the event loop as soon
    as the socket closes, so that a disconnect whose database work never runs (the database
    is down and the handler is cancelled) still lets the socket's row go stale."""
    _open.pop(channel_name, None)


def do_disconnect(player: Player, channel_name: str) -> dict | None:
    """Forget a socket and delete its row; returns the ``player.online`` event to send if the
    player is now offline. The caller (an async consumer) sends it: during a server shutdown
    a blocking send from this worker thread would wait for an event loop that has stopped."""
    forget(channel_name)
    with transaction.atomic():
        Connection.objects.filter(channel_name=channel_name).delete()
        Player.objects.filter(pk=player.pk).update(last_seen_at=timezone.now())
        still_here = Connection.objects.live().filter(player=player).exists()
        player.refresh_from_db(fields=["left_at"])
        if not still_here and player.left_at is None:
            room = Room.objects.get(pk=player.room_id)
            return events.room_event(
                room, "player.online", {"player_id": player.id, "online": False}
            )
    return None


def beat() -> None:
    """Renew this process's sockets. Rows another process swept while this one could not
    reach the database come back (their players online again); rows of sockets whose
    disconnect could not be recorded go (their players offline, if that was their last)."""
    open_now = dict(_open)
    renewed = Connection.objects.filter(process=PROCESS).update(beat_at=timezone.now())
    if renewed == len(open_now):
        return
    stored = dict(Connection.objects.filter(process=PROCESS).values_list("channel_name", "player"))
    gone = stored.keys() - open_now.keys()
    if gone:
        with transaction.atomic():
            Connection.objects.filter(channel_name__in=gone).delete()
            now = timezone.now()
            left = {stored[channel_name] for channel_name in gone}
            Player.objects.filter(pk__in=left).update(last_seen_at=now)
            _announce_offline(left)
    for channel_name in open_now.keys() - stored.keys():
        player = Player.objects.filter(pk=open_now[channel_name], left_at__isnull=True).first()
        if player is not None and channel_name in _open:
            do_connect(player, channel_name)


def sweep() -> int:
    """Delete sockets no process renewed for PRESENCE_TIMEOUT, tell each room whose players
    went offline, and pass on hosting where the host is away; returns the sockets swept.
    Any process may run it; each stale row is deleted (and reported) once."""
    cutoff = timezone.now() - PRESENCE_TIMEOUT
    with transaction.atomic():
        stale = Connection.objects.filter(beat_at__lt=cutoff).select_for_update(skip_locked=True)
        rows = list(stale.values_list("id", "player_id", "beat_at"))
        Connection.objects.filter(id__in=[row[0] for row in rows]).delete()
        for player_id, last_beat in {row[1]: row[2] for row in rows}.items():
            Player.objects.filter(pk=player_id, last_seen_at__lt=last_beat).update(
                last_seen_at=last_beat
            )
        _announce_offline({row[1] for row in rows})
    if rows:
        logger.info("presence: swept %d sockets of dead processes", len(rows))
    pass_on_hosting_from_absent_hosts()
    return len(rows)


def _announce_offline(player_ids: set[int]) -> None:
    """Tell the rooms of those players (still in their room) who have no live socket left
    that they are offline. In a transaction: the events leave after commit."""
    gone = (
        Player.objects.filter(pk__in=player_ids, left_at__isnull=True)
        .with_presence()
        .filter(is_online=False)
        .select_related("room")
    )
    for player in gone:
        events.emit_to_room(player.room, "player.online", {"player_id": player.id, "online": False})


def pass_on_hosting_from_absent_hosts() -> int:
    """Rooms whose host has been away for HOST_AWAY while another player is there get a new
    host (the longest-present player who is online); returns how many changed hands."""
    live = Connection.objects.live()
    away_since = timezone.now() - HOST_AWAY
    rooms_to_pass = (
        Room.objects.filter(host__isnull=False, host__last_seen_at__lt=away_since)
        .exclude(Exists(live.filter(player=OuterRef("host_id"))))
        .filter(
            Exists(
                live.filter(
                    player__room=OuterRef("pk"),
                    player__left_at__isnull=True,
                    player__kicked=False,
                )
            )
        )
        .values_list("id", flat=True)
    )
    passed = 0
    for room_id in list(rooms_to_pass):
        passed += rooms.pass_hosting_if_away(room_id, away_since)
    return passed


def open_sockets() -> int:
    """How many sockets this process holds (for tests and diagnostics)."""
    return len(_open)
