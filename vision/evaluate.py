"""Score the reader against labelled photos: per-die and whole-board accuracy.

The labels have no rows or columns, so each labelled die is matched to the read die whose
centre is nearest; it counts as right when that centre is within half a die spacing and the
face agrees. A board is right when every die is right and the dice counts agree. A wrong
die read with a confidence at or above ``DOUBTFUL_BELOW`` is a *silent* error: the page
would not mark it for the host to check.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from vision.conditions import Condition
from vision.confidence import DOUBTFUL_BELOW
from vision.dataset import LabelledPhoto
from vision.errors import VisionError
from vision.loading import load_image
from vision.recognize import BoardReader, BoardReading


@dataclass
class PhotoResult:
    """How one photo was read."""

    name: str
    dice: int
    right: int
    error: str | None = None
    mistakes: list[tuple[str, str]] = field(default_factory=list)  # (labelled, read)
    silent: int = 0  # wrong dice read with confidence >= DOUBTFUL_BELOW

    @property
    def board_right(self) -> bool:
        return self.error is None and self.right == self.dice


@dataclass
class Report:
    """Totals over a set of photos."""

    results: list[PhotoResult]

    @property
    def dice(self) -> int:
        return sum(result.dice for result in self.results)

    @property
    def dice_right(self) -> int:
        return sum(result.right for result in self.results)

    @property
    def boards_right(self) -> int:
        return sum(result.board_right for result in self.results)

    @property
    def silent(self) -> int:
        return sum(result.silent for result in self.results)

    def summary(self) -> str:
        boards = len(self.results)
        return (
            f"dice {self.dice_right}/{self.dice} = {self.dice_right / max(self.dice, 1):.2%}, "
            f"boards {self.boards_right}/{boards} = {self.boards_right / max(boards, 1):.2%}"
        )


def score_reading(
    photo: LabelledPhoto, reading: BoardReading, labelled: np.ndarray | None = None
) -> PhotoResult:
    """Compare one reading with the photo's labels (``labelled``: the labelled centres
    where a condition moved them; the photo's own by default)."""
    labelled = photo.centers() if labelled is None else labelled
    truth = [die.face for die in photo.dice]
    return score_faces(photo.path.name, truth, labelled, reading)


def score_faces(
    name: str, truth: list[str], labelled: np.ndarray, reading: BoardReading
) -> PhotoResult:
    """Compare one reading with the true faces at the labelled centres (N, 2)."""
    centers = np.array(reading.centers, np.float64).reshape(-1, 2)
    faces = [face for row in reading.letters for face in row]
    confidence = [value for row in reading.confidence for value in row]
    spacing = _spacing(labelled)
    distance = np.linalg.norm(labelled[:, None, :] - centers[None, :, :], axis=-1)
    nearest = distance.argmin(axis=1)
    right = silent = 0
    mistakes = []
    for index, face in enumerate(truth):
        found = distance[index, nearest[index]] < spacing / 2
        read = faces[nearest[index]] if found else "?"
        if read == face:
            right += 1
            continue
        mistakes.append((face, read))
        if found and confidence[nearest[index]] >= DOUBTFUL_BELOW:
            silent += 1
    error = None
    if len(faces) != len(truth):
        error = f"read {len(faces)} dice, labelled {len(truth)}"
    return PhotoResult(name, len(truth), right, error, mistakes, silent)


def evaluate(
    reader: BoardReader,
    photos: list[LabelledPhoto],
    condition: Condition | None = None,
    seed: int = 0,
) -> Report:
    """Read every photo (grid size not given), changed by ``condition`` if given (its
    random choices seeded per photo), and score it."""
    results = []
    for index, photo in enumerate(photos):
        labelled = None
        try:
            if condition is None:
                reading = reader.read(photo.path)
            else:
                rng = np.random.default_rng([seed, index])
                image, labelled = condition(rng, load_image(photo.path), photo.centers())
                reading = reader.read(image)
        except VisionError as error:
            results.append(PhotoResult(photo.path.name, len(photo.dice), 0, str(error)))
            continue
        results.append(score_reading(photo, reading, labelled))
    return Report(results)


def _spacing(points: np.ndarray) -> float:
    difference = points[:, None, :] - points[None, :, :]
    distance = np.sqrt((difference**2).sum(-1))
    np.fill_diagonal(distance, np.inf)
    return float(np.median(distance.min(axis=1)))


def evaluate_low_angle(reader: BoardReader, boards: int = 60, seed: int = 0) -> Report:
    """Read synthetic low-angle shots (``vision.synth`` with an elevation in
    ``LOW_ANGLE_ELEVATION``; no real photo can be re-shot from lower), 4x4, 5x5 and 6x6 in
    turn, the near sides of the dice and their letters in view, and score them."""
    from vision.synth import LOW_ANGLE_ELEVATION, available_fonts, render_board

    fonts = available_fonts()
    results = []
    for index in range(boards):
        rng = np.random.default_rng([seed, 7, index])
        side = (4, 5, 6)[index % 3]
        board = render_board(
            rng,
            side,
            fonts,
            photo_size=(640, 480),
            fill=float(rng.uniform(0.5, 0.9)),
            elevation=float(rng.uniform(*LOW_ANGLE_ELEVATION)),
        )
        name = f"low angle #{index}"
        truth = [face for row in board.faces for face in row]
        try:
            reading = reader.read(board.image)
        except VisionError as error:
            results.append(PhotoResult(name, len(truth), 0, str(error)))
            continue
        results.append(score_faces(name, truth, board.centers.reshape(-1, 2), reading))
    return Report(results)
