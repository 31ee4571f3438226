"""A round's results as a picture to share (a PNG drawn with Pillow): the board, the
ranking with points, the best words found, and the site's name.

Draws from the results dict (``games.state.results``), so it shows what the results page
shows. Fonts: DejaVu where the system has it (it covers most scripts nicknames use), else
Pillow's own scalable default font, so no system font is needed.
"""

from __future__ import annotations

import io
from functools import lru_cache
from pathlib import Path
from typing import Any

from django.utils.translation import gettext, ngettext
from PIL import Image, ImageDraw, ImageFont

WIDTH = 1080
HEIGHT = 1350  # 4:5, the tallest picture chat apps and feeds show whole
MARGIN = 64
# The site's colours (static/css/site.css, light mode).
PAPER = "#f4eee2"
CARD = "#fffdf8"
LINE = "#e2d8c5"
INK = "#1c2333"
MUTED = "#5d6578"
ACCENT = "#1d3f7a"
DIE = "#fffaf0"
DIE_EDGE = "#eadcc0"
TROPHY = "#7a5800"
# Rows of the ranking and of the best words drawn at most (the rest would not be legible).
MAX_RANKED = 6
MAX_BEST_WORDS = 5
# Their heights (pixels): nicknames are drawn inside their row (``text_in_band``).
RANKING_ROW = 52
BEST_WORD_ROW = 70
FONT_DIRS = (Path("/usr/share/fonts/truetype/dejavu"), Path("/usr/share/fonts/dejavu"))

Font = ImageFont.FreeTypeFont | ImageFont.ImageFont


@lru_cache(maxsize=32)
def font(size: int, bold: bool = False) -> Font:
    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    for folder in FONT_DIRS:
        if (folder / name).exists():
            return ImageFont.truetype(str(folder / name), size)
    return ImageFont.load_default(size=size)


def face_text(face: str) -> str:
    """A die face as printed: "A", "Qu"; "" for a blocked square (static/js/room/format.js)."""
    if not face or face == "#":
        return ""
    return face[0].upper() + face[1:]


def fit(draw: ImageDraw.ImageDraw, text: str, size: int, width: int, bold: bool = False) -> str:
    """``text`` cut with an ellipsis so it fits ``width`` pixels (long nicknames)."""
    if draw.textlength(text, font=font(size, bold)) <= width:
        return text
    while text and draw.textlength(text + "…", font=font(size, bold)) > width:
        text = text[:-1]
    return text + "…"


def text_in_band(
    draw: ImageDraw.ImageDraw,
    xy: tuple[float, float],
    text: str,
    font_: Font,
    fill: str,
    band: tuple[int, int, int, int],
) -> None:
    """``draw.text(xy, text)``, cut to ``band`` (left, top, right, bottom): marks piled on
    one letter (a nickname's accents, games.nicknames) never reach the rows around it."""
    left, top, right, bottom = band
    mask = Image.new("L", (right - left, bottom - top), 0)
    ImageDraw.Draw(mask).text((xy[0] - left, xy[1] - top), text, font=font_, fill=255)
    draw.bitmap((left, top), mask, fill=fill)


def ranks(players: list[dict[str, Any]]) -> list[int]:
    """Equal points, equal place (as roundRanks in static/js/room/format.js)."""
    result: list[int] = []
    previous = None
    for index, player in enumerate(players):
        if player["round_points"] != previous:
            rank = index + 1
        previous = player["round_points"]
        result.append(rank)
    return result


def best_words(results: dict[str, Any]) -> list[tuple[str, int, list[str]]]:
    """The round's highest-scoring words that counted, with who found them."""
    finders: dict[str, list[str]] = {}
    points: dict[str, int] = {}
    for player in results["players"]:
        for word in player["words"]:
            if word["cancelled"]:
                continue
            finders.setdefault(word["word"], []).append(player["nickname"])
            points[word["word"]] = word["points"]
    ordered = sorted(points, key=lambda w: (-points[w], -len(w), w))
    return [(word, points[word], finders[word]) for word in ordered[:MAX_BEST_WORDS]]


