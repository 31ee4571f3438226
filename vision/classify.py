"""Read die faces from crops, whatever way each die lies, and say how sure the reading is.

The model scores joint classes (face, quarter turns). Each crop is also shown to it turned
by 1, 2 and 3 quarter turns and the scores are turned back and averaged (test-time
augmentation), which makes the reading rotation-invariant. Then a board-wide prior on the
turns, estimated from all dice, settles the faces that only differ by a turn (M/W and N/Z
without a bar): on a board where most letters stand upright, an unbarred M-or-W is read the
way that stands it upright too.

Beside its scores the model's last hidden layer describes each crop. Two things use it:

- typicality: a die whose embedding (the layer averaged over the crop) is far from the
  training dice of the face it was read as (``vision.typicality``) is a face the model has
  not learnt, however sure its scores look: it is reported as doubtful rather than read
  confidently wrong;
- the dice set's memory (``vision.memory``): each die's features (the layer averaged over
  the crop's quarters) are compared with the exemplars the host confirmed, and the
  resemblance updates the classifier's probabilities (``vision.memory.Recall``): a die like
  a confirmed face's dice leans to it, a die unlike them leans away.

What a host confirms is not evidence enough to overrule the classifier: a die the memory
reads as another face than the classifier alone is doubtful (the host is asked), however
sure the memory is; and a die is never more confident than the memory's uncontested
exemplars alone make it (``vision.memory.contradicts``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from vision.crops import standardise
from vision.faces import BLOCKED, FACE_INDEX, FACES, TURNS
from vision.legibility import WASHED_OUT_CONFIDENCE, washed_out
from vision.memory import DOUBTED_CONFIDENCE, SETTLED, SetMemory, recall, thresholds
from vision.polarity import dark_on_light, light_letter_share
from vision.runtime import compiled_predict
from vision.typicality import ATYPICAL_CONFIDENCE, FacePrototypes

# Weight of the board's orientation prior (0 turns it off).
PRIOR_STRENGTH = 1.0
# A board whose share of dice with light letters (``vision.polarity``) is this close to half
# is read both ways round and the reading the classifier is surer of kept: on blurred
# photos of dark-lettered dice the share reached 0.56 (bench/vision.py, docs/photos.md).
POLARITY_DOUBT = 0.25


@dataclass(frozen=True)
class DieReading:
    """The face read on each die (row by row) and the probability of that reading; and what
    the classifier alone read (``unaided_faces``, ``unaided_confidence``: the same as
    ``faces`` and ``confidence`` without a memory; empty when not told)."""

    faces: list[str]
    confidence: list[float]
    unaided_faces: list[str] = field(default_factory=list)
    unaided_confidence: list[float] = field(default_factory=list)
    # (dice, FACES): the probability of each face on each die that the reading was made of
    # (the classifier's, with the memory's when read with one); None when not told.
    probabilities: np.ndarray | None = None


@dataclass(frozen=True)
class Scores:
    """The model's view of N crops: ``joint`` P(face, turns) (N, faces, 4), turns relative
    to the crop as given; ``embeddings`` (k, N, D) of each crop turned by k quarter turns
    (k = 0..3, or 0 alone without test-time augmentation): the last hidden layer averaged
    over the crop; ``features`` (k, N, 4D) the same layer averaged over the crop's four
    quarters, which keeps where the strokes are (what tells a set's I from its H). Unit
    length both."""

    joint: np.ndarray
    embeddings: np.ndarray
    features: np.ndarray


def with_feature_map(model: Any) -> Any:
    """The classifier with its last hidden layer's map (the global pool's input) as a
    second output."""
    import keras

    pool = next(
        layer for layer in model.layers if isinstance(layer, keras.layers.GlobalAveragePooling2D)
    )
    return keras.Model(model.inputs, [model.outputs[0], pool.input])


def unit(vectors: np.ndarray) -> np.ndarray:
    return vectors / np.maximum(np.linalg.norm(vectors, axis=-1, keepdims=True), 1e-9)


def pooled(maps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """From feature maps (N, H, W, C): the unit global average (N, C) and the unit
    averages of the four quarters, side by side (N, 4C)."""
    count, height, width, channels = maps.shape
    quarters = maps.reshape(count, 2, height // 2, 2, width // 2, channels).mean(axis=(2, 4))
    return unit(maps.mean(axis=(1, 2))), unit(quarters.reshape(count, -1))


class DieClassifier:
    """Wraps the face classifier."""

    def __init__(
        self, model: object, tta: bool = True, prototypes: FacePrototypes | None = None
    ) -> None:
        self._predict = compiled_predict(with_feature_map(model))
        self.tta = tta
        self.prototypes = prototypes
        # Embeddings of the exemplars of the memories read with lately (a set's memory is
        # the same object from one photo to the next until its host confirms another board).
        self._exemplars: dict[int, tuple[SetMemory, np.ndarray, np.ndarray, np.ndarray]] = {}

    def _outputs(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The model's (probabilities, feature maps) for crops (N, size, size) uint8."""
        probabilities, maps = cast(Sequence[Any], self._predict(standardise(crops)))
        return np.asarray(probabilities), np.asarray(maps)

    def scores(self, crops: np.ndarray) -> Scores:
        """The model's scores, embeddings and features for ``crops`` (N, size, size) uint8."""
        turns_tried = range(TURNS) if self.tta else range(1)
        batch = np.concatenate([np.rot90(crops, k, axes=(1, 2)) for k in turns_tried])
        probabilities, maps = self._outputs(batch)
        scores = probabilities.reshape(len(turns_tried), len(crops), len(FACES), TURNS)
        # A crop turned by k shows the glyph at (t + k) turns: roll back by k.
        aligned = [np.roll(scores[k], -k, axis=-1) for k in turns_tried]
        embeddings, features = pooled(maps)
        return Scores(
            np.mean(aligned, axis=0),
            embeddings.reshape(len(turns_tried), len(crops), -1),
            features.reshape(len(turns_tried), len(crops), -1),
        )

    def joint_probabilities(self, crops: np.ndarray) -> np.ndarray:
        """P(face, turns) per crop: (N, faces, 4), turns relative to the crop as given."""
        return self.scores(crops).joint

    def _letters_dark(self, crops: np.ndarray) -> tuple[np.ndarray, Scores]:
        """The board's crops with dark letters (the whole board turned over, or not) and
        their scores."""
        share = light_letter_share(crops) if len(crops) else 0.0
        ways = [share > 0.5] if abs(share - 0.5) >= POLARITY_DOUBT else [False, True]
        readings = []
        for turned_over in ways:
            seen = 255 - crops if turned_over else crops
            scores = self.scores(seen)
            sure = apply_turn_prior(scores.joint).sum(axis=-1).max(axis=-1).mean()
            readings.append((float(sure), seen, scores))
        _, seen, scores = max(readings, key=lambda reading: reading[0])
        return seen, scores

    def exemplar_features(self, memory: SetMemory) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The features of each exemplar of ``memory`` turned by 0..3 quarter turns
        (M, 4, D), the memory's thresholds (``vision.memory.thresholds``) and those of its
        uncontested exemplars alone; kept for the memories read with lately (a set's memory
        is the same object from one photo to the next until its host confirms another
        board)."""
        cached = self._exemplars.get(id(memory))
        if cached is not None and cached[0] is memory:
            return cached[1], cached[2], cached[3]
        crops = dark_on_light(memory.crops)
        batch = np.concatenate([np.rot90(crops, k, axes=(1, 2)) for k in range(TURNS)])
        _, features = pooled(self._outputs(batch)[1])
        vectors = features.reshape(TURNS, len(crops), -1).transpose(1, 0, 2)
        limits = thresholds(vectors, memory.faces)
        trusted = memory.trusted()
        trusted_limits = thresholds(
            vectors[trusted],
            [face for face, keep in zip(memory.faces, trusted, strict=True) if keep],
        )
        if len(self._exemplars) >= 8:  # a few sets at once at most: keep it small
            self._exemplars.clear()
        self._exemplars[id(memory)] = (memory, vectors, limits, trusted_limits)
        return vectors, limits, trusted_limits

    def read(self, crops: np.ndarray, memory: SetMemory | None = None) -> DieReading:
        """Read every crop of one board (all crops in the same grid frame), with the dice
        set's ``memory`` when given."""
        crops, scores = self._letters_dark(crops)
        posterior = apply_turn_prior(scores.joint)
        classifier_best = posterior.sum(axis=-1).argmax(axis=-1)
        typical = np.ones(len(crops), bool)
        if self.prototypes is not None:
            upright = upright_embeddings(scores, posterior, classifier_best)
            typical = self.prototypes.typical(upright, classifier_best)
        unaided = posterior.sum(axis=-1)
        rows = np.arange(len(classifier_best))
        # A face the model has not learnt is a guess, however sure the scores look; a die
        # whose letter the light has taken is a guess, whatever it resembles.
        washed = washed_out(crops)
        unaided_confidence = _capped(unaided[rows, classifier_best], ~typical, washed)
        if memory is None or not len(memory):
            faces = [FACES[index] for index in classifier_best]
            values = [float(value) for value in unaided_confidence]
            return DieReading(faces, values, faces, values, unaided)
        exemplars, limits, trusted_limits = self.exemplar_features(memory)
        recalled = recall(scores.features, exemplars, memory.faces, limits)
        marginal = recalled.posterior(unaided)
        remembered = recalled.remembered() * (recalled.similarity > -1)
        # The same without the contested exemplars: what the set vouches for on its own.
        trusted = memory.trusted()
        trusted_marginal, trusted_remembered = unaided, np.zeros_like(unaided)
        if trusted.any():
            faces_kept = [face for face, keep in zip(memory.faces, trusted, strict=True) if keep]
            by_trusted = recall(scores.features, exemplars[trusted], faces_kept, trusted_limits)
            trusted_marginal = by_trusted.posterior(unaided)
            trusted_remembered = by_trusted.remembered() * (by_trusted.similarity > -1)
        best = marginal.argmax(axis=-1)
        # Contested exemplars never make a die confident on their own: no more sure than the
        # uncontested ones alone make it of the same face.
        confidence = np.minimum(marginal[rows, best], trusted_marginal[rows, best])
        vouched = trusted_remembered[rows, best] >= 0.5  # like confirmed dice of that face
        # The memory overruled the classifier: the host is asked, however sure it is. Where
        # the memory is not sure of it alone and the die looks like the training dice of
        # the classifier's face, that face stays (a blurred t is like a set's f more than
        # it should be).
        overruled = best != classifier_best
        unsettled = overruled & (remembered[rows, best] < SETTLED)
        best = np.where(unsettled & typical, classifier_best, best)
        confidence = np.where(overruled, np.minimum(confidence, DOUBTED_CONFIDENCE), confidence)
        confidence = _capped(confidence, ~typical & (best == classifier_best) & ~vouched, washed)
        return DieReading(
            faces=[FACES[index] for index in best],
            confidence=[float(value) for value in confidence],
            unaided_faces=[FACES[index] for index in classifier_best],
            unaided_confidence=[float(value) for value in unaided_confidence],
            probabilities=marginal,
        )


def _capped(confidence: np.ndarray, atypical: np.ndarray, washed: np.ndarray) -> np.ndarray:
    """``confidence`` no higher than a guess's where a die is ``atypical`` (a face the
    model has not learnt) or ``washed`` out (its letter taken by the light)."""
    confidence = np.where(atypical, np.minimum(confidence, ATYPICAL_CONFIDENCE), confidence)
    return np.where(washed, np.minimum(confidence, WASHED_OUT_CONFIDENCE), confidence)


def upright_embeddings(scores: Scores, posterior: np.ndarray, best: np.ndarray) -> np.ndarray:
    """(N, D): each crop's embedding turned so its glyph stands upright, by the turn the
    reading gives its face (the crop as given without test-time augmentation)."""
    turns = posterior[np.arange(len(best)), best].argmax(axis=-1)
    if len(scores.embeddings) < TURNS:
        return scores.embeddings[0]
    # A glyph at t turns stands upright once turned by -t more.
    return scores.embeddings[(-turns) % TURNS, np.arange(len(best))]


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
