"""Whether a die's letter survived the photo.

Over-exposure (a flash, a lamp overhead) blows a die's face out to white and takes the
letter's faint strokes with it. The classifier never sees what was lost, and on the
held-out photos made 1.6 times brighter it read such dice wrong with confidence 0.8-0.97
(an "e" as "i" or "j"). A die whose crop is washed out is therefore reported as a guess
(doubtful), whatever the classifier says; on photos as taken no die is washed out.
"""

from __future__ import annotations

import numpy as np

# A pixel at least this light is blown out.
BLOWN_OUT = 250
# Washed out: at least this share of the die's middle is blown out...
BLOWN_OUT_SHARE = 0.5
# ...and even its darkest strokes (the 5th percentile) are no darker than this.
FAINT_STROKES = 160
# The most a washed-out die's reading may claim (below vision.confidence.DOUBTFUL_BELOW).
WASHED_OUT_CONFIDENCE = 0.6
# The middle of a crop, where the letter is: a sixth of each side is left out.
MARGIN_SHARE = 1 / 6


def washed_out(crops: np.ndarray) -> np.ndarray:
    """Per grayscale crop (N, size, size) ``uint8``: whether over-exposure has taken its letter."""
    size = crops.shape[1]
    margin = int(size * MARGIN_SHARE)
    middle = crops[:, margin : size - margin, margin : size - margin].reshape(len(crops), -1)
    blown = (middle >= BLOWN_OUT).mean(axis=1)
    darkest = np.percentile(middle, 5, axis=1)
    return (blown >= BLOWN_OUT_SHARE) & (darkest >= FAINT_STROKES)
