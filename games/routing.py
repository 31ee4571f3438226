"""Websocket routes of the games app (rooms arrive with the game core)."""

websocket_urlpatterns: list = []
