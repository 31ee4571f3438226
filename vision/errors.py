"""Exceptions raised by board recognition.

Every error the pipeline reports to a caller is a ``VisionError``; its message is meant for
the person who took the photo. Two families:

- ``ImageError``: the input is not a usable picture (not an image, corrupt, too large or too
  small, unreadable file).
- ``BoardNotFoundError``: the picture is fine but no board of dice could be read from it;
  its ``advice`` tells the photographer what to do about it.
"""

from __future__ import annotations


class VisionError(Exception):
    """Base class of every error raised by the vision package."""


class ModelError(VisionError):
    """The classifier or detector model file is missing or unusable."""


class ImageError(VisionError):
    """The input cannot be used as a photo."""


class ImageReadError(ImageError):
    """The file cannot be read (missing, a directory, no permission)."""


class NotAnImageError(ImageError):
    """The bytes are not in any image format we decode."""


class CorruptImageError(ImageError):
    """The bytes start like an image but fail to decode (truncated or damaged)."""


class ImageTooLargeError(ImageError):
    """The image has more pixels (or the file more bytes) than we agree to decode."""


class ImageTooSmallError(ImageError):
    """The image is too small to hold a readable board."""


class BoardNotFoundError(VisionError):
    """No board of dice could be found in an otherwise valid photo. ``advice`` says what
    the person taking the photo should change (each kind of failure has its own)."""

    advice = "take the photo from straight above with the whole board in view"


class GridNotFoundError(BoardNotFoundError):
    """Nothing that looks like a grid of dice is in the photo."""

    advice = "fill the frame with the board, from straight above, in good light"


class ClutteredPhotoError(GridNotFoundError):
    """Many things in the photo look like dice, and no board stands out among them."""

    advice = "clear the table around the board, or come closer so that the board fills the frame"


class DiceTooSmallError(BoardNotFoundError):
    """A grid was found, but its dice are too few pixels across to be read reliably."""

    advice = "move closer: the board should fill most of the photo"

    def __init__(self, pixels: float) -> None:
        self.pixels = pixels
        super().__init__(f"the dice are too small in this photo ({pixels:.0f} pixels across)")


class DiceCountError(BoardNotFoundError):
    """Dice were found, but not in a number that makes a supported board (the sides of
    dice taken from a low angle, a board cut off by the frame, other dice nearby)."""

    def __init__(self, found: int, expected: tuple[int, ...]) -> None:
        self.found = found
        self.expected = expected
        super().__init__(f"found {found} dice, expected {_or_list(expected)}")


def _or_list(values: tuple[int, ...]) -> str:
    """``(16, 25, 36)`` -> ``"16, 25 or 36"``."""
    words = [str(value) for value in values]
    if len(words) == 1:
        return words[0]
    return ", ".join(words[:-1]) + " or " + words[-1]


class CornersError(VisionError, ValueError):
    """Corners given by hand that cannot frame a board (not four points, not a convex
    quadrilateral inside the photo, too small)."""
