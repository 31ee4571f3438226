"""What a dice set's memory may do to a reading (issue 48, dice-set poisoning): overrule
the classifier only as a doubt the host checks, and never make a die confident with
exemplars that contradict the classifier's own confident reading (contested).

The classifier here is a stand-in whose scores and features are set per die (each crop is
one grey level, its identity), so the rules are tested exactly, without the models.
"""

from __future__ import annotations

import numpy as np

from vision.classify import DieClassifier
from vision.confidence import DOUBTFUL_BELOW
from vision.faces import FACE_INDEX, FACES, TURNS
from vision.memory import SetMemory, contradicts

CHANNELS = 16


class StandInClassifier(DieClassifier):
    """``scores[level]``: P(face) of a crop of that grey level (spread over the turns; the
    rest spread over every face); its features: one channel per level, so crops of one
    level look alike and crops of others not at all."""

    def __init__(self, scores: dict[int, dict[str, float]]) -> None:
        self.tta = True
        self.prototypes = None
        self._exemplars = {}
        self.table = scores

    def _outputs(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        probabilities = np.zeros((len(crops), len(FACES), TURNS))
        maps = np.zeros((len(crops), 2, 2, CHANNELS))
        for index, crop in enumerate(crops):
            level = int(crop[0, 0])
            scores = self.table[level]
            rest = (1 - sum(scores.values())) / len(FACES)
            probabilities[index] = rest / TURNS
            for face, value in scores.items():
                probabilities[index, FACE_INDEX[face]] += value / TURNS
            maps[index, :, :, level % CHANNELS] = 1.0
        return probabilities.reshape(len(crops), -1), maps


def dice(*levels: int) -> np.ndarray:
    return np.stack([np.full((32, 32), level, np.uint8) for level in levels])


def test_a_die_the_memory_reads_otherwise_than_the_classifier_is_doubtful():
    """The classifier reads "o" at 0.99; the set remembers dice just like it as "qu"
    (uncontested: a plain Q printed for Qu). The memory's face is offered, never as a
    confident reading: the host is asked (before issue 48: "qu" at 0.99)."""
    classifier = StandInClassifier({100: {"o": 0.99}})
    memory = SetMemory(dice(100, 100, 100), ("qu", "qu", "qu"))
    reading = classifier.read(dice(100), memory)
    assert reading.faces == ["qu"]
    assert reading.confidence[0] < DOUBTFUL_BELOW
    assert (reading.unaided_faces, reading.unaided_confidence[0] > 0.98) == (["o"], True)


def test_contested_exemplars_never_make_a_die_confident_on_their_own():
    """The classifier is unsure ("e" at 0.6); the set's only "e" dice like it are
    contested: the die stays doubtful. The same exemplars uncontested make it confident."""
    classifier = StandInClassifier({100: {"e": 0.6, "c": 0.3}})
    contested = SetMemory(dice(100, 100), ("e", "e"), (True, True))
    reading = classifier.read(dice(100), contested)
    assert reading.faces == ["e"] and reading.confidence[0] < DOUBTFUL_BELOW
    trusted = SetMemory(dice(100, 100), ("e", "e"))
    assert classifier.read(dice(100), trusted).confidence[0] >= DOUBTFUL_BELOW


def test_a_die_unlike_the_memory_reads_as_the_classifier_alone():
    classifier = StandInClassifier({100: {"t": 0.97}, 7: {"a": 0.99}})
    memory = SetMemory(dice(7, 7), ("x", "x"), (True, False))
    reading = classifier.read(dice(100), memory)
    alone = classifier.read(dice(100))
    assert reading.faces == alone.faces == ["t"]
    assert reading.confidence[0] >= DOUBTFUL_BELOW


def test_an_exemplar_is_contested_when_it_contradicts_a_confident_reading():
    assert contradicts("x", "a", 0.99)
    assert contradicts("x", "a", DOUBTFUL_BELOW)
    assert not contradicts("x", "a", DOUBTFUL_BELOW - 0.01)  # the reader was not sure
    assert not contradicts("a", "a", 0.99)


def test_contested_exemplars_have_their_own_bound():
    """A host relabelling dice fills the contested bound, never pushing out the face's
    uncontested dice."""
    from vision.memory import MAX_PER_FACE

    memory = SetMemory().added(dice(*range(MAX_PER_FACE)), ["e"] * MAX_PER_FACE)
    memory = memory.added(
        dice(*range(50, 50 + 2 * MAX_PER_FACE)), ["e"] * 2 * MAX_PER_FACE, [True] * 2 * MAX_PER_FACE
    )
    assert memory.contested.count(False) == MAX_PER_FACE
    assert memory.contested.count(True) == MAX_PER_FACE
    assert int(memory.crops[memory.contested.index(True), 0, 0]) == 50 + MAX_PER_FACE  # newest
