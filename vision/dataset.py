"""The labelled real photos (shared data, never shipped) and their split by board.

``_annotations.csv`` has one row per die: ``filename,width,height,class,xmin,ymin,xmax,ymax``.
Several photos often show the same board (same dice, another angle or light), so photos are
grouped by board before the split: a photo of a validation board never trains the model.
Two photos are the same board when their multisets of faces overlap by at least
``SAME_BOARD_OVERLAP``; groups are the connected components of that relation.
"""

from __future__ import annotations

import csv
import os
import random
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from vision.faces import normalise_label

# Where the shared photos live next to the repository; BOGGLE_PHOTOS_DIR overrides it.
DEFAULT_DATA_DIR = Path(__file__).resolve().parents[2] / "shared" / "data" / "boggle-boards"
ANNOTATIONS = "_annotations.csv"
# Share of faces two photos must have in common to be taken as one board. Random boards of
# the same 6x6 set share up to ~75% of faces by chance; the same board shares > 85%.
SAME_BOARD_OVERLAP = 0.75
# Fixed, independent of any training seed, so every run and the benchmark see one split.
SPLIT_SEED = 20240521
VALIDATION_SHARE = 0.2
BOARD_SIZES = (16, 25, 36)


@dataclass(frozen=True)
class LabelledDie:
    """One annotated die: its face and box (pixels of the stored photo)."""

    face: str
    box: tuple[float, float, float, float]

    @property
    def center(self) -> tuple[float, float]:
        x0, y0, x1, y1 = self.box
        return ((x0 + x1) / 2, (y0 + y1) / 2)


@dataclass(frozen=True)
class LabelledPhoto:
    """A photo and its annotated dice."""

    path: Path
    width: int
    height: int
    dice: tuple[LabelledDie, ...]

    @property
    def side(self) -> int:
        """Board side (4, 5 or 6), or 0 when the dice count is not a square board."""
        side = round(len(self.dice) ** 0.5)
        return side if side * side == len(self.dice) and len(self.dice) in BOARD_SIZES else 0

    def centers(self) -> np.ndarray:
        """Die centres as a float array (N, 2) of (x, y)."""
        return np.array([die.center for die in self.dice], dtype=np.float64)


def data_dir() -> Path:
    """The photo folder: $BOGGLE_PHOTOS_DIR or ../shared/data/boggle-boards."""
    return Path(os.environ.get("BOGGLE_PHOTOS_DIR") or DEFAULT_DATA_DIR)


def available(directory: Path | None = None) -> bool:
    """True when the labelled photos are present."""
    return ((directory or data_dir()) / ANNOTATIONS).is_file()


def load_photos(directory: Path | None = None) -> list[LabelledPhoto]:
    """All annotated photos, sorted by file name."""
    directory = directory or data_dir()
    by_file: dict[str, list[LabelledDie]] = defaultdict(list)
    sizes: dict[str, tuple[int, int]] = {}
    with open(directory / ANNOTATIONS, newline="") as handle:
        for row in csv.DictReader(handle):
            box = tuple(float(row[key]) for key in ("xmin", "ymin", "xmax", "ymax"))
            by_file[row["filename"]].append(LabelledDie(normalise_label(row["class"]), box))  # type: ignore[arg-type]
            sizes[row["filename"]] = (int(row["width"]), int(row["height"]))
    return [
        LabelledPhoto(directory / name, *sizes[name], tuple(by_file[name]))
        for name in sorted(by_file)
    ]


def group_by_board(photos: list[LabelledPhoto]) -> list[list[LabelledPhoto]]:
    """Group photos that show the same board (see module docstring), in a stable order."""
    counts = [Counter(die.face for die in photo.dice) for photo in photos]
    parent = list(range(len(photos)))

    def root(index: int) -> int:
        while parent[index] != index:
            parent[index] = parent[parent[index]]
            index = parent[index]
        return index

    for i in range(len(photos)):
        for j in range(i + 1, len(photos)):
            shared = sum((counts[i] & counts[j]).values())
            if shared >= SAME_BOARD_OVERLAP * max(len(photos[i].dice), len(photos[j].dice)):
                parent[root(i)] = root(j)
    groups: dict[int, list[LabelledPhoto]] = defaultdict(list)
    for index, photo in enumerate(photos):
        groups[root(index)].append(photo)
    return sorted(groups.values(), key=lambda group: group[0].path.name)


def split_by_board(
    photos: list[LabelledPhoto], share: float = VALIDATION_SHARE, seed: int = SPLIT_SEED
) -> tuple[list[LabelledPhoto], list[LabelledPhoto]]:
    """Split photos into (training, validation) by board, stratified by board size.

    Photos whose dice count is not 16, 25 or 36 (incomplete annotations) are left out of
    both. Deterministic for a given photo set and seed.
    """
    usable = [photo for photo in photos if photo.side]
    by_size: dict[int, list[list[LabelledPhoto]]] = defaultdict(list)
    for group in group_by_board(usable):
        by_size[group[0].side].append(group)
    rng = random.Random(seed)
    training: list[LabelledPhoto] = []
    validation: list[LabelledPhoto] = []
    for side in sorted(by_size):
        groups = by_size[side]
        rng.shuffle(groups)
        target = share * sum(len(group) for group in groups)
        taken = 0
        for group in groups:
            if taken < target and taken + len(group) <= target * 1.5 + 1:
                validation.extend(group)
                taken += len(group)
            else:
                training.extend(group)
    key = lambda photo: photo.path.name  # noqa: E731
    return sorted(training, key=key), sorted(validation, key=key)
