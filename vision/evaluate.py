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


# ------------------------------------------------------------------ sets never seen
#
# How the reader does on a dice set unlike the ones it learnt, before and after its host
# confirmed boards of it: each "set" is a list of boards of one look; the first ``remember``
# boards are read, corrected to the truth (as a host would) and added to the set's memory,
# and the rest are read with it.

# Sets drawn with fonts, colours and prints no training die had (Debian packages
# fonts-comic-neue, fonts-cantarell, fonts-lato, fonts-linuxlibertine, fonts-hack,
# fonts-courier-prime; a set whose font is missing is skipped).
UNSEEN_STYLES = (
    (
        "comic",
        "/usr/share/fonts/opentype/comic-neue/ComicNeue-Bold.otf",
        (250, 215, 60),
        (190, 25, 30),
        (40, 130, 60),
        "Q",
        "none",
        0.7,
    ),
    (
        "wood",
        "/usr/share/fonts/opentype/linux-libertine/LinLibertine_RB.otf",
        (205, 165, 115),
        (70, 40, 20),
        (110, 70, 35),
        "Qu",
        "solid",
        0.68,
    ),
    (
        "night",
        "/usr/share/fonts/opentype/cantarell/Cantarell-ExtraBold.otf",
        (35, 35, 45),
        (240, 240, 235),
        (180, 30, 40),
        "QU",
        "dashed",
        0.62,
    ),
    (
        "candy",
        "/usr/share/fonts/truetype/lato/Lato-Black.ttf",
        (250, 190, 210),
        (90, 30, 120),
        (60, 160, 200),
        "Qu",
        "solid",
        0.6,
    ),
    (
        "code",
        "/usr/share/fonts/truetype/hack/Hack-Bold.ttf",
        (215, 230, 245),
        (20, 40, 90),
        (30, 30, 30),
        "Q",
        "dashed",
        0.72,
    ),
    (
        "typewriter",
        "/usr/share/fonts/opentype/courier-prime/Courier Prime Bold.otf",
        (240, 235, 215),
        (25, 25, 25),
        (200, 30, 30),
        "Qu",
        "none",
        0.7,
    ),
)


@dataclass
class SetBoard:
    """A photo of one board of a set: the RGB image, its faces row by row and the die
    centres (N, 2) they sit at."""

    name: str
    image: np.ndarray
    faces: list[str]
    centers: np.ndarray


def unseen_style_sets(boards_per_set: int = 8, seed: int = 0) -> dict[str, list[SetBoard]]:
    """Synthetic boards of ``UNSEEN_STYLES`` (4x4, 5x5 and 6x6 in turn), as photos."""
    from pathlib import Path

    from vision.synth import SetStyle, render_board

    sets: dict[str, list[SetBoard]] = {}
    for number, (name, font, die, ink, tray, qu, bars, scale) in enumerate(UNSEEN_STYLES):
        if not Path(font).is_file():
            continue
        style = SetStyle(name, font, die, ink, tray, qu, bars, scale)
        boards = []
        for index in range(boards_per_set):
            rng = np.random.default_rng([seed, 11, number, index])
            side = (4, 5, 6)[index % 3]
            board = render_board(
                rng,
                side,
                [font],
                photo_size=(640, 480),
                fill=float(rng.uniform(0.55, 0.9)),
                style=style,
            )
            faces = [face for row in board.faces for face in row]
            boards.append(
                SetBoard(f"{name} #{index}", board.image, faces, board.centers.reshape(-1, 2))
            )
        sets[f"synthetic {name}"] = boards
    return sets


def photo_sets(
    photos: list[LabelledPhoto], condition: Condition, looks: int = 3, seed: int = 0
) -> dict[str, list[SetBoard]]:
    """The photos split into ``looks`` sets, each changed by ``condition`` with one random
    stream for the whole set (one look per set: ``vision.conditions.recoloured``)."""
    sets: dict[str, list[SetBoard]] = {}
    for look in range(looks):
        boards = []
        for photo in photos[look::looks]:
            rng = np.random.default_rng([seed, 13, look])  # the same look for the whole set
            image, centers = condition(rng, load_image(photo.path), photo.centers())
            faces = [die.face for die in photo.dice]
            boards.append(SetBoard(f"look {look} {photo.path.name}", image, faces, centers))
        sets[f"look {look}"] = boards
    return sets


@dataclass
class SetReport:
    """One set, read with a memory of its first ``remembered`` boards (0: none)."""

    name: str
    remembered: int
    report: Report


def evaluate_set(
    reader: BoardReader, boards: list[SetBoard], remember: int, name: str = ""
) -> SetReport:
    """Read ``boards`` after the first ``remember`` of them were confirmed into a memory:
    each of those is read, and its dice (cut where the reader found the grid) join the
    memory with their true faces; the others are scored. Confirmation needs a reading: a
    board the reader found no grid on is skipped as an exemplar (the host would have
    placed the corners), and the next one is taken."""
    from vision.memory import SetMemory

    memory = SetMemory()
    used = 0
    rest = list(boards)
    while used < remember and rest:
        board = rest.pop(0)
        try:
            reading = reader.read(board.image)
        except VisionError:
            continue
        result = score_faces(board.name, board.faces, board.centers, reading)
        if result.error:
            continue
        truth = faces_by_cell(board, reading)
        crops = board_crops_from_array(board.image, reading)
        memory = memory.added(crops, truth)
        used += 1
    results = []
    for board in rest:
        try:
            reading = reader.read(board.image, memory=memory if len(memory) else None)
        except VisionError as error:
            results.append(PhotoResult(board.name, len(board.faces), 0, str(error)))
            continue
        results.append(score_faces(board.name, board.faces, board.centers, reading))
    return SetReport(name, used, Report(results))


def faces_by_cell(board: SetBoard, reading: BoardReading) -> list[str]:
    """The true face of each cell of ``reading``, row by row (the labelled die nearest
    each read centre)."""
    centers = np.array(reading.centers, np.float64).reshape(-1, 2)
    distance = np.linalg.norm(centers[:, None] - board.centers[None], axis=-1)
    return [board.faces[index] for index in distance.argmin(axis=1)]


def board_crops_from_array(image: np.ndarray, reading: BoardReading) -> np.ndarray:
    """The crops of a board read from an in-memory image (``vision.memory.board_crops``
    takes a photo file)."""
    from vision.crops import cut_dice
    from vision.lattice import grid_from_corners

    grid = grid_from_corners(np.array(reading.corners), reading.rows, reading.cols)
    return cut_dice(image, grid)
