"""Read a Boggle board from a photo (plain Python: no Django here).

Pipeline, one module per step:

- ``loading``: decode a photo safely (size limits, EXIF orientation);
- ``detect``: find die centres with a small heat-map CNN, in passes (closer looks at
  clusters, then the photo seen smaller for close-ups);
- ``lattice``: fit the board's grid (size, perspective, orientation) to those centres, or
  take it from four corners placed by hand;
- ``crops``: cut each die out, rectified to the grid;
- ``polarity``: turn a set printed light on dark into dark ink on light;
- ``classify``: read each die's face in any of four turns (CNN + board orientation prior),
  doubtful where the die is atypical of its face (``typicality``), with the dice set's
  confirmed dice when given (``memory``);
- ``recognize``: ``BoardReader`` ties them together; ``cli`` is ``python -m vision``;
- ``runtime``: TensorFlow threads, model loading, traced inference.

Training lives in ``train`` (with ``synth`` for synthetic boards and ``dataset`` for the
labelled photos) and ``prototypes`` (the typicality check's); ``evaluate`` scores readings
against labels, by framing (``conditions``) and by set. Errors are in ``errors``.
TensorFlow is only imported when a model is loaded or trained.
"""

from vision.errors import VisionError

__all__ = ["VisionError"]
