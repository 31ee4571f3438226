"""What the reader remembers of one dice set: its dice as they were confirmed.

Each time a host corrects and confirms a board read from a photo, every die of that photo is
a labelled example of the group's own set: its crop (as ``vision.crops.cut_dice`` cuts it,
in the grid's frame, the letter in any quarter turn) and the face the host confirmed.
``SetMemory`` holds those exemplars, a bounded number per face (the newest kept), and
``vision.classify.DieClassifier`` reads a board with them: a face the classifier never saw
(a plain "Q" meaning Qu, a letter with a bar, another font, colour or material) is read
right after one or two confirmations.

A memory is plain data (crops and faces): the site keeps it in its database, the command
line in a folder (``save`` / ``load``). Nothing is trained: reading with a memory compares
the classifier's embedding of each die with the exemplars' (``vision.classify``).

An exemplar whose confirmed face contradicts what the classifier alone read confidently on
its crop (``contradicts``) is *contested*: a host relabelling dice on purpose, or a face the
classifier truly does not know (a plain "Q" meaning Qu). Contested exemplars are kept apart
(their own bound per face) and never make a die confident on their own
(``vision.classify.DieClassifier.read``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt

from vision.confidence import DOUBTFUL_BELOW
from vision.crops import cut_dice
from vision.faces import FACE_INDEX, FACES, TURNS
from vision.lattice import grid_from_corners
from vision.loading import WORK_SIDE, ImageSource, load_photo
from vision.nets import CLASSIFIER_INPUT

# Exemplars kept per face: enough for the ways one face prints and lies on a set's dice
# (a set has up to six dice showing the same letter), few enough that a set stays small
# (32 faces x 8 x 1 KB crops) and reading with it fast.
MAX_PER_FACE = 8
CROPS_FILE = "crops.npy"
FACES_FILE = "faces.json"
CONTESTED_FILE = "contested.json"
# The memory reads a die as the remembered face it resembles most, or as "a face it does not
# remember": each remembered face scores SHARPNESS * its best similarity, "not remembered"
# SHARPNESS * UNREMEMBERED, and the scores make probabilities (a softmax). The same face's
# best exemplar is at 0.94 in the median on sets the classifier never saw, another face's
# at 0.70, rarely over 0.86 (``vision.evaluate``'s sets).
SHARPNESS = 80.0
UNREMEMBERED = 0.86
# ... or this much above the most another face's exemplar resembles the face's exemplars.
OTHER_FACE_MARGIN = 0.02
# Being unlike a face's exemplars counts against the face by at most e ** UNLIKE_CAP.
UNLIKE_CAP = 3.0
# On a set it never saw the classifier can be sure and wrong (a plain "Q" read as "o" at
# 0.999): its probabilities count for no more than these odds to one against the memory.
CLASSIFIER_ODDS = 1e3
# The memory settles a reading against the classifier when it is at least this sure.
SETTLED = 0.99
# What a reading the memory overruled without settling it may claim (below
# vision.confidence.DOUBTFUL_BELOW): the host is asked.
DOUBTED_CONFIDENCE = 0.6


@dataclass(frozen=True)
class SetMemory:
    """Exemplars of one dice set: ``crops`` (N, 32, 32) uint8, their ``faces`` and which
    are ``contested`` (empty: none)."""

    crops: np.ndarray = field(
        default_factory=lambda: np.zeros((0, CLASSIFIER_INPUT, CLASSIFIER_INPUT), np.uint8)
    )
    faces: tuple[str, ...] = ()
    contested: tuple[bool, ...] = ()

    def __post_init__(self) -> None:
        crops = np.asarray(self.crops)
        if crops.ndim != 3 or crops.shape[1:] != (CLASSIFIER_INPUT, CLASSIFIER_INPUT):
            raise ValueError(f"crops must be (N, {CLASSIFIER_INPUT}, {CLASSIFIER_INPUT})")
        if len(crops) != len(self.faces):
            raise ValueError("one face per crop")
        contested = tuple(bool(flag) for flag in self.contested) or (False,) * len(self.faces)
        if len(contested) != len(self.faces):
            raise ValueError("one contested flag per crop")
        unknown = sorted({face for face in self.faces if face not in FACE_INDEX})
        if unknown:
            raise ValueError(f"unknown faces {unknown}")
        object.__setattr__(self, "crops", crops.astype(np.uint8, copy=False))
        object.__setattr__(self, "faces", tuple(self.faces))
        object.__setattr__(self, "contested", contested)

    def __len__(self) -> int:
        return len(self.faces)

    def trusted(self) -> np.ndarray:
        """(N,) bool: the exemplars that are not contested."""
        return ~np.array(self.contested, bool)

    def added(
        self, crops: np.ndarray, faces: Sequence[str], contested: Sequence[bool] = ()
    ) -> SetMemory:
        """This memory with more exemplars (``contested`` flags, none by default), the newest
        ``MAX_PER_FACE`` of each face kept, contested and not apart (``kept``)."""
        all_crops = np.concatenate([self.crops, np.asarray(crops, np.uint8)])
        all_faces = [*self.faces, *faces]
        all_contested = [*self.contested, *(contested or (False,) * len(faces))]
        keep = kept(all_faces, all_contested)
        return SetMemory(
            all_crops[keep],
            tuple(all_faces[i] for i in keep),
            tuple(all_contested[i] for i in keep),
        )

    def save(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        np.save(folder / CROPS_FILE, self.crops)
        (folder / FACES_FILE).write_text(json.dumps(list(self.faces)), encoding="utf-8")
        (folder / CONTESTED_FILE).write_text(json.dumps(list(self.contested)), encoding="utf-8")

    @classmethod
    def load(cls, folder: Path) -> SetMemory:
        """The memory saved in ``folder``; an empty one where nothing was saved yet (a
        folder saved before contested exemplars existed has none)."""
        if not (folder / FACES_FILE).is_file():
            return cls()
        faces = json.loads((folder / FACES_FILE).read_text(encoding="utf-8"))
        contested_path = folder / CONTESTED_FILE
        contested = (
            json.loads(contested_path.read_text(encoding="utf-8"))
            if contested_path.is_file()
            else []
        )
        return cls(np.load(folder / CROPS_FILE, allow_pickle=False), tuple(faces), tuple(contested))


def kept(faces: Sequence[str], contested: Sequence[bool]) -> list[int]:
    """The indices (ascending) of the exemplars a memory keeps, given oldest first: the
    newest ``MAX_PER_FACE`` of each face among the uncontested, and as many among the
    contested, so that contested exemplars never push out a face's others."""
    keep: list[int] = []
    seen: dict[tuple[str, bool], int] = {}
    for index in range(len(faces) - 1, -1, -1):  # newest first
        key = (faces[index], bool(contested[index]))
        if seen.get(key, 0) < MAX_PER_FACE:
            seen[key] = seen.get(key, 0) + 1
            keep.append(index)
    keep.sort()
    return keep


