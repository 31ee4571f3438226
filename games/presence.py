"""Who is online, by heartbeat: a row per open socket, renewed by the process holding it.

Each web process knows the sockets it holds (``_open``). Every ``BEAT_SECONDS`` it renews
their rows in one UPDATE (``beat``) and sweeps rows that no process renewed for
``PRESENCE_TIMEOUT`` (``sweep``): those belonged to a process that died or lost the
database, so their players go offline within that time, with nothing to clean by hand. A
host who has been away that long hands the room to a player who is there.

A socket that closes is forgotten at once and its row deleted by the beat it wakes (within
``CLOSE_BATCH_SECONDS``); the player goes offline when no live row is left. Events are sent
after the commit (``games.events``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import socket
from datetime import timedelta

from django.db import connection, transaction
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
# After a socket closed, the beat waits this long for others closing with it (seconds).
CLOSE_BATCH_SECONDS = 0.1

# This process's open sockets: channel name -> player id.
_open: dict[str, int] = {}
# Set when a socket closes: wakes the beat early (one per event loop: tests run several).
_wakeups: dict[asyncio.AbstractEventLoop, asyncio.Event] = {}


def hold(channel_name: str, player_id: int) -> None:
    """This process holds the socket now: the beat renews it until ``forget``. Called on
    the event loop, before ``do_connect``, so that a close at any moment is matched."""
    _open[channel_name] = player_id


def do_connect(player: Player, channel_name: str) -> bool:
    """Record a socket of the player (held: ``hold``); ``player.online`` goes to the room
    if they were offline. Returns whether they were online already (another tab, on any
    process)."""
    with transaction.atomic():
        was_online = Connection.objects.live().filter(player=player).exists()
        Connection.objects.update_or_create(
            channel_name=channel_name,
            defaults={"player": player, "process": PROCESS, "beat_at": timezone.now()},
        )
        if not was_online:
            room = Room.objects.get(pk=player.room_id)
            events.emit_to_room(room, "player.online", {"player_id": player.id, "online": True})
    return was_online


def forget(channel_name: str) -> None:
    """The socket closed: this process stops renewing it and wakes the beat, which deletes
    its row and says who went offline (``beat``). Runs on the event loop and touches no
    database, so a disconnect never fails or hangs (the database or Redis down, the handler
    cancelled at shutdown) and a crowd leaving at once costs one beat, not a transaction
    each."""
    if _open.pop(channel_name, None) is None:
        return
    with contextlib.suppress(RuntimeError):  # no event loop (tests, scripts): no beat to wake
        wakeup = _wakeups.get(asyncio.get_running_loop())
        if wakeup is not None:
            wakeup.set()


def beat() -> list[tuple[str, dict]]:
    """Renew this process's sockets. Rows of sockets that closed go; rows another process
    swept while this one could not reach the database come back (their players online
    again). Returns the ``player.online`` events of players whose last socket closed, as
    (room code, event), for the caller (async) to send: from this worker thread a blocking
    send would wait for ever on an event loop stopped by a server shutdown."""
    open_now = dict(_open)
    if _renew() == open_now.keys():
        return []
    stored = dict(Connection.objects.filter(process=PROCESS).values_list("channel_name", "player"))
    # Again after that read: a socket held since the first look may have stored its row in
    # between, and it is not gone. A socket is held before its row is written, so a row
    # whose socket is not held now is one that closed.
    open_now = dict(_open)
    offline: list[tuple[str, dict]] = []
    gone = stored.keys() - open_now.keys()
    if gone:
        with transaction.atomic():
            Connection.objects.filter(channel_name__in=gone).delete()
            left = {stored[channel_name] for channel_name in gone}
            Player.objects.filter(pk__in=left).update(last_seen_at=timezone.now())
            for player in _offline_players(left):
                event = {"player_id": player.id, "online": False}
                offline.append(
                    (player.room.code, events.room_event(player.room, "player.online", event))
                )
    for channel_name in open_now.keys() - stored.keys():
        back = Player.objects.filter(pk=open_now[channel_name], left_at__isnull=True).first()
        if back is not None and channel_name in _open:
            do_connect(back, channel_name)
    return offline


def _renew() -> set[str]:
    """Renew this process's rows; the sockets they are of. Compared as sets, not counts: a
    row swept by another process while a socket closed here would leave the counts equal,
    and the closed socket's player online for as long as this process runs."""
    table = Connection._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {table} SET beat_at = %s WHERE process = %s RETURNING channel_name",
            [connection.ops.adapt_datetimefield_value(timezone.now()), PROCESS],
        )
        return {row[0] for row in cursor.fetchall()}


async def wait_for_beat(seconds: float) -> None:
    """Sleep until the next beat is due, or until a socket closed (then a moment more, so
    that sockets closing together are handled in one beat)."""
    wakeup = _wakeups.setdefault(asyncio.get_running_loop(), asyncio.Event())
    with contextlib.suppress(TimeoutError):
        # Not wait_for: Python 3.11's drops a cancel that comes with the wake-up (a process
        # stopping as its sockets close: games.draining), and the beat would run on.
        async with asyncio.timeout(seconds):
            await wakeup.wait()
        await asyncio.sleep(CLOSE_BATCH_SECONDS)
    wakeup.clear()


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
        for player in _offline_players({row[1] for row in rows}):
            events.emit_to_room(
                player.room, "player.online", {"player_id": player.id, "online": False}
            )
    if rows:
        logger.info("presence: swept %d sockets of dead processes", len(rows))
    pass_on_hosting_from_absent_hosts()
    return len(rows)


def online_player_ids(room_id: int) -> list[int]:
    """The room's players who are in it and have a live socket, by id."""
    return list(
        Player.objects.filter(room_id=room_id, left_at__isnull=True, kicked=False)
        .with_presence()
        .filter(is_online=True)
        .order_by("pk")
        .values_list("pk", flat=True)
    )


def _offline_players(player_ids: set[int]) -> list[Player]:
    """Those of the players, still in their room, with no live socket left."""
    return list(
        Player.objects.filter(pk__in=player_ids, left_at__isnull=True)
        .with_presence()
        .filter(is_online=False)
        .select_related("room")
    )


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


def sockets_of(player_id: int) -> int:
    """How many sockets of the player this process holds."""
    return sum(1 for owner in _open.values() if owner == player_id)
