"""The dice set's own faces as a check on a board's reading.

A board of a known set is its dice, each at one position showing one of its six faces: the
reading is checked against the likeliest way to put the set's dice on the board (an
assignment of dice to positions that maximises the product, over the positions, of the
probability that the die there shows what the classifier saw). Where the die that the
assignment puts at a position cannot show the face read there:

- the face read is *impossible* when no die of the set shows it (a blank on a board of a
  set without blanks): the die is read as the likeliest face of its die;
- otherwise the board's best assignment with that face is compared with the best one
  without it: when the face read makes the board at least twice less likely (a second "x"
  on a board whose set has one x), the die is corrected; otherwise it stays.

Either way the die is doubtful (the host is asked): the check makes the letter shown more
often right, never a reading confident. A die the classifier read confidently is never
corrected, and a board with more than one such die against the set is taken for a board of
another set: the check leaves it as it was read.

Plain Python and NumPy: the set comes in as faces (``solver.dice.DiceSet.dice``); a set
the reader does not know is not checked.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from vision.confidence import DOUBTFUL_BELOW
from vision.faces import FACE_INDEX, FACES

# The most a die read against the set's assignment (kept, or corrected on weak evidence)
# may claim: below vision.confidence.DOUBTFUL_BELOW, so the host is asked.
AGAINST_THE_SET_CONFIDENCE = 0.6
# A face read against the assignment is corrected when the board's best assignment that
# keeps it is this many times less likely than the best one that does not (natural log).
CORRECT_AT_LOG_ODDS = math.log(2.0)
# More confident readings than this against the set's assignment: the board is not of this
# set (the host chose another, or the dice are mixed), and the check leaves it alone.
MAX_SURE_AGAINST = 1
# Probability floor of a face (a classifier is never certain a face is absent).
FLOOR = 1e-6
# A cost no assignment may pay: the position cannot hold the die.
FORBIDDEN = 1e9


@dataclass(frozen=True)
class CheckedReading:
    """Faces and confidences after the check, and per die what the check did: "" (agrees
    with the set), "impossible" (corrected: no die of the set could show it), "corrected"
    (strong evidence), "doubted" (kept, marked doubtful)."""

    faces: list[str]
    confidence: list[float]
    verdicts: list[str]

    @property
    def changed(self) -> int:
        return sum(verdict in ("impossible", "corrected") for verdict in self.verdicts)


def face_counts(dice: Sequence[Sequence[str]]) -> np.ndarray | None:
    """(dice, faces): how many of each die's six faces show each face; None when a face
    is one the classifier does not read (the set cannot be checked)."""
    counts = np.zeros((len(dice), len(FACES)))
    for index, die in enumerate(dice):
        for face in die:
            if face not in FACE_INDEX:
                return None
            counts[index, FACE_INDEX[face]] += 1.0
    return counts / 6.0


def check(
    probabilities: np.ndarray,
    faces: Sequence[str],
    confidence: Sequence[float],
    dice: Sequence[Sequence[str]],
) -> CheckedReading:
    """Check a board's reading against its set's ``dice``.

    ``probabilities`` (positions, FACES): what the classifier (with the set's memory) gives
    each face at each position, row by row; ``faces`` and ``confidence`` the reading made
    of them. A set of another size, or with a face the classifier does not read, leaves the
    reading as it is."""
    unchanged = CheckedReading(
        list(faces), [float(value) for value in confidence], [""] * len(faces)
    )
    counts = face_counts(dice)
    if counts is None or len(dice) != len(faces):
        return unchanged
    likelihood = np.maximum(probabilities, FLOOR) @ counts.T  # (positions, dice)
    costs = -np.log(likelihood)
    best_dice, best_cost = assign(costs)
    out_faces, out_confidence, verdicts = (
        list(faces),
        list(unchanged.confidence),
        list(unchanged.verdicts),
    )
    sure_against = 0  # confident readings the set's assignment contradicts
    for position, die in enumerate(best_dice):
        shown = np.maximum(probabilities[position], FLOOR) * counts[die]
        face_of_die = int(shown.argmax())
        read = FACE_INDEX.get(faces[position])
        if read is None or read == face_of_die:
            continue
        # Whatever the check decides, the host is asked about this die.
        out_confidence[position] = min(out_confidence[position], AGAINST_THE_SET_CONFIDENCE)
        if confidence[position] >= DOUBTFUL_BELOW:
            # The classifier is sure: the set may be another than the board's. Ask.
            sure_against += 1
            verdicts[position] = "doubted"
            continue
        forced = costs.copy()
        forced[position, counts[:, read] <= 0] = FORBIDDEN  # only dice that show it
        _, cost_with_read = assign(forced)
        if cost_with_read >= FORBIDDEN:
            verdicts[position] = "impossible"
        elif cost_with_read - best_cost >= CORRECT_AT_LOG_ODDS:
            verdicts[position] = "corrected"
        else:
            verdicts[position] = "doubted"
            continue
        out_faces[position] = FACES[face_of_die]
    if sure_against > MAX_SURE_AGAINST:
        return unchanged  # not a board of this set: the check says nothing
    return CheckedReading(out_faces, out_confidence, verdicts)


def assign(costs: np.ndarray) -> tuple[list[int], float]:
    """The assignment of columns (dice) to rows (positions) of least total cost, square
    ``costs``: the Hungarian method with potentials, O(n^3) (n is at most 36 here).
    Returns each row's column and the total cost."""
    n = len(costs)
    u, v = np.zeros(n + 1), np.zeros(n + 1)
    owner = np.zeros(n + 1, dtype=int)  # column -> its row (1-based; 0: none)
    way = np.zeros(n + 1, dtype=int)
    for row in range(1, n + 1):
        owner[0] = row
        column = 0
        least = np.full(n + 1, np.inf)
        used = np.zeros(n + 1, dtype=bool)
        while True:
            used[column] = True
            current = owner[column]
            reduced = costs[current - 1] - u[current] - v[1:]
            free = ~used[1:]
            better = free & (reduced < least[1:])
            least[1:][better] = reduced[better]
            way[1:][better] = column
            candidates = np.where(free, least[1:], np.inf)
            next_column = int(candidates.argmin()) + 1
            delta = candidates[next_column - 1]
            u[owner[used]] += delta
            v[used] -= delta
            least[1:][free] -= delta
            column = next_column
            if owner[column] == 0:
                break
        while column:
            previous = way[column]
            owner[column] = owner[previous]
            column = previous
    columns = [0] * n
    for column in range(1, n + 1):
        columns[owner[column] - 1] = column - 1
    total = float(sum(costs[row, columns[row]] for row in range(n)))
    return columns, total


def check_against_any(
    probabilities: np.ndarray,
    faces: Sequence[str],
    confidence: Sequence[float],
    candidates: Sequence[Sequence[Sequence[str]]],
) -> CheckedReading:
    """Check a reading against a set that is one of ``candidates`` (each a set's dice; the
    sets a room's confirmed boards all fit): a die is corrected only where every candidate
    corrects it to the same face, and doubtful where any doubts it."""
    results = [check(probabilities, faces, confidence, dice) for dice in candidates]
    if not results:
        return CheckedReading(
            list(faces), [float(value) for value in confidence], [""] * len(faces)
        )
    out_faces, out_confidence, verdicts = [], [], []
    for position, read in enumerate(faces):
        proposed = {result.faces[position] for result in results}
        agreed = proposed.pop() if len(proposed) == 1 else read
        out_faces.append(agreed)
        out_confidence.append(min(result.confidence[position] for result in results))
        said = [result.verdicts[position] for result in results if result.verdicts[position]]
        if agreed != read:
            verdicts.append(said[0])
        else:
            verdicts.append("doubted" if said else "")
    return CheckedReading(out_faces, out_confidence, verdicts)
