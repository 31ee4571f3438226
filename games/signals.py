"""Hooks for other apps (the daily board): games sends, never imports them.

``round_ended``: sent by ``games.rounds.do_end_round`` inside the transaction that ends and
scores the round, once per round, with ``round`` (a Round whose ``room`` is loaded). What a
receiver writes commits with the round's end, so whoever reads the results can read it
too; a receiver that fails is logged and never stops the round ending (``send_robust``),
so receivers do their writes in their own ``transaction.atomic()`` block (a savepoint).

``player_joining``: sent by ``games.rooms.do_join_room`` before a new player is added, with
``room``. A receiver refuses the join by raising a ``games.exceptions.GameError``.
"""

from __future__ import annotations

from django.dispatch import Signal

round_ended = Signal()
player_joining = Signal()
