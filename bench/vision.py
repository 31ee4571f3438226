"""Board-from-photo benchmark: accuracy on the held-out boards, time per photo, load time.

    nice -n 19 python bench/vision.py [--threads N] [--repeat 5]

Reads the validation split of ../shared/data/boggle-boards (held out by board: no photo of
these boards trained the models) and prints per-die and whole-board accuracy, then the time
to read one 416x416 photo and one 12-megapixel photo (a real photo upscaled to 4000x3000
and saved as JPEG, decoding included) with the models already loaded, and the time to
import TensorFlow and load the models. Floors: 98% of dice, 85% of boards, < 1 s a photo.
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

DICE_FLOOR = 0.98
BOARD_FLOOR = 0.85
SECONDS_FLOOR = 1.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, default=0, help="TensorFlow threads (0: all)")
    parser.add_argument("--repeat", type=int, default=5, help="timed reads per photo size")
    parser.add_argument("--verbose", action="store_true", help="list every misread board")
    args = parser.parse_args()

    import cv2

    from vision import dataset

    if not dataset.available():
        print(f"no labelled photos in {dataset.data_dir()}", file=sys.stderr)
        return 2
    started = time.perf_counter()
    from vision.recognize import BoardReader
    from vision.runtime import configure_threads

    if args.threads:
        configure_threads(args.threads)
    import tensorflow  # noqa: F401 - timed separately from the model load

    imported = time.perf_counter()
    reader = BoardReader()
    loaded = time.perf_counter()

    from vision.evaluate import evaluate

    _, validation = dataset.split_by_board(dataset.load_photos())
    report = evaluate(reader, validation)
    boards = len(report.results)
    dice_share = report.dice_right / report.dice
    board_share = report.boards_right / boards
    print(f"validation split (held out by board): {boards} photos, {report.dice} dice")
    for side in (4, 5, 6):
        names = {p.path.name for p in validation if p.side == side}
        subset = [r for r in report.results if r.name in names]
        right = sum(r.board_right for r in subset)
        print(
            f"  {side}x{side}: boards {right}/{len(subset)}, "
            f"dice {sum(r.right for r in subset)}/{sum(r.dice for r in subset)}"
        )
    print(
        f"dice right:   {report.dice_right}/{report.dice} = {dice_share:.2%} (floor {DICE_FLOOR:.0%})"
    )
    print(
        f"boards right: {report.boards_right}/{boards} = {board_share:.2%} (floor {BOARD_FLOOR:.0%})"
    )
    for result in report.results:
        if not result.board_right and (args.verbose or result.error):
            detail = result.error or ", ".join(f"{a}->{b}" for a, b in result.mistakes)
            print(f"  misread {result.name}: {detail}")

    photo = next(p for p in validation if p.side == 4).path
    with tempfile.TemporaryDirectory() as folder:
        big = Path(folder) / "12mp.jpg"
        image = cv2.imread(str(photo))
        cv2.imwrite(str(big), cv2.resize(image, (4000, 3000), interpolation=cv2.INTER_CUBIC))
        timings = {}
        for label, path in (("416x416", photo), ("4000x3000 (12 MP)", big)):
            reader.read(path)  # warm-up: first call traces the graph
            times = []
            for _ in range(args.repeat):
                before = time.perf_counter()
                reader.read(path)
                times.append(time.perf_counter() - before)
            timings[label] = statistics.median(times)
            print(
                f"time per photo {label}: median {timings[label] * 1000:.0f} ms "
                f"(max {max(times) * 1000:.0f} ms, {args.repeat} runs, models loaded)"
            )
    print(f"import TensorFlow: {imported - started:.2f} s; load models: {loaded - imported:.2f} s")
    ok = (
        dice_share >= DICE_FLOOR
        and board_share >= BOARD_FLOOR
        and max(timings.values()) < SECONDS_FLOOR
    )
    print("floors met" if ok else "FLOORS NOT MET")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
