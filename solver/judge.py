"""The referee: judge one entered word, and score a round's words for every player.

Pure functions over a board and a word list; the Django app adds time, storage and players.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Container, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import TypeVar

from solver.board import BLOCKED, Board
from solver.scoring import word_points
from solver.wordlist import WordList
from solver.wordrules import fold_accents

# Whatever names a player in ``score_round`` (a player id, a nickname).
PlayerKey = TypeVar("PlayerKey", bound=Hashable)

# Longer entries cannot be on any board (36 cells of at most two letters): refuse them
# before doing any work.
MAX_ENTRY_LENGTH = 72


class Verdict(StrEnum):
    """The outcome of judging an entry. Values are stable protocol strings."""

    ACCEPTED = "accepted"
    NOT_A_WORD = "not_a_word"
    TOO_SHORT = "too_short"
    ALREADY_ENTERED = "already_entered"
    NOT_IN_DICTIONARY = "not_in_dictionary"
    NOT_ON_BOARD = "not_on_board"
    OFF_THEME = "off_theme"
    # Chess-clock rounds (games.chess_turns): an entry out of turn, and a word someone
    # already played in the round. Never given by ``judge_entry``.
    NOT_YOUR_TURN = "not_your_turn"
    ALREADY_PLAYED = "already_played"

    @property
    def message(self) -> str:
        return _MESSAGES[self]


_MESSAGES = {
    Verdict.ACCEPTED: "accepted",
    Verdict.NOT_A_WORD: "only letters make a word",
    Verdict.TOO_SHORT: "too short",
    Verdict.ALREADY_ENTERED: "you already have that word",
    Verdict.NOT_IN_DICTIONARY: "not in the dictionary",
    Verdict.NOT_ON_BOARD: "not on the board",
    # The round's theme says which rule (solver.themes.Theme.reason): this is the fallback.
    Verdict.OFF_THEME: "off the round's theme",
    Verdict.NOT_YOUR_TURN: "not your turn",
    Verdict.ALREADY_PLAYED: "someone played that word",
}


@dataclass(frozen=True)
class Judgement:
    """What the referee says about one entry: the normalised word and the verdict."""

    word: str
    verdict: Verdict
    path: tuple[int, ...] | None = None

    @property
    def accepted(self) -> bool:
        return self.verdict is Verdict.ACCEPTED


def compose(entry: str) -> str:
    """The entry trimmed and in NFC: "e" + a combining accent (some keyboards, pastes) is
    the one letter "é", so decomposed and composed input get the same verdict."""
    return unicodedata.normalize("NFC", entry).strip()


def normalise_entry(entry: str, word_list: WordList) -> str:
    """A player's entry in word list form: NFC, trimmed, lower-case, accents folded if the
    word list folds them. Returns "" for entries that are not made of letters."""
    text = compose(entry)
    if not text or len(text) > MAX_ENTRY_LENGTH or not text.isalpha():
        return ""
    # Lower-cased first: a phone's auto-capitalised "Café" is not a proper noun.
    word = word_list.normalise(text.lower())
    if word is None:
        # Dropped by the word list's rules; keep the lower-case (folded) letters so the
        # verdict can still say "too short" or "not in the dictionary".
        word = text.lower()
        if word_list.rules.fold_accents:
            word = fold_accents(word)
    return word


def judge_entry(
    entry: str,
    board: Board,
    word_list: WordList,
    min_length: int,
    already: Container[str] = frozenset(),
    extra_words: Container[str] = frozenset(),
    on_theme: Container[str] | None = None,
) -> Judgement:
    """Judge one entry: letters only, long enough, new for this player, spelled by a path on
    the board, in the dictionary (or accepted by the room: ``extra_words``), and, in a
    themed round, one of the words the theme counts (``on_theme``: the round's themed
    solution, so the check is one look-up), checked in that order."""
    word = normalise_entry(entry, word_list)
    if not word:
        return Judgement(compose(entry)[:MAX_ENTRY_LENGTH].lower(), Verdict.NOT_A_WORD)
    if len(word) < min_length:
        return Judgement(word, Verdict.TOO_SHORT)
    if word in already:
        return Judgement(word, Verdict.ALREADY_ENTERED)
    # The board first: a word the board does not spell (letters not on it, or no path) is
    # not_on_board whatever the dictionary says, so not_in_dictionary always names a word
    # the board spells (the only kind a player may challenge).
    path = find_word_path(board, word)
    if path is None:
        return Judgement(word, Verdict.NOT_ON_BOARD)
    if word not in word_list and word not in extra_words:
        return Judgement(word, Verdict.NOT_IN_DICTIONARY)
    if on_theme is not None and word not in on_theme:
        return Judgement(word, Verdict.OFF_THEME)
    return Judgement(word, Verdict.ACCEPTED, path)


def find_word_path(board: Board, word: str) -> tuple[int, ...] | None:
    """One path of distinct, adjacent cells whose faces spell ``word``, or None."""
    faces, neighbours = board.faces, board.neighbours()
    for start in range(len(faces)):
        found = _path_from(faces, neighbours, word, start, 0, 1 << start)
        if found is not None:
            return found
    return None


def _path_from(
    faces: Sequence[str],
    neighbours: Sequence[Sequence[int]],
    word: str,
    cell: int,
    position: int,
    used: int,
) -> tuple[int, ...] | None:
    """The rest of a path spelling ``word[position:]`` from ``cell`` over cells not in
    ``used`` (a bit per cell). A plain function, not a closure: a closure that calls itself
    is a reference cycle, garbage only the cycle collector frees, and a web process judges
    a thousand words a second."""
    face = faces[cell]
    if face == BLOCKED or not word.startswith(face, position):
        return None
    position += len(face)
    if position == len(word):
        return (cell,)
    for nb in neighbours[cell]:
        if not used & (1 << nb):
            rest = _path_from(faces, neighbours, word, nb, position, used | (1 << nb))
            if rest is not None:
                return (cell, *rest)
    return None


@dataclass(frozen=True)
class ScoredWord:
    """One player's accepted word after the round: its points, or why it scores nothing."""

    word: str
    points: int
    cancelled: bool