def contradicts(face: str, unaided_face: str, unaided_confidence: float) -> bool:
    """Whether a confirmed ``face`` contradicts what the classifier alone read on the same
    crop (``unaided_face`` at ``unaided_confidence``): another face, read confidently (at
    or above ``vision.confidence.DOUBTFUL_BELOW``, where its readings are nearly always
    right). Such an exemplar is contested."""
    return face != unaided_face and unaided_confidence >= DOUBTFUL_BELOW


def board_crops(source: ImageSource, corners: npt.ArrayLike, rows: int, cols: int) -> np.ndarray:
    """Every die's crop, row by row, of the board whose outer corners (full-size photo
    pixels, clockwise from the top left) are ``corners``: what a confirmed board adds to
    its set's memory (``BoardReading.corners`` says where the board was read)."""
    photo = load_photo(source, work_side=WORK_SIDE)
    grid = grid_from_corners(photo.from_full(np.asarray(corners, np.float64)), rows, cols)
    return cut_dice(photo.pixels, grid)


@dataclass(frozen=True)
class Recall:
    """How much each die resembles the memory's exemplars of each face: ``similarity``
    (N, faces), the best cosine over a face's exemplars and their relative turns; -1 for
    faces the memory has no exemplar of."""

    similarity: np.ndarray
    # (faces,): how similar a die must be to a remembered face's exemplars to be taken for
    # that face rather than for one not remembered (see ``recall``).
    threshold: np.ndarray

    def remembered(self) -> np.ndarray:
        """(N, faces): the memory's own probability of each face: for remembered faces,
        the softmax share of their scores; every other face gets the share of "a face not
        remembered" (the memory cannot tell those apart)."""
        known = self.similarity > -1
        # A die unlike the exemplars of a face may still show it (another die of the set
        # with that letter, a blurred photo): that counts against the face, boundedly.
        scores = SHARPNESS * (self.similarity - self.threshold)
        scores = np.where(known, np.maximum(scores, -UNLIKE_CAP), -np.inf)
        unremembered = np.zeros((len(scores), 1))
        top = np.maximum(scores.max(axis=1, keepdims=True), unremembered)
        weights = np.exp(scores - top)
        other = np.exp(unremembered - top)
        total = weights.sum(axis=1, keepdims=True) + other
        return np.where(known, weights / total, other / total)

    def posterior(self, marginal: np.ndarray) -> np.ndarray:
        """The classifier's P(face) per die (N, faces) combined with the memory's: a die
        like a confirmed face's dice leans to it, a die unlike every confirmed die leans to
        the faces not remembered, as the classifier ranks them."""
        logits = np.log(np.maximum(marginal, 1 / CLASSIFIER_ODDS))
        logits = logits + np.log(np.maximum(self.remembered(), 1e-300))
        logits -= logits.max(axis=1, keepdims=True)
        weights = np.exp(logits)
        return weights / weights.sum(axis=1, keepdims=True)


