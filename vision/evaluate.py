"""Score the reader against labelled photos: per-die and whole-board accuracy.

The labels have no rows or columns, so each labelled die is matched to the read die whose
centre is nearest; it counts as right when that centre is within half a die spacing and the
face agrees. A board is right when every die is right and the dice counts agree.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from vision.dataset import LabelledPhoto
from vision.errors import VisionError
from vision.recognize import BoardReader, BoardReading


@dataclass
class PhotoResult:
    """How one photo was read."""

    name: str
    dice: int
    right: int
    error: str | None = None
    mistakes: list[tuple[str, str]] = field(default_factory=list)  # (labelled, read)

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

    def summary(self) -> str:
        boards = len(self.results)
        return (
            f"dice {self.dice_right}/{self.dice} = {self.dice_right / max(self.dice, 1):.2%}, "
            f"boards {self.boards_right}/{boards} = {self.boards_right / max(boards, 1):.2%}"
        )


def score_reading(photo: LabelledPhoto, reading: BoardReading) -> PhotoResult:
    """Compare one reading with the photo's labels."""
    centers = np.array(reading.centers, np.float64).reshape(-1, 2)
    faces = [face for row in reading.letters for face in row]
    labelled = photo.centers()
    spacing = _spacing(labelled)
    distance = np.linalg.norm(labelled[:, None, :] - centers[None, :, :], axis=-1)
    nearest = distance.argmin(axis=1)
    right = 0
    mistakes = []
    for index, die in enumerate(photo.dice):
        read = faces[nearest[index]] if distance[index, nearest[index]] < spacing / 2 else "?"
        if read == die.face:
            right += 1
        else:
            mistakes.append((die.face, read))
    if len(faces) != len(photo.dice):
        return PhotoResult(
            photo.path.name,
            len(photo.dice),
            right,
            f"read {len(faces)} dice, labelled {len(photo.dice)}",
            mistakes,
        )
    return PhotoResult(photo.path.name, len(photo.dice), right, None, mistakes)


def evaluate(reader: BoardReader, photos: list[LabelledPhoto]) -> Report:
    """Read every photo (grid size not given) and score it."""
    results = []
    for photo in photos:
        try:
            reading = reader.read(photo.path)
        except VisionError as error:
            results.append(PhotoResult(photo.path.name, len(photo.dice), 0, str(error)))
            continue
        results.append(score_reading(photo, reading))
    return Report(results)


def _spacing(points: np.ndarray) -> float:
    difference = points[:, None, :] - points[None, :, :]
    distance = np.sqrt((difference**2).sum(-1))
    np.fill_diagonal(distance, np.inf)
    return float(np.median(distance.min(axis=1)))
