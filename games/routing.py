"""Websocket routes of the games app."""

from django.urls import re_path

from games.consumers import RoomConsumer, UnknownPathConsumer
from games.spectators import SpectatorConsumer

websocket_urlpatterns = [
    re_path(r"^ws/rooms/(?P<code>[A-Za-z0-9]{1,16})/$", RoomConsumer.as_asgi()),
    # A table screen's read-only socket (games.spectators).
    re_path(r"^ws/rooms/(?P<code>[A-Za-z0-9]{1,16})/watch/$", SpectatorConsumer.as_asgi()),
    # Anything else gets a clear error instead of a failed handshake.
    re_path(r"", UnknownPathConsumer.as_asgi()),
]
