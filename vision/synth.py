"""Synthetic photos of Boggle boards with known faces, orientations and die centres.

Used to train the models (beside the real photos) and by the tests. A board is drawn flat
on a "board plane" canvas (tray, dice with a visible side, glyphs turned a random number of
quarter turns, bars under M W N Z), then warped into a photo by a random perspective
transform over a random background, and finally lit, shadowed, blurred, noised and
JPEG-compressed.

Fonts come from Debian packages (see ``FONT_CANDIDATES``); OpenCV's built-in Hershey fonts
are the fallback so rendering works on a machine without any font package.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt
from PIL import Image, ImageDraw, ImageFont

from vision.faces import BARRED, FACES, LETTERS
from vision.lattice import Grid

# Faces close to the ones printed on dice: mostly bold sans, and serif ones (older and
# French sets). Debian packages: fonts-dejavu-core, fonts-dejavu-extra, fonts-liberation,
# fonts-urw-base35, fonts-freefont-ttf.
FONT_CANDIDATES = (
    "/usr/share/fonts/truetype/dejavu/DejaVuSerif-Bold.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSerifCondensed-Bold.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSerif-Bold.ttf",
    "/usr/share/fonts/opentype/urw-base35/NimbusRoman-Bold.otf",
    "/usr/share/fonts/opentype/urw-base35/C059-Bold.otf",
    "/usr/share/fonts/truetype/freefont/FreeSerifBold.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSansCondensed-Bold.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Bold.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSansNarrow-Bold.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "/usr/share/fonts/opentype/urw-base35/NimbusSans-Bold.otf",
    "/usr/share/fonts/opentype/urw-base35/NimbusSans-Regular.otf",
    "/usr/share/fonts/opentype/urw-base35/URWGothic-Demi.otf",
    "/usr/share/fonts/opentype/urw-base35/URWGothic-Book.otf",
    "/usr/share/fonts/truetype/freefont/FreeSansBold.ttf",
)
HERSHEY_FONTS = (cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_TRIPLEX, cv2.FONT_HERSHEY_SIMPLEX)
# Pixels per cell on the flat board canvas.
CELL = 96
# Degrees above the table of the low-angle shots drawn for training and the bench (90 is
# straight above).
LOW_ANGLE_ELEVATION = (35.0, 70.0)
TRAY_COLOURS = (
    (235, 120, 20),  # orange (classic tray)
    (20, 40, 130),  # dark blue (Super Big Boggle)
    (30, 60, 170),
    (200, 30, 30),
    (30, 120, 60),
    (25, 25, 25),
    (150, 150, 150),
    (240, 200, 40),
)
DIE_COLOURS = ((245, 245, 240), (240, 235, 215), (230, 230, 230), (250, 250, 250), (225, 232, 240))
INK_COLOURS = ((15, 15, 15), (40, 40, 40), (20, 35, 120), (30, 50, 160), (10, 20, 70))


@dataclass(frozen=True)
class SetStyle:
    """One dice set's look, the same on every board drawn with it (``render_board``):
    what measuring the reader on a set it has never seen needs (``vision.evaluate``)."""

    name: str
    font: str  # a font file's path
    die: tuple[int, int, int]
    ink: tuple[int, int, int]
    tray: tuple[int, int, int]
    qu_print: str = "Qu"  # "Qu", "Q" or "QU"
    bars: str = "solid"  # under M W N Z: "solid", "dashed" or "none"
    glyph_scale: float = 0.66  # a single letter's height, a share of the die


def available_fonts() -> list[str]:
    """Paths of the candidate fonts present on this machine."""
    return [path for path in FONT_CANDIDATES if Path(path).is_file()]


@dataclass
class SyntheticBoard:
    """A rendered photo and its ground truth (rows of faces, quarter turns, die centres)."""

    image: np.ndarray
    faces: list[list[str]]
    turns: np.ndarray
    centers: np.ndarray
    grid: Grid


@cache
def _font(path: str, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(path, size)


# How sets print the Qu die's face: "Qu" on most English sets, a plain "Q" on others
# (French ones, for one), "QU" on a few. All of them are the Qu die.
QU_PRINTS: tuple[tuple[str, float], ...] = (("Qu", 0.45), ("Q", 0.45), ("QU", 0.1))


def face_text(face: str, rng: np.random.Generator | None = None) -> str:
    """How a face is printed: ``"A"``, ``"Qu"`` (or, with ``rng``, one of the ways sets
    print it: ``QU_PRINTS``), ``"Th"``."""
    if face == "qu" and rng is not None:
        prints = [text for text, _ in QU_PRINTS]
        weights = [weight for _, weight in QU_PRINTS]
        return prints[int(rng.choice(len(prints), p=weights))]
    return face[0].upper() + face[1:]


def draw_glyph(
    rng: np.random.Generator,
    face: str,
    size: int,
    fonts: list[str],
    ink: tuple[int, int, int],
    style: SetStyle | None = None,
) -> Image.Image:
    """An RGBA tile ``size`` x ``size`` with the face's glyph upright, centred, on clear;
    drawn as ``style`` prints it when given."""
    tile = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    draw = ImageDraw.Draw(tile)
    if face == "#":
        side = int(size * rng.uniform(0.55, 0.78))
        start = (size - side) // 2
        radius = int(side * rng.uniform(0.0, 0.15))
        draw.rounded_rectangle(
            (start, start, start + side, start + side), radius=radius, fill=(*ink, 255)
        )
        return tile
    if style is not None:
        text = style.qu_print if face == "qu" else face_text(face)
        scale = style.glyph_scale * (1.0 if len(text) == 1 else 0.72)
        barred = face in BARRED and style.bars != "none"
        fonts = [style.font]
    else:
        text = face_text(face, rng)
        scale = rng.uniform(0.52, 0.78) if len(text) == 1 else rng.uniform(0.38, 0.55)
        barred = face in BARRED and rng.random() < 0.85
    if fonts and (style is not None or rng.random() < 0.92):
        font = _font(fonts[rng.integers(len(fonts))], max(8, int(size * scale)))
        x0, y0, x1, y1 = draw.textbbox((0, 0), text, font=font)
        width, height = x1 - x0, y1 - y0
        gap = int(size * 0.06) if barred else 0
        left = (size - width) / 2 - x0
        top = (size - height - (gap * 2 if barred else 0)) / 2 - y0
        draw.text((left, top), text, font=font, fill=(*ink, 255))
        glyph_box = (left + x0, top + y0, left + x1, top + y1)
    else:
        glyph_box = _hershey_text(rng, tile, text, size, scale, ink, barred)
    if barred:
        _draw_bar(rng, draw, glyph_box, size, ink, None if style is None else style.bars == "solid")
    return tile


def _hershey_text(
    rng: np.random.Generator,
    tile: Image.Image,
    text: str,
    size: int,
    scale: float,
    ink: tuple[int, int, int],
    barred: bool,
) -> tuple[float, float, float, float]:
    """Draw ``text`` with an OpenCV Hershey font onto the RGBA ``tile``; return its box."""
    font = HERSHEY_FONTS[rng.integers(len(HERSHEY_FONTS))]
    thickness = max(2, int(size * 0.06))
    font_scale = cv2.getFontScaleFromHeight(font, int(size * scale), thickness)
    (width, height), _ = cv2.getTextSize(text, font, font_scale, thickness)
    gap = int(size * 0.06) if barred else 0
    x = int((size - width) / 2)
    y = int((size + height) / 2 - gap)
    mask = np.zeros((size, size), np.uint8)
    cv2.putText(mask, text, (x, y), font, font_scale, 255, thickness, cv2.LINE_AA)
    layer = Image.new("RGBA", (size, size), (*ink, 255))
    layer.putalpha(Image.fromarray(mask))
    tile.alpha_composite(layer)
    return (x, y - height, x + width, y)


def _draw_bar(
    rng: np.random.Generator,
    draw: ImageDraw.ImageDraw,
    glyph_box: tuple[float, float, float, float],
    size: int,
    ink: tuple[int, int, int],
    solid: bool | None = None,
) -> None:
    """A solid or dashed bar under the glyph, as printed under M W N Z (``solid``: which,
    or None for a random one)."""
    x0, _, x1, y1 = glyph_box
    thickness = max(2, int(size * rng.uniform(0.04, 0.07)))
    top = y1 + size * rng.uniform(0.04, 0.09)
    if solid if solid is not None else rng.random() < 0.6:
        draw.rectangle((x0, top, x1, top + thickness), fill=(*ink, 255))
        return
    dashes = int(rng.integers(3, 5))
    step = (x1 - x0) / (2 * dashes - 1)
    for index in range(dashes):
        start = x0 + 2 * index * step
        draw.rectangle((start, top, start + step, top + thickness), fill=(*ink, 255))


def random_faces(rng: np.random.Generator, side: int) -> list[list[str]]:
    """Faces for a board: a roll of the real dice set of that size (so letters come as often
    as on real boards), with a quarter of the dice replaced by any face at all and a few by
    the Qu die (so rare faces, and the Qu die's several prints, are seen too)."""
    from solver.dice import DEFAULT_DICE_SET, roll

    board = roll(DEFAULT_DICE_SET[(side, side)], seed=int(rng.integers(2**31)))
    flat = list(board.faces)
    for index in range(len(flat)):
        draw = rng.random()
        if draw < 0.06:  # the Qu die, one per set, is rare: seen more often here
            flat[index] = "qu"
        elif draw < 0.31:
            flat[index] = FACES[rng.integers(len(FACES))]
    return [flat[row * side : (row + 1) * side] for row in range(side)]


def _shade(colour: tuple[int, ...], factor: float) -> tuple[int, int, int]:
    return tuple(int(np.clip(channel * factor, 0, 255)) for channel in colour)  # type: ignore[return-value]


def _jitter_colour(rng: np.random.Generator, colour: tuple[int, ...], amount: float) -> tuple:
    return tuple(int(np.clip(c + rng.normal(0, amount), 0, 255)) for c in colour)


def draw_board_plane(
    rng: np.random.Generator,
    faces: list[list[str]],
    turns: np.ndarray,
    fonts: list[str],
    elevation: float | None = None,
    style: SetStyle | None = None,
) -> tuple[np.ndarray, np.ndarray, float]:
    """The flat board: an RGBA canvas, die centres on it (rows, cols, 2), and the margin.
    ``style``: the dice set's look (colours, font, prints), else random ones.

    ``elevation`` (degrees above the table, for a low-angle shot) draws each die's near
    side, letter included, as tall as a camera that low sees it, reaching over the next
    row; otherwise a thin side in a random direction."""
    rows, cols = len(faces), len(faces[0])
    margin = CELL * rng.uniform(0.25, 0.8)
    width, height = int(cols * CELL + 2 * margin), int(rows * CELL + 2 * margin)
    canvas = Image.new("RGBA", (width, height), (0, 0, 0, 0))
    draw = ImageDraw.Draw(canvas)
    tray: tuple[int, ...]
    if rng.random() < 0.8:
        tray = TRAY_COLOURS[rng.integers(len(TRAY_COLOURS))]
    else:
        tray = tuple(int(v) for v in rng.integers(0, 256, 3))
    tray = _jitter_colour(rng, style.tray if style else tray, 12)
    draw.rounded_rectangle(
        (0, 0, width - 1, height - 1), radius=int(margin * rng.uniform(0.3, 1.0)), fill=(*tray, 255)
    )
    well = _shade(tray, rng.uniform(0.55, 0.9))
    draw.rectangle(
        (margin * 0.8, margin * 0.8, width - margin * 0.8, height - margin * 0.8), fill=(*well, 255)
    )
    die_colour = _jitter_colour(rng, DIE_COLOURS[rng.integers(len(DIE_COLOURS))], 6)
    ink = _jitter_colour(rng, INK_COLOURS[rng.integers(len(INK_COLOURS))], 8)
    if style is not None:
        die_colour, ink = _jitter_colour(rng, style.die, 4), _jitter_colour(rng, style.ink, 4)
    die_scale = rng.uniform(0.78, 0.92)
    die = int(CELL * die_scale)
    if elevation is None:
        side_dir = rng.normal(0, 1, 2)
        side_dir *= rng.uniform(0.0, 0.16) * CELL / max(float(np.linalg.norm(side_dir)), 1e-6)
    else:  # the near side (+y, towards the camera), before the board is squashed by sin
        side_dir = np.array([0.0, die / np.tan(np.radians(elevation))])
    centers = np.zeros((rows, cols, 2))
    for row in range(rows):
        for col in range(cols):
            cx = margin + (col + 0.5) * CELL + rng.normal(0, 0.03) * CELL
            cy = margin + (row + 0.5) * CELL + rng.normal(0, 0.03) * CELL
            centers[row, col] = (cx, cy)
            if not faces[row][col]:  # an empty cell: no die there
                continue
            radius = int(die * rng.uniform(0.08, 0.3))
            base = (cx - die / 2, cy - die / 2, cx + die / 2, cy + die / 2)
            side = tuple(v + side_dir[i % 2] for i, v in enumerate(base))
            draw.rounded_rectangle(side, radius=radius, fill=(*_shade(die_colour, 0.7), 255))
            if elevation is not None:
                _draw_side_letter(rng, canvas, base, side_dir[1], fonts, ink)
            draw.rounded_rectangle(base, radius=radius, fill=(*die_colour, 255))
            glyph = draw_glyph(rng, faces[row][col], die, fonts, ink, style)
            angle = 90 * int(turns[row, col]) + rng.normal(0, 4)
            glyph = glyph.rotate(angle, resample=Image.Resampling.BILINEAR)
            canvas.alpha_composite(glyph, (int(cx - die / 2), int(cy - die / 2)))
    return np.asarray(canvas), centers, margin


def _draw_side_letter(
    rng: np.random.Generator,
    canvas: Image.Image,
    face: tuple[float, float, float, float],
    depth: float,
    fonts: list[str],
    ink: tuple[int, int, int],
) -> None:
    """A letter on a die's near side, foreshortened to ``depth`` pixels below its face."""
    die = int(face[2] - face[0])
    height = int(depth)
    if height < 4:
        return
    glyph = draw_glyph(rng, str(rng.choice(LETTERS)), die, fonts, ink)
    glyph = glyph.rotate(90 * int(rng.integers(4)), resample=Image.Resampling.BILINEAR)
    glyph = glyph.resize((die, height), Image.Resampling.BILINEAR)
    canvas.alpha_composite(glyph, (int(face[0]), int(face[3])))


def random_background(rng: np.random.Generator, height: int, width: int) -> np.ndarray:
    """A cluttered random background: colour, texture, shapes, stray letters."""
    base: npt.NDArray[np.float64] | npt.NDArray[np.int64]
    values: npt.NDArray[np.floating[Any]]  # float colours, made uint8 below
    if rng.random() < 0.6:  # tables, paper, carpets: mostly greys, browns and whites
        base = np.clip(rng.uniform(20, 250) * rng.uniform(0.75, 1.15, 3), 0, 255)
    else:
        base = rng.integers(0, 256, 3)
    kind = rng.integers(4)
    if kind == 0:
        values = np.ones((height, width, 3)) * base
    elif kind == 1:
        low = rng.integers(0, 256, (rng.integers(2, 6), rng.integers(2, 6), 3)).astype(np.float32)
        # cv2 keeps the float32 dtype; copy=False makes these astype calls no-ops.
        values = cv2.resize(low, (width, height), interpolation=cv2.INTER_CUBIC).astype(
            np.float32, copy=False
        )
    elif kind == 2:
        noise = rng.normal(0, 1, (height // 4 + 1, width // 4 + 1)).astype(np.float32)
        noise = cv2.resize(noise, (width, height), interpolation=cv2.INTER_LINEAR).astype(
            np.float32, copy=False
        )
        values = base + noise[..., None] * rng.uniform(10, 40)
    else:
        stripes = np.sin(np.arange(width) / rng.uniform(3, 20) + rng.uniform(0, 6))
        values = base + np.tile(stripes, (height, 1))[..., None] * rng.uniform(10, 40)
    image = np.clip(values, 0, 255).astype(np.uint8)
    for _ in range(int(rng.integers(0, 6))):
        colour = tuple(int(v) for v in rng.integers(0, 256, 3))
        centre = (int(rng.integers(width)), int(rng.integers(height)))
        axes = (int(rng.integers(10, width // 2)), int(rng.integers(10, height // 2)))
        if rng.random() < 0.5:
            cv2.ellipse(image, centre, axes, float(rng.uniform(0, 180)), 0, 360, colour, -1)
        else:
            corner = (centre[0] + axes[0], centre[1] + axes[1])
            cv2.rectangle(image, centre, corner, colour, -1)
    for _ in range(int(rng.integers(0, 4))):
        text = "".join(chr(int(c)) for c in rng.integers(65, 91, rng.integers(1, 8)))
        colour = tuple(int(v) for v in rng.integers(0, 256, 3))
        origin = (int(rng.integers(width)), int(rng.integers(height)))
        cv2.putText(image, text, origin, cv2.FONT_HERSHEY_SIMPLEX, rng.uniform(0.4, 1.5), colour, 2)
    return image


def random_placement(
    rng: np.random.Generator,
    plane_size: tuple[int, int],
    photo_size: tuple[int, int],
    fill: float,
    elevation: float | None = None,
) -> np.ndarray:
    """A homography putting the board plane into the photo: turned, tilted, scaled.

    ``elevation`` (degrees) squashes the plane's rows by its sine, near edge (bottom of the
    plane) wider: a shot from that low; otherwise a random milder tilt."""
    plane_w, plane_h = plane_size
    photo_w, photo_h = photo_size
    side = fill * min(photo_w, photo_h)
    angle = rng.uniform(0, 2 * np.pi)
    half = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float64) * side / 2
    if elevation is None:
        stretch = np.array([1.0, rng.uniform(0.6, 1.0)])  # seen at an angle: one axis shorter
        if rng.random() < 0.5:
            stretch = stretch[::-1]
        taper = rng.uniform(0.0, 0.3)
    else:
        stretch = np.array([1.0, np.sin(np.radians(elevation))])
        taper = rng.uniform(0.1, 0.35)
    corners = half * stretch
    # Perspective: the far edge is shorter than the near one.
    corners[:2, 0] *= 1 - taper
    rotation = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    corners = corners @ rotation.T
    corners += rng.normal(0, 0.03 * side, corners.shape)
    extent = corners.max(axis=0) - corners.min(axis=0)
    room = np.maximum(np.array([photo_w, photo_h]) - extent, 0)
    offset = rng.uniform(0, 1, 2) * room - corners.min(axis=0)
    if rng.random() < 0.1:  # sometimes the board runs off the edge
        offset += rng.normal(0, 0.08, 2) * side
    source = np.array([[0, 0], [plane_w, 0], [plane_w, plane_h], [0, plane_h]], np.float32)
    return cv2.getPerspectiveTransform(source, (corners + offset).astype(np.float32))


def apply_photo_effects(rng: np.random.Generator, image: np.ndarray) -> np.ndarray:
    """Light gradients, a shadow, colour cast, blur, noise and JPEG artefacts."""
    height, width = image.shape[:2]
    result = image.astype(np.float32)
    low = rng.uniform(0.5, 1.25, (2, 2)).astype(np.float32)
    result *= cv2.resize(low, (width, height), interpolation=cv2.INTER_LINEAR)[..., None]
    if rng.random() < 0.4:
        mask = np.zeros((height, width), np.float32)
        points = rng.integers(0, [width, height], (int(rng.integers(3, 6)), 2)).astype(np.int32)
        cv2.fillPoly(mask, [cv2.convexHull(points)], 1.0)
        # cv2 and the arithmetic below keep float32; copy=False makes these astype calls no-ops.
        mask = cv2.GaussianBlur(mask, (0, 0), rng.uniform(2, 15)).astype(np.float32, copy=False)
        result *= (1 - mask * rng.uniform(0.2, 0.55))[..., None]
    result *= rng.uniform(0.8, 1.2, 3)
    result = (255 * (np.clip(result, 0, 255) / 255) ** rng.uniform(0.7, 1.4)).astype(
        np.float32, copy=False
    )
    if rng.random() < 0.7:
        result = cv2.GaussianBlur(result, (0, 0), rng.uniform(0.3, 2.2)).astype(
            np.float32, copy=False
        )
    if rng.random() < 0.15:
        length = int(rng.integers(3, 9))
        kernel = np.zeros((length, length), np.float32)
        kernel[length // 2] = 1 / length
        rotation = cv2.getRotationMatrix2D((length / 2, length / 2), rng.uniform(0, 180), 1)
        kernel = cv2.warpAffine(kernel, rotation, (length, length)).astype(np.float32, copy=False)
        result = cv2.filter2D(result, -1, kernel / max(kernel.sum(), 1e-6)).astype(
            np.float32, copy=False
        )
    result += rng.normal(0, rng.uniform(0, 8), result.shape)
    image = np.clip(result, 0, 255).astype(np.uint8)
    ok, encoded = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(35, 95))])
    decoded = cv2.imdecode(encoded, cv2.IMREAD_UNCHANGED) if ok else None
    return image if decoded is None else decoded


def render_board(
    rng: np.random.Generator,
    side: int,
    fonts: list[str] | None = None,
    photo_size: tuple[int, int] = (416, 416),
    faces: list[list[str]] | None = None,
    turns: np.ndarray | None = None,
    fill: float | None = None,
    effects: bool = True,
    background: np.ndarray | None = None,
    elevation: float | None = None,
    style: SetStyle | None = None,
) -> SyntheticBoard:
    """Render a synthetic photo of a ``side`` x ``side`` board.

    ``faces`` (rows of faces, which may make any rectangle; ``""`` leaves a cell empty)
    and ``turns`` (quarter turns per die) are random when not given; ``fill`` is the board's share of the photo's shorter side. The image is RGB,
    ``photo_size`` is (width, height). ``elevation`` (degrees above the table) makes it a
    low-angle shot: the board squashed, the near sides of the dice in view. ``style``
    draws the dice of one set (``SetStyle``) instead of random ones.
    """
    fonts = available_fonts() if fonts is None else fonts
    faces = faces or random_faces(rng, side)
    rows, cols = len(faces), len(faces[0])
    turns = rng.integers(0, 4, (rows, cols)) if turns is None else np.asarray(turns)
    plane, plane_centers, margin = draw_board_plane(rng, faces, turns, fonts, elevation, style)
    fill = rng.uniform(0.3, 0.95) if fill is None else fill
    placement = random_placement(rng, (plane.shape[1], plane.shape[0]), photo_size, fill, elevation)
    width, height = photo_size
    if background is None:
        photo = random_background(rng, height, width)
    else:
        photo = cv2.resize(background, (width, height), interpolation=cv2.INTER_LINEAR)
    warped = cv2.warpPerspective(plane, placement, (width, height), flags=cv2.INTER_AREA)
    alpha = warped[..., 3:4].astype(np.float32) / 255
    photo = (photo * (1 - alpha) + warped[..., :3] * alpha).astype(np.uint8)
    if effects:
        photo = apply_photo_effects(rng, photo)
    centers = cv2.perspectiveTransform(plane_centers.reshape(-1, 1, 2), placement).reshape(
        rows, cols, 2
    )
    # Lattice (col, row) -> plane -> photo.
    to_plane = np.array(
        [[CELL, 0, margin + CELL / 2], [0, CELL, margin + CELL / 2], [0, 0, 1]], np.float64
    )
    grid = Grid(rows, cols, placement @ to_plane)
    return SyntheticBoard(photo, faces, turns, centers, grid)
