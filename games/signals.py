"""Hooks for other apps (the daily board): games sends, never imports them.

``rounds_ended``: sent by ``games.rounds.end_rounds`` inside the transaction that ends and
scores rounds (often one, several when rooms end together), with ``rounds`` (a list of
Rounds whose ``room`` is loaded). What a receiver writes commits with the rounds' end, so
whoever reads the results can read it too; a receiver that fails is logged and never stops
the rounds ending (``send_robust``), so receivers do their writes in their own
``transaction.atomic()`` block (a savepoint).

``player_joining``: sent by ``games.rooms.do_join_room`` before a new player is added, with
``room``. A receiver refuses the join by raising a ``games.exceptions.ClientError``.

``round_starting``: sent by ``games.rounds.do_start_round`` before a round is made, with
``room`` (its row locked) and ``number`` (the new round's number in the room). A receiver
refuses the round by raising a ``games.exceptions.ClientError`` (daily: one round a room).

``game_starting``: sent by ``games.standings.do_new_game`` before the next game starts, with
``room`` (its row locked). A receiver refuses the rematch by raising a ``ClientError``.

``game_ended``: sent by ``games.standings.end_game_in`` inside the transaction that ends a
game, with ``room`` and ``standing`` (its ``final_standing``). A receiver that fails is
logged and the game ends anyway (``send_robust``); receivers do their writes in their own
``transaction.atomic()`` block (quickplay: the players' ratings).

``next_board_set``: sent by ``games.rooms.do_set_next_board`` inside its transaction (the
room's row locked), after the host's ``set_board`` is saved, with ``room`` and ``board``
(the ``solver.board.Board`` set, or None when the host cleared it). A receiver that fails
is logged and the board is set anyway (``send_robust``); receivers do their writes in their
own ``transaction.atomic()`` block (photos: the photo read is used).

``housekeeping``: sent hourly by ``games.housekeeping.delete_unused_files`` (beat's task in
production, every web process's deadline watcher), after the idle rooms are deleted. A
receiver deletes what its app keeps past its time (dicesets: idle dice sets) and returns a
dict of counts, merged into the task's result; one that fails is logged and the others
still run (``send_robust``).
"""

from __future__ import annotations

from django.dispatch import Signal

rounds_ended = Signal()
player_joining = Signal()
round_starting = Signal()
game_starting = Signal()
game_ended = Signal()
next_board_set = Signal()
housekeeping = Signal()
