"""Whether a die looks like the dice the classifier learnt its face from.

A classifier is sure of something whatever it is shown: on a set whose dice look like
nothing it was trained on, it read most letters wrong with confidence 0.8 or more. Its
embedding tells better: the training dice of each face gather around a direction (the
face's prototype, the mean of their upright embeddings), and a die far from the prototype
of the face it was read as is not a die the model knows. Such a reading is doubtful.

The prototypes and the threshold are computed from the training and validation crops by
``python -m vision.prototypes`` and shipped beside the classifier
(``models/face_prototypes.npz``); they belong to that classifier's weights.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from vision.errors import ModelError

PROTOTYPES_FILE = "face_prototypes.npz"
# What an atypical reading may claim (below vision.confidence.DOUBTFUL_BELOW).
ATYPICAL_CONFIDENCE = 0.6


@dataclass(frozen=True)
class FacePrototypes:
    """``vectors`` (faces, D) unit prototypes, zero for a face without training dice;
    ``threshold``: the cosine under which a die is atypical of its face."""

    vectors: np.ndarray
    threshold: float

    def similarity(self, upright: np.ndarray, faces: np.ndarray) -> np.ndarray:
        """Cosine of each upright embedding (N, D) to its face's prototype (N,)."""
        return np.einsum("nd,nd->n", upright, self.vectors[faces])

    def typical(self, upright: np.ndarray, faces: np.ndarray) -> np.ndarray:
        """Per die: whether it is close enough to its face's prototype (faces without a
        prototype are taken as typical)."""
        known = np.linalg.norm(self.vectors[faces], axis=-1) > 0
        return ~known | (self.similarity(upright, faces) >= self.threshold)

    def save(self, path: Path) -> None:
        np.savez(
            path, vectors=self.vectors.astype(np.float32), threshold=np.float32(self.threshold)
        )

    @classmethod
    def load(cls, path: Path) -> FacePrototypes:
        try:
            with np.load(path, allow_pickle=False) as data:
                return cls(np.asarray(data["vectors"], np.float64), float(data["threshold"]))
        except (OSError, KeyError, ValueError) as error:
            raise ModelError(f"cannot load {path}: {error}") from error
