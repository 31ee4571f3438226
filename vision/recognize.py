"""Read a Boggle board from a photo: the whole pipeline behind one object.

``BoardReader`` loads both models once; ``read`` takes a path, the bytes of a file or an
RGB array and returns a ``BoardReading`` or raises a ``VisionError`` saying why not.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TypeVar

import numpy as np
from PIL import Image

from vision import dice_check
from vision.classify import DieClassifier, DieReading
from vision.crops import cut_dice
from vision.detect import Candidate, DiceDetector
from vision.errors import (
    BoardNotFoundError,
    ClutteredPhotoError,
    CornersError,
    DiceTooSmallError,
    GridNotFoundError,
    VisionError,
)
from vision.lattice import SIDES, GridFit, fit_grid, grid_from_corners
from vision.loading import WORK_SIDE, ImageSource, Photo, load_photo
from vision.memory import SetMemory
from vision.nets import CLASSIFIER_INPUT
from vision.polarity import light_letters
from vision.runtime import load_model
from vision.typicality import PROTOTYPES_FILE, FacePrototypes

MODELS_DIR = Path(__file__).resolve().parent.parent / "models"
Failure = TypeVar("Failure", bound=VisionError)
DETECTOR_FILE = "dice_detector.keras"
CLASSIFIER_FILE = "die_classifier.keras"
# Dice closer than this (pixels between centres, in the picture the classifier reads) are
# too small to read reliably: the reader asks the photographer to move closer instead of
# returning a grid of doubtful guesses.
MIN_DIE_PIXELS = 12.0
# No grid, and this many more die-like peaks in the whole photo than around the likeliest
# board: clutter.
CLUTTER_PEAKS = 12
# Gamma of the darker copy tried when no board is found (values 0-1 raised to it).
TONE_DOWN_GAMMA = 2.0


@dataclass(frozen=True)
class BoardReading:
    """A board read from a photo; every list is rows of cells, top row first.

    ``letters`` holds faces as in ``solver.board`` (``"qu"``, ``"th"``, ``"#"``);
    ``confidence`` the probability of each reading; ``centers`` each die's centre as
    ``[x, y]`` in the photo's pixels (after EXIF orientation).
    """

    rows: int
    cols: int
    letters: list[list[str]]
    confidence: list[list[float]]
    centers: list[list[list[float]]]
    filled: int = 0  # dice the detector missed, placed from the grid
    # The board's outer corners [x, y], clockwise from the top left die's: the grid the
    # dice were read in, which the host may move (``BoardReader.read(corners=...)``).
    corners: list[list[float]] = field(default_factory=list)
    # What the classifier alone read, without the dice set's memory (empty: the same as
    # ``letters`` and ``confidence``, no memory was read with).
    unaided_letters: list[list[str]] = field(default_factory=list)
    unaided_confidence: list[list[float]] = field(default_factory=list)
    # What the check against the dice set's own dice did per die (``vision.dice_check``:
    # "", "impossible", "corrected", "doubted"); empty when the board was not checked.
    set_check: list[list[str]] = field(default_factory=list)

    def remembered(self) -> list[list[bool]]:
        """Per die: whether the dice set's memory changed the face the classifier alone read."""
        unaided = self.unaided_letters or self.letters
        return [
            [face != alone for face, alone in zip(row, alone_row, strict=True)]
            for row, alone_row in zip(self.letters, unaided, strict=True)
        ]

    def as_dict(self) -> dict[str, object]:
        """JSON-ready form (keys rows, cols, letters, confidence, centers, corners,
        remembered, set_check, and unaided: the classifier's own letters and confidence)."""
        return {
            "rows": self.rows,
            "cols": self.cols,
            "letters": self.letters,
            "confidence": _rounded(self.confidence),
            "centers": [[[round(v, 1) for v in point] for point in row] for row in self.centers],
            "corners": [[round(v, 1) for v in point] for point in self.corners],
            "remembered": self.remembered(),
            "set_check": self.set_check,
            "unaided": {
                "letters": self.unaided_letters or self.letters,
                "confidence": _rounded(self.unaided_confidence or self.confidence),
            },
        }

    def text(self) -> str:
        """The board in ``solver.board`` notation (rows separated by spaces)."""
        from solver.board import from_faces

        return from_faces(self.letters).to_text()


