"""What the Solve page and its API answer (docs/api.md, "Solve a board"): every word of a
board, and a paper game's lists checked, scored and ranked (``solver.solve``,
``solver.referee``). The dictionary and the shortest word default as a new room's, and a
board is solved the way a round's is, so the same board gives the same words, paths and
points here as in a room's results.

A board's solution is kept per process (``MAX_KEPT``, least recently asked dropped first),
keyed by the board, the dictionary's compiled version and the shortest word: a version's
words never change, so what is kept stays right; a recompiled dictionary is a new key.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _

from dictionaries.models import Dictionary
from games import common_words
from games.checks import check_board, is_int
from games.messages import verdict_text
from games.models import MAX_WORD_LENGTH, MIN_WORD_LENGTH, NICKNAME_MAX_LENGTH
from games.room_dictionaries import default_dictionary, word_list_for_version
from solve.exceptions import InvalidBoard, UnknownDictionary
from solver.board import Board
from solver.judge import MAX_ENTRY_LENGTH, Verdict
from solver.referee import CheckedWord, check_lists
from solver.scoring import default_min_length
from solver.solve import FoundWord, Solution, solve
from solver.wordlist import WordList
from web import text
from web.errors import InvalidInput

# A paper game's bounds (docs/api.md, "POST /api/solve/check").
MAX_PLAYERS = 12
MAX_WORDS_PER_PLAYER = 500
# Longest name on a list: a nickname's.
MAX_NAME_LENGTH = NICKNAME_MAX_LENGTH
# Longest dictionary name taken from a client (Dictionary.name holds 64).
MAX_DICTIONARY_NAME = 64
# Solutions kept per process: a 6x6 board's answer is some 100 KB.
MAX_KEPT = 128


@dataclass(frozen=True)
class Puzzle:
    """A board to solve with a dictionary's current version and a shortest word."""

    board: Board
    dictionary: str
    version_id: int
    word_list: WordList
    min_length: int


@dataclass(frozen=True)
class Solved:
    """A puzzle's every word, which of them are common, and GET /api/solve's answer (as
    an object and encoded once)."""

    solution: Solution
    common: frozenset[str]
    answer: dict[str, Any]
    encoded: bytes


_kept: OrderedDict[tuple[str, int, int], Solved] = OrderedDict()
_lock = threading.Lock()


def check_puzzle(board_text: Any, dictionary: Any = None, min_length: Any = None) -> Puzzle:
    """The puzzle a request asks for: ``board_text`` in the board notation (docs/api.md,
    "Board text"; a size rooms play), ``dictionary`` a name rooms may choose (None: the
    default), ``min_length`` 3 to 8 (None: the board size's usual); the shortest word is
    never below what the dictionary keeps, as in a round. InvalidBoard, UnknownDictionary
    or InvalidInput say what is wrong."""
    try:
        board = check_board(board_text)
    except InvalidInput as error:
        raise InvalidBoard(error.message) from None
    name = default_dictionary() if dictionary in (None, "") else dictionary
    if not text.is_clean(name, MAX_DICTIONARY_NAME):
        raise UnknownDictionary(_("there is no dictionary by that name"))
    playable = (
        Dictionary.objects.select_related("current_version")
        .filter(name=name, enabled=True, current_version__isnull=False)
        .first()
    )
    if playable is None or playable.current_version is None:
        raise UnknownDictionary(
            _("there is no dictionary %(name)r; GET /api/dictionaries lists them") % {"name": name}
        )
    version = playable.current_version
    if min_length is None:
        min_length = default_min_length(board.rows, board.cols)
    elif not is_int(min_length) or not MIN_WORD_LENGTH <= min_length <= MAX_WORD_LENGTH:
        raise InvalidInput(
            _("min_length is %(min)s to %(max)s") % {"min": MIN_WORD_LENGTH, "max": MAX_WORD_LENGTH}
        )
    shortest = max(min_length, int(version.rules.get("min_length", 1)))
    return Puzzle(board, name, version.pk, word_list_for_version(version), shortest)


def min_length_param(value: str | None) -> int | None:
    """``?min_length=`` as a number (None when absent); InvalidInput when not one."""
    if value is None or value == "":
        return None
    if not (value.isascii() and value.isdigit() and len(value) <= 2):
        raise InvalidInput(
            _("min_length is %(min)s to %(max)s") % {"min": MIN_WORD_LENGTH, "max": MAX_WORD_LENGTH}
        )
    return int(value)


