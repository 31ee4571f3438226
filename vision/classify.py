"""Read die faces from crops, whatever way each die lies.

The model scores joint classes (face, quarter turns). Each crop is also shown to it turned
by 1, 2 and 3 quarter turns and the scores are turned back and averaged (test-time
augmentation), which makes the reading rotation-invariant. Then a board-wide prior on the
turns, estimated from all dice, settles the faces that only differ by a turn (M/W and N/Z
without a bar): on a board where most letters stand upright, an unbarred M-or-W is read the
way that stands it upright too.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.crops import standardise
from vision.faces import BLOCKED, FACE_INDEX, FACES, TURNS
from vision.legibility import WASHED_OUT_CONFIDENCE, washed_out
from vision.runtime import compiled_predict

# Weight of the board's orientation prior (0 turns it off).
PRIOR_STRENGTH = 1.0


@dataclass(frozen=True)
class DieReading:
    """The face read on each die (row by row) and the probability of that reading."""

    faces: list[str]
    confidence: list[float]


class DieClassifier:
    """Wraps the face classifier."""

    def __init__(self, model: object, tta: bool = True) -> None:
        self._predict = compiled_predict(model)
        self.tta = tta

    def joint_probabilities(self, crops: np.ndarray) -> np.ndarray:
        """P(face, turns) per crop: (N, faces, 4), turns relative to the crop as given."""
        turns_tried = range(TURNS) if self.tta else range(1)
        batch = np.concatenate([np.rot90(crops, k, axes=(1, 2)) for k in turns_tried])
        scores = np.asarray(self._predict(standardise(batch)))
        scores = scores.reshape(len(turns_tried), len(crops), len(FACES), TURNS)
        # A crop turned by k shows the glyph at (t + k) turns: roll back by k.
        aligned = [np.roll(scores[k], -k, axis=-1) for k in turns_tried]
        return np.mean(aligned, axis=0)

    def read(self, crops: np.ndarray) -> DieReading:
        """Read every crop of one board (all crops in the same grid frame)."""
        joint = self.joint_probabilities(crops)
        posterior = apply_turn_prior(joint)
        marginal = posterior.sum(axis=-1)
        best = marginal.argmax(axis=-1)
        confidence = marginal[np.arange(len(best)), best]
        # A die whose letter the light has taken is a guess, however sure the model is.
        confidence = np.where(
            washed_out(crops), np.minimum(confidence, WASHED_OUT_CONFIDENCE), confidence
        )
        return DieReading(
            faces=[FACES[index] for index in best],
            confidence=[float(value) for value in confidence],
        )


def apply_turn_prior(joint: np.ndarray, strength: float = PRIOR_STRENGTH) -> np.ndarray:
    """Re-weight P(face, turns) (N, faces, 4) by how the board's other dice are turned.

    The prior for each die leaves that die out, so a die does not vote for itself; blocked
    faces have no orientation and do not vote.
    """
    votes = joint.copy()
    votes[:, FACE_INDEX[BLOCKED]] = 0
    per_die = votes.sum(axis=1)
    per_die /= np.maximum(per_die.sum(axis=1, keepdims=True), 1e-9)
    total = per_die.sum(axis=0, keepdims=True)
    others = total - per_die + 1.0  # Laplace smoothing: one vote for every turn
    prior = (others / others.sum(axis=1, keepdims=True)) ** strength
    posterior = joint * prior[:, None, :]
    return posterior / np.maximum(posterior.sum(axis=(1, 2), keepdims=True), 1e-12)
