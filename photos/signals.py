"""Hooks the photos app offers other apps (dice sets learn from confirmed boards).

``board_confirmed``: sent by ``photos.boards.on_next_board_set`` when the host confirms a
board read from a photo, with ``photo`` (the ``BoardPhoto``; its ``result`` holds the
reading: ``rows``, ``cols``, ``letters``, ``corners``, ...) and ``faces`` (rows of the
faces the host set, top row first, in ``solver.board`` notation: ``"qu"`` for the Qu die,
``"#"`` for a blank one, two letters such as ``"th"`` on 6x6). Sent exactly when all of
these hold:

- the host's ``set_board`` sets a board (not clearing it: ``board`` empty or null);
- the room's latest photo, uploaded since its latest round started
  (``photos.api.latest_photo``), is read (``status == "read"``) and not used yet (no board
  was set since that reading);
- the board has the reading's rows and cols, and at least half its dice are the ones read
  (``faces`` need not be the letters read: the host's corrections are the point; but a
  board mostly unlike the reading is another board typed in, which says nothing of the
  photo's dice, ``photos.boards.corrects``).

Once per confirmation: the photo then counts as used and leaves the room's state, so a
second ``set_board`` does not send it again (a new reading of the photo, with corners
placed by hand, makes it pending again). Sent inside the host's ``set_board`` transaction,
with the room's row locked: a receiver keeps its work short and does anything slow (cutting
the dice out of the photo) after commit (``transaction.on_commit``). A receiver that fails
is logged and never stops the board being set (``send_robust``).
"""

from __future__ import annotations

from django.dispatch import Signal

board_confirmed = Signal()
