"""Which way round a set prints its letters: dark ink on light dice, or light on dark.

The classifier learnt dark letters on light faces, as most sets print them. A set of dark
dice with light letters (or a photo whose tones turn them so) reads as noise to it, and
confidently so. The face is most of a die's middle and the letter a minority of strokes, so
the middle's median tone sits near the face's end of its range: nearer the dark end on a
dark die. The board decides by majority, the dice of one set being printed alike; such a
board is read from its negative.
"""

from __future__ import annotations

import numpy as np

# The die's middle in a 32-pixel crop (the letter's box; the crop is 1.1 cells wide).
MIDDLE = slice(8, 24)


def light_letter_share(crops: np.ndarray) -> float:
    """The share of a board's dice (crops (N, H, W) uint8, N > 0) whose middle looks like
    light letters on a darker face."""
    middle = crops[:, MIDDLE, MIDDLE].reshape(len(crops), -1).astype(np.float32)
    median = np.median(middle, axis=1)
    dark = np.percentile(middle, 5, axis=1)
    light = np.percentile(middle, 95, axis=1)
    return float(((median - dark) < (light - median)).mean())


def light_letters(crops: np.ndarray) -> bool:
    """True when most dice of a board (crops (N, H, W) uint8) show light letters on a
    darker face."""
    return bool(len(crops)) and light_letter_share(crops) > 0.5


def dark_on_light(crops: np.ndarray) -> np.ndarray:
    """The crops with the letters dark on a light face, as the classifier reads them."""
    return 255 - crops if len(crops) and light_letters(crops) else crops
