"""Board-from-photo benchmark: by dice set and by framing, before and after a set's host
confirmed boards of it; silent errors; time per photo.

    nice -n 19 python bench/vision.py [--threads N] [--repeat 5] [--part framing ...]

Parts (all by default):

- framing: the validation split of ../shared/data/boggle-boards (held out by board: no
  photo of these boards trained the models) as taken (plain), turned by any angle
  (rotated), at its own size in a frame ten times its area full of busy tablecloth (small
  in clutter), held just above the board (close-up: the tray out of view, the outer dice
  touching or cut by the frame, 800-1400 pixels), over-exposed x1.6 (bright), out of focus
  (blurred sigma 2), synthetic boards shot from low down (low angle), and with its tones
  turned over and its hues turned round (another look: dark dice, light letters).
- sets: sets the reader never saw, each read before its host confirmed any board and
  after 1 and 2 confirmed boards (the set's memory, ``vision.memory``; the remembered
  boards are not scored, the same later boards are): the held-out photos as three sets of
  one look each (``vision.conditions.recoloured``), synthetic sets drawn with fonts,
  colours and prints no training die had (``vision.evaluate.UNSEEN_STYLES``; needs the
  Debian font packages named there), the photos of another set in
  ../shared/data/other-sets/boogle, and the binarised die crops of another classic set in
  ../shared/data/other-sets/boggler-crops (dice only: no photo to find a board in).
- time: a 416x416 photo and a 12-megapixel one (a real photo upscaled to 4000x3000 and
  saved as JPEG, decoding included), cold and warm, without memory and with a full one,
  and checked against the dice of every official 4x4 set at once (``vision.dice_check``).

The framing part reads each photo as it is and again checked against the dice of the set
the team's photos are of (``--set-check``: off, on, both; ``WithTheSetsDice``).

For each: the share of dice and of whole boards read right and the *silent* errors: wrong
dice read with a confidence at or above the doubtful threshold (0.8), which the page would
not mark for the host to check. Floors (issue 26): close-ups, small in clutter and bright:
97% of dice, 90% of boards, silent at most 0.3%; as taken: 98%, 93%, 0.3%; a set never
seen after 2 confirmed boards: 99%, 95%, 0.1%; a warm 12 MP read under 0.3 s.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402

FLOORS = {  # condition: (dice, boards, silent at most)
    "plain": (0.98, 0.93, 0.003),
    "close-up": (0.97, 0.90, 0.003),
    "small in clutter": (0.97, 0.90, 0.003),
    "bright x1.6": (0.97, 0.90, 0.003),
}
SET_FLOOR = (0.99, 0.95, 0.001)  # after 2 confirmed boards
WARM_SECONDS_FLOOR = 0.3
LOW_ANGLE = "low angle"
OTHER_SETS = REPO.parent / "shared" / "data" / "other-sets"
FRAMINGS = (
    "plain",
    "rotated",
    "small in clutter",
    "close-up",
    "bright x1.6",
    "blurred sigma 2",
    LOW_ANGLE,
    "another look",
)


def line(
    name: str,
    dice: int,
    dice_right: int,
    boards: int,
    boards_right: int,
    silent: int,
    floor: tuple[float, float, float] | None,
) -> bool:
    """Print one row; True when it meets ``floor`` (or has none)."""
    dice_share = dice_right / max(dice, 1)
    board_share = boards_right / max(boards, 1)
    silent_share = silent / max(dice, 1)
    met = floor is None or (
        dice_share >= floor[0] and board_share >= floor[1] and silent_share <= floor[2]
    )
    verdict = "" if floor is None else ("ok" if met else "BELOW FLOOR")
    print(
        f"{name:<30} {dice_right:>5}/{dice:<5} {dice_share:>6.1%} {boards_right:>4}/{boards:<4}"
        f" {board_share:>6.1%} {silent:>4} {silent_share:>6.2%}  {verdict}",
        flush=True,
    )
    return met


def header(title: str) -> None:
    print(f"\n{title}")
    print(f"{'':<30} {'dice right':>18} {'boards right':>16} {'silent':>11}")


class WithTheSetsDice:
    """A reader that checks each board against the dice of the team's set
    (``vision.dice_check``): the held-out photos' 4x4 and 6x6 boards are every one a board
    of the classic 1992 and the Super Big sets (their labels match those sets' dice); their
    5x5 set is an edition whose dice the project does not list, so 5x5 boards go unchecked."""

    SETS = ("classic", "super-big")

    def __init__(self, reader) -> None:
        from solver.dice import get_dice_set

        self.reader = reader
        self.dice_sets = [get_dice_set(name).dice for name in self.SETS]

    def read(self, source, *args, **kwargs):
        return self.reader.read(source, *args, dice_sets=self.dice_sets, **kwargs)


def framing(reader, validation, names: list[str], verbose: bool, set_check: str = "both") -> bool:
    from vision.conditions import CONDITIONS
    from vision.evaluate import evaluate, evaluate_low_angle

    header("Framing: the team's set, held-out photos (48 photos, 991 dice)")
    ok = True
    readers = {"off": [("", reader)], "on": [("", WithTheSetsDice(reader))]}.get(
        set_check, [("", reader), (" + set's dice", WithTheSetsDice(reader))]
    )
    for name, (suffix, reader) in ((n, r) for n in names for r in readers):
        if name == LOW_ANGLE:
            report = evaluate_low_angle(reader, 60)
        else:
            report = evaluate(reader, validation, None if name == "plain" else CONDITIONS[name])
        ok &= line(
            name + suffix,
            report.dice,
            report.dice_right,
            len(report.results),
            report.boards_right,
            report.silent,
            FLOORS.get(name),
        )
        if name == LOW_ANGLE and suffix:
            print("    (synthetic boards: a quarter of each one's dice show any face, so they are")
            print("    boards of no set: what the check costs a room that names the wrong set)")
        for result in report.results:
            if not result.board_right and (verbose or result.error):
                detail = result.error or ", ".join(f"{a}->{b}" for a, b in result.mistakes)
                print(f"    misread {result.name}: {detail}")
    return ok


def boogle_boards():
    """The other set's photos as a set: its one board, photographed and cropped four ways
    (two with a Qu face pasted on the third row)."""
    from vision.evaluate import SetBoard
    from vision.loading import load_image

    folder = OTHER_SETS / "boogle"
    truth = {"1": "tntbgdarelte sish", "1q": "tntbgdareqte sish"}
    boards = []
    for stem in ("s_boogle-1", "boogle-1", "s_boogle-1q", "boogle-1q"):
        path = folder / f"{stem}.jpg"
        if not path.is_file():
            return []
        image = load_image(path)
        letters = truth[stem.split("-")[1]].replace(" ", "")
        faces = ["qu" if letter == "q" else letter for letter in letters]
        height, width = image.shape[:2]
        # Labelled by cell: the photos are cut tight to a 4x4 board.
        cols, rows = np.meshgrid(
            (np.arange(4) + 0.5) * width / 4, (np.arange(4) + 0.5) * height / 4
        )
        boards.append(SetBoard(stem, image, faces, np.stack([cols.ravel(), rows.ravel()], -1)))
    return boards


def boggler_crops(reader) -> None:
    """The other classic set's binarised crops, board by board: read without memory and
    with the memory of the first 1 and 2 training boards."""
    from PIL import Image

    from vision.faces import normalise_label
    from vision.memory import SetMemory

    folder = OTHER_SETS / "boggler-crops"
    boards: list[tuple[np.ndarray, list[str]]] = []
    for split in ("TRAIN", "TEST"):
        for board_dir in sorted((folder / split).glob("[0-9][0-9][0-9]")):
            board_crops: list[np.ndarray] = []
            board_faces: list[str] = []
            for image_path in sorted(board_dir.glob("img_feat_*.jpg")):
                label = image_path.with_suffix(".label").read_text().strip()
                try:
                    face = normalise_label(label)
                except ValueError:
                    continue  # "?": the labeller could not tell
                image = np.asarray(Image.open(image_path).convert("L"))
                side = int(image.shape[0] * 0.8)  # the die fills the crop's top left
                die = np.asarray(
                    Image.fromarray(image[:side, :side]).resize((32, 32), Image.Resampling.BILINEAR)
                )
                board_crops.append(die)
                board_faces.append(face)
            if board_crops:
                boards.append((np.array(board_crops), board_faces))
    if not boards:
        return
    for remembered in (0, 1, 2):
        memory = SetMemory()
        for crops, faces in boards[:remembered]:
            memory = memory.added(crops, faces)
        right = total = silent = boards_right = 0
        for crops, faces in boards[2:]:
            reading = reader.classifier.read(crops, memory if len(memory) else None)
            ok = [read == face for read, face in zip(reading.faces, faces, strict=True)]
            right += sum(ok)
            total += len(ok)
            boards_right += all(ok)
            silent += sum(
                not good and confidence >= 0.8
                for good, confidence in zip(ok, reading.confidence, strict=True)
            )
        floor = SET_FLOOR if remembered == 2 else None
        line(
            f"boggler crops, {remembered} confirmed",
            total,
            right,
            len(boards) - 2,
            boards_right,
            silent,
            floor,
        )


def sets(reader, validation) -> bool:
    from vision.conditions import recoloured
    from vision.evaluate import evaluate_set, photo_sets, unseen_style_sets

    header("Sets never seen: before and after the host confirmed 1 and 2 boards")
    groups = {**photo_sets(validation, recoloured), **unseen_style_sets(10)}
    boogle = boogle_boards()
    if boogle:
        groups["boogle (other-sets)"] = boogle
    ok = True
    totals = {k: [0, 0, 0, 0, 0] for k in (0, 1, 2)}
    for name, boards in groups.items():
        for remembered in (0, 1, 2):
            # The same boards are scored in every row: those after the first two.
            if remembered == 0:
                result = evaluate_set(reader, boards[2:], 0, name)
            else:
                result = evaluate_set(reader, boards[2 - remembered :], remembered, name)
            report = result.report
            total = totals[remembered]
            for index, value in enumerate(
                (
                    report.dice,
                    report.dice_right,
                    len(report.results),
                    report.boards_right,
                    report.silent,
                )
            ):
                total[index] += value
            floor = SET_FLOOR if remembered == 2 else None
            met = line(
                f"{name[:20]}, {result.remembered} confirmed",
                report.dice,
                report.dice_right,
                len(report.results),
                report.boards_right,
                report.silent,
                floor,
            )
            ok &= met or not name.startswith("look")  # the floor's set: real photos, another look
    for remembered, (dice, dice_right, board_count, boards_right, silent) in totals.items():
        line(
            f"all of them, {remembered} confirmed",
            dice,
            dice_right,
            board_count,
            boards_right,
            silent,
            None,
        )
    boggler_crops(reader)
    return ok


def timing(reader_class, models: Path, validation, repeat: int) -> bool:
    import cv2

    from solver.dice import DICE_SETS
    from vision.faces import FACES
    from vision.memory import MAX_PER_FACE, SetMemory

    print("\nTime per photo (decoding included)")
    photo = next(p for p in validation if p.side == 4).path
    cold_reader = reader_class(models)  # a fresh reader: its first read is the cold one
    rng = np.random.default_rng(0)
    full = SetMemory(
        rng.integers(0, 256, (MAX_PER_FACE * len(FACES), 32, 32), dtype=np.uint8),
        tuple(face for face in FACES for _ in range(MAX_PER_FACE)),
    )
    warm: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as folder:
        big = Path(folder) / "12mp.jpg"
        image = cv2.imread(str(photo))
        if image is None:
            raise RuntimeError(f"OpenCV cannot read {photo}")
        cv2.imwrite(str(big), cv2.resize(image, (4000, 3000), interpolation=cv2.INTER_CUBIC))
        # The worst a room's photo is checked against: every official 4x4 set at once.
        four_by_four = [s.dice for s in DICE_SETS.values() if (s.rows, s.cols) == (4, 4)]
        for label, path, memory, dice_sets in (
            ("4000x3000 (12 MP)", big, None, []),
            ("416x416", photo, None, []),
            ("4000x3000, full memory", big, full, []),
            (f"4000x3000, checked against {len(four_by_four)} sets' dice", big, None, four_by_four),
        ):
            before = time.perf_counter()
            cold_reader.read(path, memory=memory, dice_sets=dice_sets)
            cold = time.perf_counter() - before
            times = []
            for _ in range(repeat):
                before = time.perf_counter()
                cold_reader.read(path, memory=memory, dice_sets=dice_sets)
                times.append(time.perf_counter() - before)
            warm[label] = statistics.median(times)
            print(
                f"  {label}: cold {cold * 1000:.0f} ms, warm median {warm[label] * 1000:.0f} ms"
                f" (max {max(times) * 1000:.0f} ms, {repeat} runs)"
            )
    extra = warm["4000x3000, full memory"] - warm["4000x3000 (12 MP)"]
    print(f"  a full memory ({len(full)} exemplars) adds {extra * 1000:.0f} ms a photo")
    checked = next(value for label, value in warm.items() if "checked" in label)
    print(
        f"  the check against the sets' dice adds {(checked - warm['4000x3000 (12 MP)']) * 1000:.0f} ms"
    )
    return warm["4000x3000 (12 MP)"] < WARM_SECONDS_FLOOR


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, default=0, help="TensorFlow threads (0: all)")
    parser.add_argument("--repeat", type=int, default=5, help="timed reads per photo size")
    parser.add_argument("--verbose", action="store_true", help="list every misread board")
    parser.add_argument("--part", action="append", choices=("framing", "sets", "time"))
    parser.add_argument(
        "--condition", action="append", help="framing part: only this condition (repeatable)"
    )
    parser.add_argument("--models", type=Path, default=None, help="models folder (models/)")
    parser.add_argument(
        "--set-check",
        choices=("off", "on", "both"),
        default="both",
        help="framing part: check boards against the set's dice (vision.dice_check)",
    )
    args = parser.parse_args()

    from vision import dataset

    if not dataset.available():
        print(f"no labelled photos in {dataset.data_dir()}", file=sys.stderr)
        return 2
    started = time.perf_counter()
    from vision.recognize import MODELS_DIR, BoardReader
    from vision.runtime import configure_threads

    models = args.models or MODELS_DIR
    if args.threads:
        configure_threads(args.threads)
    import tensorflow  # noqa: F401 - timed separately from the model load

    imported = time.perf_counter()
    reader = BoardReader(models)
    loaded = time.perf_counter()
    print(f"load average {' '.join(f'{value:.2f}' for value in os.getloadavg())}")
    print(f"import TensorFlow: {imported - started:.2f} s; load models: {loaded - imported:.2f} s")
    _, validation = dataset.split_by_board(dataset.load_photos())
    parts = args.part or ["framing", "sets", "time"]
    ok = True
    if "framing" in parts:
        ok &= framing(
            reader, validation, args.condition or list(FRAMINGS), args.verbose, args.set_check
        )
    if "sets" in parts:
        ok &= sets(reader, validation)
    if "time" in parts:
        ok &= timing(BoardReader, models, validation, args.repeat)
    print(f"\nload average {' '.join(f'{value:.2f}' for value in os.getloadavg())}")
    print("floors met" if ok else "FLOORS NOT MET")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
