"""An event's ``server_time`` is when it leaves for each socket, not when it was published:
a client's clock estimate from it is only off by the network (games.events)."""

from __future__ import annotations

import json

from games import events


def test_server_time_is_stamped_as_each_socket_sends_the_event(monkeypatch) -> None:
    monkeypatch.setattr(events, "server_now_ms", lambda: 1_000)
    layer = events.layer_message(events.ROOM_EVENT, {"type": "round.counts", "version": 3})
    assert "server_time" not in json.loads(layer["text"])  # nothing fixed at publishing

    monkeypatch.setattr(events, "server_now_ms", lambda: 4_500)  # sent 3.5 s later
    sent = json.loads(events.with_server_time(layer["text"]))
    assert sent == {"type": "round.counts", "version": 3, "server_time": 4_500}
