"""Rooms, rounds and live play. Models in ``models``; the actions in ``rooms``, ``rounds``,
``words`` and ``challenges``; clients reach them through the HTTP API (``api``, ``views``)
and the room websocket (``consumers``), and hear back through ``events``, shaped by
``state`` and ``presenters``; ``presence``, ``deadlines`` and ``tasks`` keep rooms going."""
