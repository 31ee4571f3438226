"""Train both models: ``python -m vision.train --seed 0``.

Data: the real photos' training split (``vision.dataset``, split by board) plus synthetic
boards drawn by ``vision.synth``. Nothing is downloaded and nothing is written outside the
output folder. TensorFlow runs on one thread (and the caller should ``nice`` the command) so
training does not starve other work on a shared machine. A fixed seed gives the same models.

Steps: render synthetic boards; train the die-centre detector on random views of real and
synthetic photos; cut die crops from both through the same grid code as inference (with a
jittered grid) and train the face classifier; save both models; read the validation photos
end to end and print the scores.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from vision import dataset
from vision.faces import BLOCKED, FACE_INDEX, NUM_CLASSES, TURNS, joint_index
from vision.recognize import CLASSIFIER_FILE, DETECTOR_FILE, MODELS_DIR

# Share of classifier crops blown out to white on top of the usual light changes: on such
# a die the letter's faint strokes are gone, and the model must learn to be unsure there.
OVER_EXPOSED_SHARE = 0.12


@dataclass
class Source:
    """A photo for detector training: RGB pixels, die centres (N, 2), die spacing (px)."""

    image: np.ndarray
    centers: np.ndarray
    spacing: float


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


# ----------------------------------------------------------------------------- detector data


def _warp(image: np.ndarray, matrix: np.ndarray, out: int, pad: int) -> np.ndarray:
    """Affine warp to ``out`` x ``out``, area-averaging first when shrinking a lot."""
    import cv2

    scale = float(np.sqrt(abs(np.linalg.det(matrix[:2, :2]))))
    if scale < 0.75:
        small = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        fx, fy = small.shape[1] / image.shape[1], small.shape[0] / image.shape[0]
        matrix = matrix @ np.diag([1 / fx, 1 / fy, 1.0])
        image = small
    return cv2.warpAffine(
        image,
        matrix[:2],
        (out, out),
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=(pad, pad, pad),
    )


def _view_matrix(
    rng: np.random.Generator, center: np.ndarray, scale: float, out: int
) -> np.ndarray:
    """Photo -> window: move ``center`` to the middle, turn, stretch, scale."""
    angle = rng.uniform(0, 2 * np.pi) if rng.random() < 0.7 else rng.choice([0, np.pi / 2])
    stretch = np.exp(rng.uniform(-0.3, 0.3))
    cos, sin = np.cos(angle), np.sin(angle)
    linear = np.array([[cos, -sin], [sin, cos]]) @ np.diag([scale * stretch, scale / stretch])
    if rng.random() < 0.5:
        linear = linear @ np.diag([-1.0, 1.0])  # a mirror image is still a board of dice
    matrix = np.eye(3)
    matrix[:2, :2] = linear
    matrix[:2, 2] = np.array([out / 2, out / 2]) - linear @ center
    return matrix


def heat_target(points: np.ndarray, spacing: float, size: int, stride: int) -> np.ndarray:
    """Gaussian heat map (size, size) with a 1 at each die centre (window pixels in)."""
    heat = np.zeros((size, size), np.float32)
    cells = (points + 0.5) / stride - 0.5
    sigma = max(0.6, 0.2 * spacing / stride)
    ys, xs = np.mgrid[0:size, 0:size]
    for x, y in cells:
        if not (-0.5 <= x < size - 0.5 and -0.5 <= y < size - 0.5):
            continue
        heat = np.maximum(heat, np.exp(-((xs - x) ** 2 + (ys - y) ** 2) / (2 * sigma**2)))
        heat[int(np.rint(y)), int(np.rint(x))] = 1.0
    return heat


def photometric(rng: np.random.Generator, image: np.ndarray) -> np.ndarray:
    """Colour and light changes: channel order (tray colour), gray, gain, gamma, blur, noise."""
    import cv2

    result = image
    if rng.random() < 0.5:
        result = result[..., rng.permutation(3)]
    if rng.random() < 0.1:
        gray = cv2.cvtColor(np.ascontiguousarray(result), cv2.COLOR_RGB2GRAY)
        result = np.repeat(gray[..., None], 3, axis=2)
    values = result.astype(np.float32)
    # Now and then over-exposed, highlights blown out (a phone's flash, a lamp overhead).
    gain = rng.uniform(1.3, 1.8) if rng.random() < 0.15 else rng.uniform(0.6, 1.3)
    values = values * gain + rng.uniform(-30, 30)
    values *= rng.uniform(0.85, 1.15, 3)
    # numpy and cv2 keep float32 here; copy=False makes these astype calls no-ops.
    values = (255 * (np.clip(values, 0, 255) / 255) ** rng.uniform(0.7, 1.4)).astype(
        np.float32, copy=False
    )
    if rng.random() < 0.35:  # out of focus, up to a sigma of 2.5 pixels
        values = cv2.GaussianBlur(values, (0, 0), rng.uniform(0.3, 2.5)).astype(
            np.float32, copy=False
        )
    if rng.random() < 0.3:
        values += rng.normal(0, rng.uniform(1, 8), values.shape)
    return np.clip(values, 0, 255).astype(np.uint8)


def detector_sample(
    rng: np.random.Generator, source: Source, out: int, stride: int, pad: int
) -> tuple[np.ndarray, np.ndarray]:
    """A random view of a photo, like pass 1 (whole photo) or pass 2 (around the dice)."""
    height, width = source.image.shape[:2]
    mode = rng.random()
    if len(source.centers) == 0 or mode < 0.3:
        center = np.array([width / 2, height / 2]) + rng.normal(0, 0.05, 2) * [width, height]
        scale = out / max(width, height) * rng.uniform(0.75, 1.15)
    elif mode < 0.45:  # anywhere in the photo, zoomed in: textures and clutter up close
        center = rng.uniform(0, 1, 2) * [width, height]
        scale = out / (max(width, height) * rng.uniform(0.25, 0.7))
    else:
        low = source.centers.min(axis=0) - source.spacing / 2
        high = source.centers.max(axis=0) + source.spacing / 2
        side = float((high - low).max()) * rng.uniform(1.1, 1.7)
        center = (low + high) / 2 + rng.normal(0, 0.06, 2) * side
        scale = out / side
    small = len(source.centers) > 0 and mode < 0.3 and rng.random() < 0.4
    if small:  # the whole photo small in a busy frame: a board far away on a tablecloth
        scale *= rng.uniform(0.3, 0.7)
    matrix = _view_matrix(rng, center, scale, out)
    view = _warp(source.image, matrix, out, pad)
    if small:
        from vision.synth import random_background

        inside = _warp(np.full(source.image.shape[:2], 255, np.uint8), matrix, out, 0) > 127
        view = np.where(inside[..., None], view, random_background(rng, out, out))
    window = photometric(rng, view)
    points = source.centers @ matrix[:2, :2].T + matrix[:2, 2] if len(source.centers) else []
    spacing = source.spacing * float(np.sqrt(abs(np.linalg.det(matrix[:2, :2]))))
    return window, heat_target(np.asarray(points).reshape(-1, 2), spacing, out // stride, stride)


# Side of the training patches cut from detector windows: the network is fully
# convolutional, and patches cost 2.25 times less than whole 192-pixel windows.
PATCH = 128


def _patch(
    rng: np.random.Generator, window: np.ndarray, heat: np.ndarray, stride: int = 4
) -> tuple[np.ndarray, np.ndarray]:
    """A random PATCH x PATCH part of a window and the matching part of its heat map."""
    cells = (window.shape[0] - PATCH) // stride
    x, y = rng.integers(0, cells + 1, 2).tolist()
    size = PATCH // stride
    return (
        window[y * stride : y * stride + PATCH, x * stride : x * stride + PATCH],
        heat[y : y + size, x : x + size],
    )


def centernet_loss(y_true, y_pred):
    """Penalty-reduced focal loss on heat maps (CenterNet), normalised by dice count."""
    from keras import ops

    p = ops.clip(y_pred, 1e-4, 1 - 1e-4)
    positive = ops.cast(y_true >= 0.999, "float32")
    negative = 1.0 - positive
    positive_loss = ops.log(p) * (1 - p) ** 2 * positive
    negative_loss = ops.log(1 - p) * p**2 * (1 - y_true) ** 4 * negative
    count = ops.maximum(ops.sum(positive), 1.0)
    return -(ops.sum(positive_loss) + ops.sum(negative_loss)) / count


def train_detector(
    rng: np.random.Generator, sources: list[Source], epochs: int, per_epoch: int
) -> object:
    import keras

    from vision.detect import PAD_VALUE
    from vision.nets import DETECTOR_INPUT, DETECTOR_STRIDE, build_detector

    model = build_detector()
    steps = epochs * (per_epoch // 32)
    schedule = keras.optimizers.schedules.CosineDecay(3e-3, steps, alpha=0.02)
    model.compile(optimizer=keras.optimizers.Adam(schedule), loss=centernet_loss)
    log(f"detector: {model.count_params()} parameters, {epochs} epochs of {per_epoch} views")
    for epoch in range(epochs):
        picks = rng.integers(0, len(sources), per_epoch)
        pairs = [
            _patch(
                rng, *detector_sample(rng, sources[i], DETECTOR_INPUT, DETECTOR_STRIDE, PAD_VALUE)
            )
            for i in picks
        ]
        x = np.stack([pair[0] for pair in pairs]).astype(np.float32)
        y = np.stack([pair[1] for pair in pairs])[..., None]
        history = model.fit(x, y, batch_size=32, epochs=1, verbose=0, shuffle=True)
        log(f"detector epoch {epoch + 1}/{epochs}: loss {history.history['loss'][-1]:.3f}")
    return model


# --------------------------------------------------------------------------- classifier data


def jitter_transforms(rng: np.random.Generator, count: int, amount: float) -> np.ndarray:
    """Small random lattice-space transforms around a die centre (count, 3, 3)."""
    transforms = np.empty((count, 3, 3))
    for index in range(count):
        angle = np.radians(rng.normal(0, 5 * amount))
        scale = np.exp(rng.normal(0, 0.07 * amount))
        shift = rng.normal(0, 0.06 * amount, 2)
        cos, sin = np.cos(angle) * scale, np.sin(angle) * scale
        transforms[index] = [[cos, -sin, shift[0]], [sin, cos, shift[1]], [0, 0, 1]]
    return transforms


def texture_backgrounds(
    photos: list[dataset.LabelledPhoto], images: list[np.ndarray]
) -> list[np.ndarray]:
    """The largest board-free strip of each real photo: real tables, carpets and clutter."""
    backgrounds = []
    for photo, image in zip(photos, images, strict=True):
        height, width = image.shape[:2]
        boxes = np.array([die.box for die in photo.dice])
        margin = 0.8 * float(np.median(boxes[:, 2] - boxes[:, 0]))
        x0, y0 = (boxes[:, :2].min(axis=0) - margin).astype(int)
        x1, y1 = (boxes[:, 2:].max(axis=0) + margin).astype(int)
        strips = [
            image[: max(y0, 0)],
            image[min(y1, height) :],
            image[:, : max(x0, 0)],
            image[:, min(x1, width) :],
        ]
        strip = max(strips, key=lambda part: min(part.shape[:2]) if part.size else 0)
        if strip.size and min(strip.shape[:2]) >= 60:
            backgrounds.append(strip)
    return backgrounds


def real_crops(
    rng: np.random.Generator, photos: list[dataset.LabelledPhoto], variants: int
) -> tuple[np.ndarray, np.ndarray]:
    """Crops of the labelled dice, ``variants`` jittered cuts each; masks allow any turn."""
    from vision.crops import cut_dice
    from vision.lattice import fit_grid
    from vision.loading import load_image

    crops, masks = [], []
    for photo in photos:
        image = load_image(photo.path)
        grid = fit_grid(photo.centers(), sides=(photo.side,)).grid
        cells = np.round(grid.to_lattice(photo.centers())).astype(int)
        faces = {(row, col): die.face for (col, row), die in zip(cells, photo.dice, strict=True)}
        if len(faces) != len(photo.dice):
            continue
        for variant in range(variants):
            jitter = jitter_transforms(rng, grid.rows * grid.cols, 1.0 if variant else 0.0)
            cut = cut_dice(image, grid, jitter=jitter)
            for index in range(len(cut)):
                face = faces[divmod(index, grid.cols)]
                mask = np.zeros(NUM_CLASSES, np.float32)
                for turns in range(TURNS):
                    mask[joint_index(face, turns)] = 1
                crops.append(cut[index])
                masks.append(mask)
    return np.array(crops), np.array(masks)


def synthetic_crops(
    rng: np.random.Generator, boards: list, variants: int
) -> tuple[np.ndarray, np.ndarray]:
    """Crops of synthetic dice with exact (face, turns) labels (any turn for blocked)."""
    from vision.crops import cut_dice

    crops, masks = [], []
    for board in boards:
        grid = board.grid
        for _ in range(variants):
            cut = cut_dice(
                board.image, grid, jitter=jitter_transforms(rng, len(board.turns.flat), 1)
            )
            for index in range(len(cut)):
                row, col = divmod(index, grid.cols)
                face = board.faces[row][col]
                mask = np.zeros(NUM_CLASSES, np.float32)
                if face == BLOCKED:
                    mask[FACE_INDEX[BLOCKED] * TURNS : (FACE_INDEX[BLOCKED] + 1) * TURNS] = 1
                else:
                    mask[joint_index(face, int(board.turns[row, col]))] = 1
                crops.append(cut[index])
                masks.append(mask)
    return np.array(crops), np.array(masks)


def augment_crops(
    rng: np.random.Generator,
    crops: np.ndarray,
    masks: np.ndarray,
    over_exposed_share: float = OVER_EXPOSED_SHARE,
) -> tuple[np.ndarray, np.ndarray]:
    """Random quarter turns (labels turned with them), contrast, over-exposure, blur and
    noise."""
    import cv2

    out = np.empty_like(crops)
    out_masks = np.empty_like(masks)
    turns = rng.integers(0, TURNS, len(crops))
    for index in range(len(crops)):
        crop = np.rot90(crops[index], turns[index])
        out_masks[index] = np.roll(masks[index].reshape(-1, TURNS), turns[index], axis=1).ravel()
        values = crop.astype(np.float32)
        if rng.random() < 0.3:
            values = cv2.GaussianBlur(values, (0, 0), rng.uniform(0.4, 1.3))
        if rng.random() < 0.15:  # camera shake
            values = cv2.filter2D(values, -1, _motion_kernel(rng))
        if rng.random() < 0.15:  # low resolution: dice far away in the photo
            small = int(rng.integers(10, 20))
            values = cv2.resize(cv2.resize(values, (small, small)), crop.shape[::-1])
        values = values * rng.uniform(0.5, 1.2) + rng.uniform(-40, 40)
        if rng.random() < over_exposed_share:  # a flash or a lamp: the face blown out to white
            values = values * rng.uniform(1.3, 1.9) + rng.uniform(0, 40)
        if rng.random() < 0.4:
            values += rng.normal(0, rng.uniform(2, 10), values.shape)
        out[index] = np.clip(values, 0, 255).astype(np.uint8)
    return out, out_masks


def _motion_kernel(rng: np.random.Generator) -> np.ndarray:
    """A line kernel of random length and direction (motion blur)."""
    import cv2

    length = int(rng.integers(3, 8))
    kernel = np.zeros((length, length), np.float32)
    kernel[length // 2] = 1
    turn = cv2.getRotationMatrix2D(((length - 1) / 2, (length - 1) / 2), rng.uniform(0, 180), 1)
    kernel = cv2.warpAffine(kernel, turn, (length, length)).astype(np.float32, copy=False)
    return kernel / max(float(kernel.sum()), 1e-6)


def marginal_loss(y_true, y_pred):
    """-log P(any allowed joint class): unknown turns of real dice are summed over."""
    from keras import ops

    return -ops.log(ops.sum(y_true * y_pred, axis=-1) + 1e-7)


def train_classifier(
    rng: np.random.Generator,
    crops: np.ndarray,
    masks: np.ndarray,
    epochs: int,
    over_exposed_share: float = OVER_EXPOSED_SHARE,
) -> object:
    import keras

    from vision.crops import standardise
    from vision.nets import build_classifier

    model = build_classifier()
    batch = 64
    steps = epochs * (len(crops) // batch)
    schedule = keras.optimizers.schedules.CosineDecay(3e-3, steps, alpha=0.02)
    model.compile(optimizer=keras.optimizers.Adam(schedule), loss=marginal_loss)
    log(f"classifier: {model.count_params()} parameters, {epochs} epochs of {len(crops)} crops")
    for epoch in range(epochs):
        x, y = augment_crops(rng, crops, masks, over_exposed_share)
        history = model.fit(standardise(x), y, batch_size=batch, epochs=1, verbose=0, shuffle=True)
        log(f"classifier epoch {epoch + 1}/{epochs}: loss {history.history['loss'][-1]:.4f}")
    return model


# ------------------------------------------------------------------------------------- main


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m vision.train", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data", type=Path, default=None, help="labelled photos folder")
    parser.add_argument("--out", type=Path, default=MODELS_DIR, help="where the models go")
    parser.add_argument("--synthetic-boards", type=int, default=600)
    parser.add_argument(
        "--low-angle-boards", type=int, default=150, help="more synthetic boards, shot from low"
    )
    parser.add_argument("--detector-epochs", type=int, default=24)
    parser.add_argument("--detector-views", type=int, default=800, help="views per epoch")
    parser.add_argument("--classifier-epochs", type=int, default=9)
    parser.add_argument("--real-variants", type=int, default=5, help="jittered cuts per die")
    parser.add_argument(
        "--over-exposed-share",
        type=float,
        default=OVER_EXPOSED_SHARE,
        help=f"classifier crops blown out to white ({OVER_EXPOSED_SHARE})",
    )
    parser.add_argument("--threads", type=int, default=1, help="TensorFlow threads")
    parser.add_argument("--skip-detector", action="store_true", help="keep the saved detector")
    parser.add_argument("--skip-classifier", action="store_true", help="keep the saved one")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    os.environ["OMP_NUM_THREADS"] = str(args.threads)
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import keras
    import tensorflow as tf

    tf.config.threading.set_intra_op_parallelism_threads(args.threads)
    tf.config.threading.set_inter_op_parallelism_threads(args.threads)
    tf.config.experimental.enable_op_determinism()
    started = time.time()

    from vision import synth
    from vision.loading import load_image
    from vision.nets import build_classifier, build_detector

    directory = args.data or dataset.data_dir()
    if not dataset.available(directory):
        print(f"error: no labelled photos in {directory}", file=sys.stderr)
        return 2
    training, validation = dataset.split_by_board(dataset.load_photos(directory))
    log(f"photos: {len(training)} training, {len(validation)} validation (split by board)")
    fonts = synth.available_fonts()
    log(f"fonts: {', '.join(Path(font).name for font in fonts) or 'Hershey only'}")

    images = [load_image(photo.path) for photo in training]
    textures = texture_backgrounds(training, images)
    # Each stage has its own random streams from the seed, so one model can be retrained
    # alone (--skip-detector / --skip-classifier) and come out the same as in a full run.
    rng = np.random.default_rng([args.seed, 0])
    boards = []
    for index in range(args.synthetic_boards):
        side = int(rng.choice([4, 5, 6], p=[0.4, 0.3, 0.3]))
        size = [(416, 416), (512, 384), (384, 512)][index % 3]
        background = textures[rng.integers(len(textures))] if rng.random() < 0.5 else None
        boards.append(synth.render_board(rng, side, fonts, photo_size=size, background=background))
    # Shots from low down (after the others, so those stay as they were): squashed boards
    # with the near sides of the dice, letters and all, in view.
    for index in range(args.low_angle_boards):
        side = int(rng.choice([4, 5, 6]))
        size = [(512, 384), (416, 416), (384, 512)][index % 3]
        background = textures[rng.integers(len(textures))] if rng.random() < 0.5 else None
        boards.append(
            synth.render_board(
                rng,
                side,
                fonts,
                photo_size=size,
                background=background,
                elevation=rng.uniform(*synth.LOW_ANGLE_ELEVATION),
            )
        )
    log(f"rendered {len(boards)} synthetic boards ({len(textures)} real backgrounds)")

    args.out.mkdir(parents=True, exist_ok=True)
    if not args.skip_detector:
        sources = []
        for photo, image in zip(training, images, strict=True):
            centers = photo.centers()
            sources.append(Source(image, centers, _spacing(centers)))
        for board in boards:
            sources.append(Source(board.image, board.centers.reshape(-1, 2), board.grid.spacing()))
        for _ in range(len(sources) // 20):  # a few photos with no board at all
            sources.append(Source(synth.random_background(rng, 416, 416), np.zeros((0, 2)), 1.0))
        for texture in textures[::3]:
            sources.append(Source(texture, np.zeros((0, 2)), 1.0))
        keras.utils.set_random_seed(args.seed)
        rng = np.random.default_rng([args.seed, 1])
        detector = train_detector(rng, sources, args.detector_epochs, args.detector_views)
        save_model(detector, build_detector, args.out / DETECTOR_FILE)
        log(f"saved {args.out / DETECTOR_FILE}")

    if not args.skip_classifier:
        keras.utils.set_random_seed(args.seed + 1)
        rng = np.random.default_rng([args.seed, 2])
        real_x, real_y = real_crops(rng, training, args.real_variants)
        synth_x, synth_y = synthetic_crops(rng, boards, 1)
        log(f"crops: {len(real_x)} real, {len(synth_x)} synthetic")
        classifier = train_classifier(
            rng,
            np.concatenate([real_x, synth_x]),
            np.concatenate([real_y, synth_y]),
            args.classifier_epochs,
            args.over_exposed_share,
        )
        save_model(classifier, build_classifier, args.out / CLASSIFIER_FILE)
        log(f"saved {args.out / CLASSIFIER_FILE}")
    log(f"training took {time.time() - started:.0f} s")

    from vision.evaluate import evaluate
    from vision.recognize import BoardReader

    report = evaluate(BoardReader(args.out), validation)
    log(f"validation (held out by board): {report.summary()}")
    for result in report.results:
        if not result.board_right:
            log(f"  {result.name}: {result.error or ''} {result.mistakes}")
    return 0


def save_model(model: object, build: Callable[[], object], path: Path) -> None:
    """Save architecture and weights only: a fresh, uncompiled copy from ``build`` gets the
    trained weights, so no optimizer state (two thirds of the size) and no custom loss go
    into the file."""
    bare = build()
    bare.set_weights(model.get_weights())  # type: ignore[attr-defined]
    bare.save(path)  # type: ignore[attr-defined]


def _spacing(points: np.ndarray) -> float:
    difference = points[:, None, :] - points[None, :, :]
    distance = np.sqrt((difference**2).sum(-1))
    np.fill_diagonal(distance, np.inf)
    return float(np.median(distance.min(axis=1)))


if __name__ == "__main__":
    sys.exit(main())