def solved(puzzle: Puzzle) -> Solved:
    """The puzzle's words (kept per process, see the module's note)."""
    key = (puzzle.board.to_text(), puzzle.version_id, puzzle.min_length)
    with _lock:
        found = _kept.get(key)
        if found is not None:
            _kept.move_to_end(key)
            return found
    solution = solve(puzzle.board, puzzle.word_list, puzzle.min_length)
    common = common_words.common_in((found.word for found in solution.words), puzzle.dictionary)
    answer = {
        **_puzzle_dict(puzzle),
        "word_count": len(solution),
        "max_points": solution.total_points,
        "words": [_found_dict(found, common) for found in solution.words],
    }
    result = Solved(solution, common, answer, json.dumps(answer, separators=(",", ":")).encode())
    with _lock:
        _kept[key] = result
        while len(_kept) > MAX_KEPT:
            _kept.popitem(last=False)
    return result


def forget_solutions() -> None:
    """Drop what is kept (tests)."""
    with _lock:
        _kept.clear()


def board_dict(board: Board) -> dict[str, Any]:
    return {
        "board": board.to_text(),
        "rows": board.rows,
        "columns": board.cols,
        "grid": board.grid(),
    }


def _puzzle_dict(puzzle: Puzzle) -> dict[str, Any]:
    return {
        "board": board_dict(puzzle.board),
        "dictionary": puzzle.dictionary,
        "min_length": puzzle.min_length,
    }


def _found_dict(found: FoundWord, common: frozenset[str]) -> dict[str, Any]:
    return {
        "word": found.word,
        "points": found.points,
        "path": list(found.path),
        "common": found.word in common,
    }


def check_players(value: Any) -> list[tuple[str, list[str]]]:
    """A paper game's lists as a client sends them: 1 to MAX_PLAYERS objects ``{"name",
    "words"}``, names told apart regardless of case, at most MAX_WORDS_PER_PLAYER words
    each, every text by the site's rule (``web.text``). InvalidInput names the problem."""
    shape = _("players is a list of 1 to %(count)s objects {name, words}") % {"count": MAX_PLAYERS}
    if not isinstance(value, list) or not value:
        raise InvalidInput(shape)
    if len(value) > MAX_PLAYERS:
        raise InvalidInput(
            _("a paper game has at most %(count)s players; that one has %(given)s")
            % {"count": MAX_PLAYERS, "given": len(value)}
        )
    lists: list[tuple[str, list[str]]] = []
    seen: set[str] = set()
    for index, player in enumerate(value):
        if not isinstance(player, dict) or set(player) - {"name", "words"}:
            raise InvalidInput(shape)
        name = text.check_text(player.get("name"), f"players[{index}].name", MAX_NAME_LENGTH)
        name = " ".join(name.split())
        if not name:
            raise InvalidInput(
                _("every player needs a name (player %(n)s has none)") % {"n": index + 1}
            )
        if name.casefold() in seen:
            raise InvalidInput(
                _("two players are called %(name)r; tell them apart") % {"name": name}
            )
        seen.add(name.casefold())
        words = player.get("words", [])
        if not isinstance(words, list):
            raise InvalidInput(_("%(name)s's words are a list of text") % {"name": name})
        if len(words) > MAX_WORDS_PER_PLAYER:
            raise InvalidInput(
                _("a list has at most %(count)s words; %(name)s's has %(given)s")
                % {"count": MAX_WORDS_PER_PLAYER, "name": name, "given": len(words)}
            )
        for number, word in enumerate(words):
            text.check_text(word, f"players[{index}].words[{number}]", MAX_ENTRY_LENGTH)
        lists.append((name, words))
    return lists


def check_answer(
    puzzle: Puzzle, lists: Sequence[tuple[str, Sequence[str]]], cancel_duplicates: bool
) -> dict[str, Any]:
    """POST /api/solve/check's answer: each list judged, cancelled, scored and ranked, and
    the words nobody wrote."""
    found = solved(puzzle)
    result = check_lists(
        lists,
        puzzle.board,
        puzzle.word_list,
        found.solution,
        puzzle.min_length,
        cancel_duplicates=cancel_duplicates,
    )
    return {
        **_puzzle_dict(puzzle),
        "cancel_duplicates": cancel_duplicates,
        "word_count": len(found.solution),
        "max_points": found.solution.total_points,
        "players": [
            {
                "name": checked.name,
                "points": checked.points,
                "rank": checked.rank,
                "words": [_checked_dict(entry) for entry in checked.words],
            }
            for checked in result.players
        ],
        "missed": [_found_dict(word, found.common) for word in result.missed],
    }


def _checked_dict(entry: CheckedWord) -> dict[str, Any]:
    if entry.accepted:
        reason = None
    elif entry.verdict is Verdict.ALREADY_ENTERED:  # on paper: the same line twice
        reason = _("written twice")
    else:
        reason = verdict_text(entry.verdict)
    return {
        "word": entry.word,
        "verdict": entry.verdict.value,
        "reason": reason,
        "points": entry.points,
        "cancelled": entry.cancelled,
        "path": None if entry.path is None else list(entry.path),
    }
