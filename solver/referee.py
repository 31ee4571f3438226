"""The referee of a game played on paper: each player's written list judged against the
board and the dictionary, words two players wrote cancelled, the lists scored and ranked,
and the board's words that nobody wrote.

The verdicts are the game's (``solver.judge``), in the order a round judges an entry, with
one difference that paper needs: a word its writer wrote twice is ``already_entered`` the
second time whatever the first copy's verdict, since on paper it is the same line twice.
Pure functions over a board, a word list and the board's solution; no Django.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Container, Sequence
from dataclasses import dataclass

from solver.board import Board
from solver.judge import Verdict, judge_entry, normalise_entry
from solver.scoring import word_points
from solver.solve import FoundWord, Solution
from solver.wordlist import WordList

# A judgement the room's rules may add after the game's own (a themed room's off_theme):
# given an accepted word, the verdict that replaces ``accepted``, or None to keep it.
ExtraRule = Callable[[str], Verdict | None]


@dataclass(frozen=True)
class CheckedWord:
    """One line of a player's list: the word as judged (lower-case, accents folded as the
    dictionary folds them), its verdict, its points, and whether another list cancels it."""

    word: str
    verdict: Verdict
    points: int = 0
    cancelled: bool = False
    path: tuple[int, ...] | None = None

    @property
    def accepted(self) -> bool:
        return self.verdict is Verdict.ACCEPTED


@dataclass(frozen=True)
class CheckedList:
    """A player's list after the check: ``rank`` 1 for the most points (equal points share
    a rank, the next rank skipping as many: 1, 1, 3)."""

    name: str
    points: int
    rank: int
    words: tuple[CheckedWord, ...]


@dataclass(frozen=True)
class PaperResult:
    """Every list, ranked (most points first; equal points in the order they were given),
    and the board's words nobody had accepted, as the solution orders them."""

    players: tuple[CheckedList, ...]
    missed: tuple[FoundWord, ...]


def check_lists(
    lists: Sequence[tuple[str, Sequence[str]]],
    board: Board,
    word_list: WordList,
    solution: Solution,
    min_length: int,
    *,
    cancel_duplicates: bool = True,
    extra_words: Container[str] = frozenset(),
    extra_rule: ExtraRule | None = None,
) -> PaperResult:
    """Judge, cancel, score and rank ``lists`` (name, words as written); blank lines are
    skipped. ``solution``: the board's words in ``word_list`` of ``min_length`` letters and
    more (``solver.solve``), whose unwritten words are ``missed``. ``extra_words`` count as
    in the dictionary (a room's house words); ``extra_rule`` may refuse an accepted word."""
    judged = [
        (name, _judge_list(words, board, word_list, min_length, extra_words, extra_rule))
        for name, words in lists
    ]
    writers = Counter(
        word for _, checked in judged for word in {c.word for c in checked if c.accepted}
    )
    scored = []
    for name, checked in judged:
        words = tuple(
            _score(entry, board, cancel_duplicates and writers[entry.word] > 1) for entry in checked
        )
        scored.append((name, sum(entry.points for entry in words), words))
    ranked = sorted(scored, key=lambda item: -item[1])  # stable: equal points keep their order
    players = tuple(
        CheckedList(name, points, 1 + sum(other[1] > points for other in ranked), words)
        for name, points, words in ranked
    )
    missed = tuple(found for found in solution.words if found.word not in writers)
    return PaperResult(players, missed)


def _judge_list(
    words: Sequence[str],
    board: Board,
    word_list: WordList,
    min_length: int,
    extra_words: Container[str],
    extra_rule: ExtraRule | None,
) -> list[CheckedWord]:
    written: set[str] = set()
    checked = []
    for entry in words:
        if not entry.strip():
            continue
        word = normalise_entry(entry, word_list)
        if word and word in written:
            checked.append(CheckedWord(word, Verdict.ALREADY_ENTERED))
            continue
        judgement = judge_entry(entry, board, word_list, min_length, extra_words=extra_words)
        verdict = judgement.verdict
        if judgement.accepted and extra_rule is not None:
            verdict = extra_rule(judgement.word) or verdict
        written.add(judgement.word)
        path = judgement.path if verdict is Verdict.ACCEPTED else None
        checked.append(CheckedWord(judgement.word, verdict, path=path))
    return checked


def _score(entry: CheckedWord, board: Board, cancelled: bool) -> CheckedWord:
    if not entry.accepted:
        return entry
    points = 0 if cancelled else word_points(len(entry.word), board.rows, board.cols)
    return CheckedWord(entry.word, entry.verdict, points, cancelled, entry.path)
