"""Today's date and its board: derived by solver.daily the first time a date is asked for,
then read from the database, so everyone plays the same board all day. The derivation is
keyed with ``settings.BOGGLE_DAILY_SECRET``: no board can be computed before its day from
the public code, and only today's is ever derived (nothing asks for a later date)."""

from __future__ import annotations

from datetime import UTC, date

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from daily.models import DailyBoard
from games.room_dictionaries import current_version, dictionary_title, word_list_for_version
from solver.daily import daily_board

# The daily board is always the classic game in English, whatever the page's language: one
# board and one leaderboard for everyone (docs/api.md, "Daily board and solo practice").
DAILY_DICTIONARY = "english"
DAILY_BOARD_SIZE = "4x4"
DAILY_ROUND_SECONDS = 180


def today() -> date:
    """The daily board's date: the UTC calendar date, the same for everyone (a new board
    at 00:00 UTC). Tests replace this function."""
    return timezone.now().astimezone(UTC).date()


def board_for(day: date) -> DailyBoard:
    """The board of ``day``, derived and stored on first use. Raises
    dictionaries.exceptions.DictionaryError (or solver.WordListError) when the English
    dictionary cannot be loaded."""
    stored = DailyBoard.objects.filter(date=day).first()
    if stored is not None:
        return stored
    version = current_version(DAILY_DICTIONARY)
    derived = daily_board(day, word_list_for_version(version), settings.BOGGLE_DAILY_SECRET)
    try:
        with transaction.atomic():
            return DailyBoard.objects.create(
                date=day,
                board=derived.board.to_text(),
                dictionary=DAILY_DICTIONARY,
                word_count=len(derived.solution),
                roll_number=derived.roll_number,
            )
    except IntegrityError:  # another request stored it first: use theirs
        return DailyBoard.objects.get(date=day)


def dictionary_of(day: date) -> dict[str, str]:
    """The dictionary ``day``'s board is played with, ``{name, title}``: the one it was
    stored with, else (not derived yet) the daily dictionary. Derives nothing."""
    stored = DailyBoard.objects.filter(date=day).values_list("dictionary", flat=True).first()
    name = stored or DAILY_DICTIONARY
    return {"name": name, "title": dictionary_title(name)}
