"""Who is online: a player's open sockets, counted as they connect and disconnect."""

from __future__ import annotations

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from games import events
from games.models import (
    Player,
    Room,
)


def do_connect(player: Player) -> None:
    with transaction.atomic():
        Player.objects.filter(pk=player.pk).update(
            connections=F("connections") + 1, last_seen_at=timezone.now()
        )
        player.refresh_from_db(fields=["connections"])
        if player.connections == 1:
            room = Room.objects.get(pk=player.room_id)
            events.emit_to_room(room, "player.online", {"player_id": player.id, "online": True})


def do_disconnect(player: Player) -> dict | None:
    """Count one socket less; returns the ``player.online`` event to send if the player is
    now offline. The caller (an async consumer) sends it: during a server shutdown a
    blocking send from this worker thread would wait for an event loop that has stopped."""
    with transaction.atomic():
        Player.objects.filter(pk=player.pk, connections__gt=0).update(
            connections=F("connections") - 1, last_seen_at=timezone.now()
        )
        player.refresh_from_db(fields=["connections", "left_at"])
        if player.connections == 0 and player.left_at is None:
            room = Room.objects.get(pk=player.room_id)
            return events.room_event(
                room, "player.online", {"player_id": player.id, "online": False}
            )
    return None