def score_round(
    words_by_player: Mapping[PlayerKey, Iterable[str]],
    rows: int,
    cols: int,
    cancel_duplicates: bool = True,
    teams: Mapping[PlayerKey, Hashable] | None = None,
) -> dict[PlayerKey, list[ScoredWord]]:
    """Score every player's accepted words.

    Points follow the length table for the board shape. With ``cancel_duplicates`` (the
    classic rule) a word found by two or more players scores for nobody; with ``teams``
    (player -> team) a word cancels only when players of two or more teams found it, and
    teammates who share a word each score it (a player missing from ``teams`` is a team of
    their own). Each player's list comes back sorted by points (highest first), then
    alphabetically.
    """
    unique = {player: set(words) for player, words in words_by_player.items()}
    side: Mapping[PlayerKey, Hashable] = teams or {}
    finders = Counter(
        word for team_words in _words_by_side(unique, side).values() for word in team_words
    )
    scored: dict[PlayerKey, list[ScoredWord]] = {}
    for player, words in unique.items():
        result = []
        for word in words:
            cancelled = cancel_duplicates and finders[word] > 1
            points = 0 if cancelled else word_points(len(word), rows, cols)
            result.append(ScoredWord(word, points, cancelled))
        result.sort(key=lambda item: (-item.points, item.word))
        scored[player] = result
    return scored


def _words_by_side(
    unique: Mapping[PlayerKey, set[str]], teams: Mapping[PlayerKey, Hashable]
) -> dict[Hashable, set[str]]:
    """The words each side found: a team's players' words together, or a lone player's."""
    sides: dict[Hashable, set[str]] = {}
    for player, words in unique.items():
        key = ("team", teams[player]) if player in teams else ("player", player)
        sides.setdefault(key, set()).update(words)
    return sides