def thresholds(exemplars: np.ndarray, faces: Sequence[str]) -> np.ndarray:
    """(faces,): how similar a die must be to a face's exemplars (``exemplars`` (M, 4, D),
    ``faces`` (M,)) to be taken for that face: ``UNREMEMBERED``, or more where the set's
    dice of different faces look more alike than that (a blurred set, a font whose t is
    nearly its f): a die is that face's only when it is more like its exemplars than
    another face's exemplars are. Computed once per memory (``vision.classify``)."""
    threshold = np.full(len(FACES), UNREMEMBERED)
    if len(faces) == 0:
        return threshold
    index = np.array([FACE_INDEX[face] for face in faces])
    between = _best_turn_similarity(exemplars.transpose(1, 0, 2), exemplars)
    for column in np.unique(index):
        others = between[index == column][:, index != column]
        if others.size:
            threshold[column] = max(UNREMEMBERED, float(others.max()) + OTHER_FACE_MARGIN)
    return threshold


def recall(
    queries: np.ndarray, exemplars: np.ndarray, faces: Sequence[str], threshold: np.ndarray
) -> Recall:
    """Compare dice with a memory's exemplars.

    ``queries`` (K, N, D): each die's unit features turned by k = 0..K-1 quarter turns;
    ``exemplars`` (M, 4, D): each exemplar's turned by 0..3; ``faces`` (M,); ``threshold``
    the memory's (``thresholds``). For each relative turn r the similarity is the mean over
    k of die k against exemplar k + r (the same relative turn seen four ways); the best r
    counts, the letter lying any way.
    """
    similarity = np.full((queries.shape[1], len(FACES)), -1.0)
    if len(faces) == 0:
        return Recall(similarity, threshold)
    index = np.array([FACE_INDEX[face] for face in faces])
    best = _best_turn_similarity(queries, exemplars)
    for column in np.unique(index):
        similarity[:, column] = best[:, index == column].max(axis=1)
    return Recall(similarity, threshold)


def _best_turn_similarity(queries: np.ndarray, exemplars: np.ndarray) -> np.ndarray:
    """(N, M): each die against each exemplar at their best relative turn (``recall``)."""
    dots = np.einsum("knd,mjd->knmj", queries, exemplars)
    turns = queries.shape[0]
    best = np.full(dots.shape[1:3], -np.inf)
    for relative in range(TURNS):
        aligned = np.mean([dots[k, :, :, (k + relative) % TURNS] for k in range(turns)], axis=0)
        best = np.maximum(best, aligned)
    return best
