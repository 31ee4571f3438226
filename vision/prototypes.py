"""Build the face prototypes the reader's typicality check uses (``vision.typicality``).

    python -m vision.prototypes [--out models/face_prototypes.npz] [--share 0.01]

Each face's prototype is the mean upright embedding of the training dice of that face: the
crops of the training split of the labelled photos (each turned upright by the turn the
classifier reads in it for its true face) and of synthetic boards (turn known), for the
faces the photos have few of. The threshold is the cosine that ``--share`` (1%) of the
held-out photos' correctly read dice fall below: on photos like the training ones that
share is marked doubtful for nothing, and dice unlike any training die are marked doubtful.
Needs the labelled photos (``vision.dataset``) and the classifier in ``models/``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from vision import dataset
from vision.classify import DieClassifier, apply_turn_prior, upright_embeddings
from vision.faces import FACE_INDEX, FACES, TURNS
from vision.typicality import PROTOTYPES_FILE, FacePrototypes

# Synthetic boards added for faces the photos show rarely (two-letter faces, Qu, blocked).
SYNTHETIC_BOARDS = 150
SEED = 5


def labelled_crops(photos: list[dataset.LabelledPhoto]) -> tuple[np.ndarray, list[str]]:
    """Every labelled die's crop (cut on the grid fitted to the labels) and its face."""
    from vision.crops import cut_dice
    from vision.lattice import fit_grid
    from vision.loading import load_image

    crops: list[np.ndarray] = []
    faces: list[str] = []
    for photo in photos:
        grid = fit_grid(photo.centers(), sides=(photo.side,)).grid
        cells = np.round(grid.to_lattice(photo.centers())).astype(int)
        by_cell = {(row, col): die.face for (col, row), die in zip(cells, photo.dice, strict=True)}
        if len(by_cell) != len(photo.dice):
            continue
        cut = cut_dice(load_image(photo.path), grid)
        for index in range(len(cut)):
            crops.append(cut[index])
            faces.append(by_cell[divmod(index, grid.cols)])
    return np.array(crops), faces


def synthetic_crops(count: int, seed: int) -> tuple[np.ndarray, list[str], np.ndarray]:
    """Crops of synthetic boards, their faces and their glyphs' quarter turns."""
    from vision.crops import cut_dice
    from vision.synth import available_fonts, render_board

    fonts = available_fonts()
    rng = np.random.default_rng(seed)
    crops, faces, turns = [], [], []
    for _ in range(count):
        board = render_board(rng, int(rng.choice([4, 5, 6])), fonts)
        cut = cut_dice(board.image, board.grid)
        for index in range(len(cut)):
            row, col = divmod(index, board.grid.cols)
            crops.append(cut[index])
            faces.append(board.faces[row][col])
            turns.append(int(board.turns[row, col]))
    return np.array(crops), faces, np.array(turns)


def upright_of_truth(
    classifier: DieClassifier, crops: np.ndarray, faces: list[str], turns: np.ndarray | None
) -> np.ndarray:
    """(N, D): each crop's embedding turned upright, by its known turn or else by the turn
    the classifier reads for its true face."""
    scores = classifier.scores(crops)
    truth = np.array([FACE_INDEX[face] for face in faces])
    if turns is None:
        turns = scores.joint[np.arange(len(truth)), truth].argmax(axis=-1)
    return scores.embeddings[(-turns) % TURNS, np.arange(len(truth))]


def build(classifier: DieClassifier, share: float) -> tuple[FacePrototypes, dict[str, float]]:
    training, validation = dataset.split_by_board(dataset.load_photos())
    crops, faces = labelled_crops(training)
    upright = [upright_of_truth(classifier, crops, faces, None)]
    all_faces = list(faces)
    synthetic, synthetic_faces, turns = synthetic_crops(SYNTHETIC_BOARDS, SEED)
    upright.append(upright_of_truth(classifier, synthetic, synthetic_faces, turns))
    all_faces += synthetic_faces
    vectors = np.concatenate(upright)
    index = np.array([FACE_INDEX[face] for face in all_faces])
    prototypes = np.zeros((len(FACES), vectors.shape[1]))
    for face in range(len(FACES)):
        chosen = vectors[index == face]
        if len(chosen):
            mean = chosen.mean(axis=0)
            prototypes[face] = mean / max(float(np.linalg.norm(mean)), 1e-9)
    # The threshold: read the held-out dice as the reader does; the correct ones' cosines.
    held_crops, held_faces = labelled_crops(validation)
    scores = classifier.scores(held_crops)
    posterior = apply_turn_prior(scores.joint)
    best = posterior.sum(axis=-1).argmax(axis=-1)
    right = best == np.array([FACE_INDEX[face] for face in held_faces])
    cosine = np.einsum("nd,nd->n", upright_embeddings(scores, posterior, best), prototypes[best])
    threshold = float(np.quantile(cosine[right], share))
    figures = {
        "training dice": float(len(crops)),
        "synthetic dice": float(len(synthetic)),
        "held-out dice": float(len(held_crops)),
        "held-out right": float(right.sum()),
        "threshold": threshold,
        "held-out wrong below it": float((cosine[~right] < threshold).sum()),
        "held-out wrong": float((~right).sum()),
    }
    return FacePrototypes(prototypes, threshold), figures


def main(argv: list[str] | None = None) -> int:
    from vision.recognize import CLASSIFIER_FILE, MODELS_DIR
    from vision.runtime import load_model

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=MODELS_DIR / PROTOTYPES_FILE)
    parser.add_argument("--models", type=Path, default=MODELS_DIR)
    parser.add_argument("--share", type=float, default=0.01, help="held-out right dice below")
    args = parser.parse_args(argv)
    if not dataset.available():
        print(f"error: no labelled photos in {dataset.data_dir()}", file=sys.stderr)
        return 2
    classifier = DieClassifier(load_model(args.models / CLASSIFIER_FILE))
    prototypes, figures = build(classifier, args.share)
    prototypes.save(args.out)
    for name, value in figures.items():
        print(f"{name}: {value:g}")
    print(f"written {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