def _rounded(confidence: list[list[float]]) -> list[list[float]]:
    return [[round(value, 4) for value in row] for row in confidence]


def parse_size(text: str) -> int:
    """``"5x5"`` (or ``"5"``) -> 5; ValueError for anything else."""
    parts = text.lower().replace(" ", "").split("x")
    if len(parts) == 2 and parts[0] != parts[1]:
        raise ValueError(f"boards are square: {text!r}")
    try:
        side = int(parts[0])
    except ValueError:
        raise ValueError(f"not a board size: {text!r} (use 4x4, 5x5 or 6x6)") from None
    if side not in SIDES or len(parts) > 2:
        raise ValueError(f"not a board size: {text!r} (use 4x4, 5x5 or 6x6)")
    return side


class BoardReader:
    """Loads the models once and reads boards from photos."""

    def __init__(self, models_dir: Path = MODELS_DIR, tta: bool = True) -> None:
        self.detector = DiceDetector(load_model(Path(models_dir) / DETECTOR_FILE))
        prototypes_path = Path(models_dir) / PROTOTYPES_FILE
        # The prototypes belong to the classifier beside them; a models folder without
        # them (a classifier just trained) reads without the typicality check.
        prototypes = FacePrototypes.load(prototypes_path) if prototypes_path.is_file() else None
        self.classifier = DieClassifier(
            load_model(Path(models_dir) / CLASSIFIER_FILE), tta=tta, prototypes=prototypes
        )

    def warm_up(self) -> None:
        """Read a blank picture and run the classifier once per board size: TensorFlow
        traces and allocates on the first call, and decoding and resizing set up their own
        buffers and threads, so a server that warms up at start neither makes the first photo
        wait nor grows by it."""
        blank = io.BytesIO()
        Image.new("RGB", (WORK_SIDE * 3 // 4, WORK_SIDE // 2), "white").save(blank, "PNG")
        with contextlib.suppress(BoardNotFoundError):  # a blank picture has no board
            self.read(blank.getvalue())
        for side in SIDES:
            self.classifier.read(
                np.zeros((side * side, CLASSIFIER_INPUT, CLASSIFIER_INPUT), np.uint8)
            )

    def read(
        self,
        source: ImageSource | np.ndarray,
        size: int | None = None,
        corners: Sequence[Sequence[float]] | None = None,
        memory: SetMemory | None = None,
        dice_sets: Sequence[Sequence[Sequence[str]]] = (),
    ) -> BoardReading:
        """Read the board in ``source``; ``size`` (4, 5 or 6) forces the grid side.

        ``corners``: the board's four outer corners as the host placed them (full-size
        photo pixels, clockwise from the top left; ``size`` then required): no detection,
        the dice inside them are read. ``memory``: the dice set's confirmed exemplars
        (``vision.memory``), read with the classifier. ``dice_sets``: the dice of the sets
        the board may be from (each a list of dice, a die its six faces); the reading is
        checked against those with as many dice as the board (``vision.dice_check``).

        Raises an ImageError for unusable input, CornersError for corners that frame no
        board, and BoardNotFoundError (GridNotFoundError, DiceCountError) when no board is
        read.
        """
        result = self.try_read(source, size, corners, memory, dice_sets)
        if isinstance(result, VisionError):
            try:
                raise result
            finally:
                del result  # this frame must not hold the error that names it
        return result

    def try_read(
        self,
        source: ImageSource | np.ndarray,
        size: int | None = None,
        corners: Sequence[Sequence[float]] | None = None,
        memory: SetMemory | None = None,
        dice_sets: Sequence[Sequence[Sequence[str]]] = (),
    ) -> BoardReading | VisionError:
        """``read``, returning the VisionError instead of raising it."""
        try:
            return self._read(source, size, corners, memory, dice_sets)
        except VisionError as error:
            return without_tracebacks(error)

    def _read(
        self,
        source: ImageSource | np.ndarray,
        size: int | None,
        corners: Sequence[Sequence[float]] | None,
        memory: SetMemory | None,
        dice_sets: Sequence[Sequence[Sequence[str]]] = (),
    ) -> BoardReading:
        if isinstance(source, np.ndarray):
            photo = Photo(source, (1.0, 1.0))
        else:
            photo = load_photo(source, work_side=WORK_SIDE)
        pixels = photo.pixels
        missing = 0
        if corners is not None:
            if size is None:
                raise CornersError("say the board's size (4x4, 5x5 or 6x6) with its corners")
            grid = grid_from_corners(photo.from_full(np.asarray(corners, np.float64)), size, size)
        else:
            fit, pixels = self.find_grid(pixels, (size,) if size else SIDES)
            grid, missing = fit.grid, fit.missing
        reading = self.classifier.read(cut_dice(pixels, grid), memory)
        reading, set_check = checked_by_set(reading, dice_sets)
        centers = photo.to_full(grid.centers())
        letters, confidence, coords = [], [], []
        unaided_letters, unaided_confidence = [], []
        # A classifier that does not say what it read alone read with no memory.
        unaided_faces = reading.unaided_faces or reading.faces
        unaided_values = reading.unaided_confidence or reading.confidence
        for row in range(grid.rows):
            cells = range(row * grid.cols, (row + 1) * grid.cols)
            letters.append([reading.faces[i] for i in cells])
            confidence.append([reading.confidence[i] for i in cells])
            unaided_letters.append([unaided_faces[i] for i in cells])
            unaided_confidence.append([unaided_values[i] for i in cells])
            coords.append([[float(v) for v in centers[row, col]] for col in range(grid.cols)])
        outline = [[float(x), float(y)] for x, y in photo.to_full(grid.corners())]
        return BoardReading(
            grid.rows,
            grid.cols,
            letters,
            confidence,
            coords,
            missing,
            corners=outline,
            unaided_letters=unaided_letters,
            unaided_confidence=unaided_confidence,
            set_check=[
                set_check[row * grid.cols : (row + 1) * grid.cols] for row in range(grid.rows)
            ]
            if set_check
            else [],
        )

    def find_grid(
        self, pixels: np.ndarray, sides: tuple[int, ...] = SIDES
    ) -> tuple[GridFit, np.ndarray]:
        """The grid (without reading the dice's letters), and the pixels to read the dice
        from. When the photo as it is holds no board: blown highlights (a flash, a lamp
        overhead) wash the dice into the tray, so a darker copy is tried; then the photo's
        negative, where dark dice with light letters (which the detector never saw) look
        like the light ones it knows, taken only when the dice it finds do show light
        letters (a tray's empty holes turn light too). The photo's own reason is reported
        when none fits."""
        first = self._try_fit(pixels, sides)
        if isinstance(first, GridFit):
            return first, pixels
        if isinstance(first, DiceTooSmallError):
            raise first  # a darker copy has dice no bigger
        darker = toned_down(pixels)
        fit = self._try_fit(darker, sides)
        if isinstance(fit, GridFit):
            return fit, darker
        fit = self._try_fit(255 - pixels, sides)
        if isinstance(fit, GridFit) and light_letters(cut_dice(pixels, fit.grid)):
            return fit, pixels
        raise first

    def _try_fit(self, image: np.ndarray, sides: tuple[int, ...]) -> GridFit | BoardNotFoundError:
        """``_fit``, returning its error (without tracebacks: nothing of this attempt's
        frames and pixels stays behind) instead of raising it."""
        try:
            return self._fit(image, sides)
        except BoardNotFoundError as error:
            return without_tracebacks(error)

    def _fit(self, image: np.ndarray, sides: tuple[int, ...]) -> GridFit:
        """The grid of the first detector pass (``DiceDetector.candidates``) whose centres
        fit one, with dice big enough to read.

        The error says what the photographer should change: dice too small to read, with
        a grid or without (``DiceTooSmallError``), many die-like things and no board among
        them (``ClutteredPhotoError``), or else the likeliest board's own reason."""
        failure: BoardNotFoundError | None = None
        too_small: float | None = None
        likeliest: Candidate | None = None  # the likeliest board's latest pass
        whole: Candidate | None = None  # the whole photo, as taken
        for candidate in self.detector.candidates(image):
            likeliest = likeliest or candidate
            if candidate.whole and candidate.share == 1.0:
                whole = candidate
            try:
                fit = fit_grid(candidate.points, sides=sides, scores=candidate.scores)
            except BoardNotFoundError as error:
                failure = failure or error  # report the likeliest board's reason
                continue
            spacing = fit.grid.spacing()
            if spacing < MIN_DIE_PIXELS:
                # Letters' strokes in a close-up can line up too; a smaller view may
                # still find the dice themselves.
                too_small = spacing if too_small is None else max(too_small, spacing)
                continue
            return fit
        if too_small is not None:
            raise DiceTooSmallError(too_small) from failure
        assert failure is not None and likeliest is not None
        apart = peak_spacing(likeliest.points, likeliest.scores)
        if apart is not None and apart < MIN_DIE_PIXELS:
            raise DiceTooSmallError(apart) from failure
        # Peaks of the whole photo (pass 1) beyond those of the likeliest board.
        strays = len(whole.points) - len(likeliest.points) if whole is not None else 0
        if isinstance(failure, GridNotFoundError) and strays >= CLUTTER_PEAKS:
            raise ClutteredPhotoError(str(failure)) from failure
        raise failure


def checked_by_set(
    reading: DieReading, dice_sets: Sequence[Sequence[Sequence[str]]]
) -> tuple[DieReading, list[str]]:
    """The reading checked against the sets among ``dice_sets`` with as many dice as the
    board (the board's set is one of them: ``vision.dice_check.check_against_any``), and
    what the check did per die (empty: not checked)."""
    matching = [dice for dice in dice_sets if len(dice) == len(reading.faces)]
    if not matching or reading.probabilities is None:
        return reading, []
    checked = dice_check.check_against_any(
        reading.probabilities, reading.faces, reading.confidence, matching
    )
    return replace(reading, faces=checked.faces, confidence=checked.confidence), checked.verdicts


def without_tracebacks(error: Failure) -> Failure:
    """``error`` with no traceback on it or the errors chained to it. A failed reading's
    frames (the photo's pixels, the detector's windows) and the errors they keep in their
    variables form reference cycles, which the web process's tuned collector reaches late:
    six unreadable photos held the web process some 80 MB higher. Without the tracebacks
    they go as soon as the caller drops the error."""
    seen: set[int] = set()
    waiting: list[BaseException] = [error]
    while waiting:  # every error chained to it, by cause or by context
        link = waiting.pop()
        if id(link) in seen:
            continue
        seen.add(id(link))
        link.__traceback__ = None
        waiting += [chained for chained in (link.__cause__, link.__context__) if chained]
    return error


def peak_spacing(points: np.ndarray, scores: np.ndarray) -> float | None:
    """The usual distance between the strongest die peaks and their nearest neighbours
    (pixels), or None for fewer than 4 peaks: how big the dice are, grid or not."""
    if len(points) < 4:
        return None
    top = points[np.argsort(-np.asarray(scores))[:16]]
    distance = np.linalg.norm(top[:, None] - top[None], axis=-1)
    np.fill_diagonal(distance, np.inf)
    return float(np.median(distance.min(axis=1)))


def toned_down(pixels: np.ndarray) -> np.ndarray:
    """A darker copy of an RGB photo: mid-tones pulled down, white stays white."""
    table = (255 * (np.arange(256) / 255) ** TONE_DOWN_GAMMA).astype(np.uint8)
    return table[pixels]
