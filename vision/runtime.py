"""TensorFlow at run time: thread limits, loading a saved model, a traced predict function.

TensorFlow is imported inside these functions, so importing ``vision`` stays cheap until a
model is actually loaded.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import numpy as np

from vision.errors import ModelError


def configure_threads(threads: int) -> None:
    """Limit TensorFlow (and OpenMP) to ``threads`` threads; call before loading models."""
    os.environ.setdefault("OMP_NUM_THREADS", str(threads))
    import tensorflow as tf

    try:
        tf.config.threading.set_intra_op_parallelism_threads(threads)
        tf.config.threading.set_inter_op_parallelism_threads(threads)
    except RuntimeError:  # TensorFlow already started: keep what is set
        pass


def load_model(path: Path) -> object:
    """Load a ``.keras`` file for inference, or raise ModelError."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import keras

    if not path.is_file():
        raise ModelError(f"model file missing: {path} (train with: python -m vision.train)")
    try:
        return keras.saving.load_model(path, compile=False)
    except Exception as error:  # a damaged file fails in many ways inside Keras
        raise ModelError(f"cannot load {path}: {error}") from error


def compiled_predict(model: object) -> Callable[[np.ndarray], object]:
    """A traced inference function: no per-call overhead of Keras ``predict``."""
    import tensorflow as tf

    @tf.function(reduce_retracing=True)
    def predict(batch: tf.Tensor) -> tf.Tensor:
        return model(batch, training=False)  # type: ignore[operator]

    return predict