def render_png(results: dict[str, Any], site: str) -> bytes:
    """The picture of an ended round's ``results``, WIDTH x HEIGHT, as PNG bytes; ``site``
    is the address printed at the foot (where the round can be looked at)."""
    image = Image.new("RGB", (WIDTH, HEIGHT), PAPER)
    draw = ImageDraw.Draw(image)
    round_ = results["round"]
    # The header: the site's name and which round this was.
    draw.rectangle((0, 0, WIDTH, 140), fill=ACCENT)
    draw.text((MARGIN, 70), "Boggle", font=font(64, bold=True), fill="#ffffff", anchor="lm")
    heading = gettext("Round %(number)s · %(rows)s×%(cols)s") % {  # noqa: RUF001 (the sign)
        "number": round_["number"],
        "rows": round_["rows"],
        "cols": round_["cols"],
    }
    draw.text((WIDTH - MARGIN, 70), heading, font=font(40), fill="#ffffff", anchor="rm")
    bottom = draw_board(draw, round_["grid"], top=180, size=520)
    summary = fit(draw, summary_line(results), 30, WIDTH - 2 * MARGIN)
    draw.text((WIDTH // 2, bottom + 36), summary, font=font(30), fill=MUTED, anchor="mm")
    top = bottom + 84
    column = (WIDTH - 2 * MARGIN - 32) // 2
    draw_ranking(draw, results["players"], (MARGIN, top, MARGIN + column, HEIGHT - 110))
    draw_best_words(
        draw, best_words(results), (WIDTH - MARGIN - column, top, WIDTH - MARGIN, HEIGHT - 110)
    )
    draw.line((MARGIN, HEIGHT - 80, WIDTH - MARGIN, HEIGHT - 80), fill=LINE, width=2)
    draw.text(
        (WIDTH // 2, HEIGHT - 44),
        fit(draw, site, 28, WIDTH - 2 * MARGIN),
        font=font(28),
        fill=MUTED,
        anchor="mm",
    )
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def summary_line(results: dict[str, Any]) -> str:
    """The line under the board: a co-op team's share of the words, the winning team of a
    teams round, else what the board held."""
    team = results.get("team")
    if team is not None:
        figures = {"found": team["found"], "total": team["total"], "goal": team["goal"]}
        if team["reached"]:
            return gettext("Team: %(found)s of %(total)s words, goal %(goal)s%% reached.") % figures
        return gettext("Team: %(found)s of %(total)s words, goal %(goal)s%% missed.") % figures
    teams = results.get("teams")
    if teams:
        winners = [row for row in teams if row["rank"] == 1]
        names = ", ".join(str(row["team"]) for row in winners)
        return ngettext(
            "Team %(teams)s won the round with %(points)s points.",
            "Teams %(teams)s tied with %(points)s points.",
            len(winners),
        ) % {"teams": names, "points": winners[0]["round_points"]}
    return ngettext(
        "The board had %(count)s word worth %(points)s points.",
        "The board had %(count)s words worth %(points)s points.",
        results["word_count"],
    ) % {"count": results["word_count"], "points": results["max_points"]}


def draw_board(draw: ImageDraw.ImageDraw, grid: list[list[str]], top: int, size: int) -> int:
    """The dice on their tray, centred; returns the tray's bottom edge."""
    rows, cols = len(grid), len(grid[0]) if grid else 0
    left = (WIDTH - size) // 2
    draw.rounded_rectangle((left, top, left + size, top + size), radius=28, fill=ACCENT)
    if not rows or not cols:
        return top + size
    pad = 20
    gap = 12 if cols <= 4 else 8
    cell = (size - 2 * pad - gap * (cols - 1)) / cols
    letter = int(cell * 0.55)
    for r, row in enumerate(grid):
        for c, face in enumerate(row):
            x0 = left + pad + c * (cell + gap)
            y0 = top + pad + r * (cell + gap)
            box = (x0, y0, x0 + cell, y0 + cell)
            text = face_text(face)
            if not text:  # a blocked square: an empty slot in the tray
                draw.rounded_rectangle(box, radius=int(cell * 0.14), outline=DIE_EDGE, width=3)
                continue
            draw.rounded_rectangle(
                box, radius=int(cell * 0.14), fill=DIE, outline=DIE_EDGE, width=3
            )
            size_ = letter if len(text) == 1 else int(letter * 0.72)
            centre = (x0 + cell / 2, y0 + cell / 2)
            draw.text(centre, text, font=font(size_, bold=True), fill=INK, anchor="mm")
    return top + size


def draw_ranking(
    draw: ImageDraw.ImageDraw, players: list[dict[str, Any]], box: tuple[int, int, int, int]
) -> None:
    left, top, right, _bottom = box
    draw.rounded_rectangle(box, radius=24, fill=CARD, outline=LINE, width=2)
    draw.text((left + 28, top + 28), gettext("Scores"), font=font(34, bold=True), fill=INK)
    y = top + 92
    places = ranks(players)
    for player, place in list(zip(players, places, strict=True))[:MAX_RANKED]:
        colour = TROPHY if place == 1 and player["round_points"] > 0 else INK
        draw.text((left + 28, y), f"{place}.", font=font(30, bold=True), fill=colour)
        points = ngettext("%(points)s pt", "%(points)s pts", player["round_points"]) % {
            "points": player["round_points"]
        }
        width = draw.textlength(points, font=font(30, bold=True))
        draw.text((right - 28, y), points, font=font(30, bold=True), fill=colour, anchor="ra")
        name_width = int(right - 28 - width - 16 - (left + 80))
        text_in_band(
            draw,
            (left + 80, y),
            fit(draw, player["nickname"], 30, name_width),
            font(30),
            INK,
            (left + 80, y - RANKING_ROW // 4, left + 80 + name_width, y + RANKING_ROW * 3 // 4),
        )
        y += RANKING_ROW
    hidden = len(players) - MAX_RANKED
    if hidden > 0:
        more = ngettext("and %(count)s more player", "and %(count)s more players", hidden) % {
            "count": hidden
        }
        draw.text((left + 28, y + 4), more, font=font(26), fill=MUTED)


def draw_best_words(
    draw: ImageDraw.ImageDraw,
    words: list[tuple[str, int, list[str]]],
    box: tuple[int, int, int, int],
) -> None:
    left, top, right, _bottom = box
    draw.rounded_rectangle(box, radius=24, fill=CARD, outline=LINE, width=2)
    draw.text((left + 28, top + 28), gettext("Best words"), font=font(34, bold=True), fill=INK)
    y = top + 92
    if not words:
        draw.text((left + 28, y), gettext("No words counted."), font=font(28), fill=MUTED)
        return
    for word, points, finders in words:
        label = f"+{points}"
        width = draw.textlength(label, font=font(30, bold=True))
        draw.text((right - 28, y), label, font=font(30, bold=True), fill=INK, anchor="ra")
        draw.text(
            (left + 28, y),
            fit(draw, word.upper(), 30, int(right - left - 56 - width - 12), bold=True),
            font=font(30, bold=True),
            fill=ACCENT,
        )
        who = fit(draw, ", ".join(finders), 22, right - left - 56)
        band = (left + 28, y + 32, right - 28, y + BEST_WORD_ROW)  # under the word, above the next
        text_in_band(draw, (left + 28, y + 36), who, font(22), MUTED, band)
        y += BEST_WORD_ROW
