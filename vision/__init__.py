"""Read a Boggle board from a photo (plain Python: no Django here).

Pipeline, one module per step:

- ``loading``: decode a photo safely (size limits, EXIF orientation);
- ``detect``: find die centres with a small heat-map CNN, in two passes;
- ``lattice``: fit the board's grid (size, perspective, orientation) to those centres;
- ``crops``: cut each die out, rectified to the grid;
- ``classify``: read each die's face in any of four turns (CNN + board orientation prior);
- ``recognize``: ``BoardReader`` ties them together; ``cli`` is ``python -m vision``;
- ``runtime``: TensorFlow threads, model loading, traced inference.

Training lives in ``train`` (with ``synth`` for synthetic boards and ``dataset`` for the
labelled photos); ``evaluate`` scores readings against labels. Errors are in ``errors``.
TensorFlow is only imported when a model is loaded or trained.
"""

from vision.errors import VisionError

__all__ = ["VisionError"]
