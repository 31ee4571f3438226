"""Helpers for the browser tests: a real Daphne server, and the moves of a player.

The server is a Daphne subprocess (pytest-django's ``live_server`` speaks WSGI only, so it
has no websockets) on a free port, with its own throwaway SQLite database. Players are
Playwright pages in Debian's Chromium; they act only through the page, as people would.
"""

from __future__ import annotations

import itertools
import os
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from playwright.sync_api import Browser, BrowserContext, Page, ViewportSize, expect

from solver import dictionaries, from_faces, solve
from solver.solve import FoundWord
from tests.servers import SiteServer

REPO_ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path(os.environ.get("BOGGLE_CHROMIUM", "/usr/bin/chromium"))
# Flags for Chromium in this sandbox: no setuid sandbox as root, no GPU, and no calls home.
# Tests may reach only loopback and the simulated Wi-Fi, all by address: every host name
# but localhost is "not found" without a DNS query, and no DNS-over-HTTPS either.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1, EXCLUDE 10.77.*",
]
PHONE: ViewportSize = {"width": 360, "height": 640}
DESKTOP: ViewportSize = {"width": 1280, "height": 860}
# The table screen: a laptop or TV beside the table.
TABLE_SCREEN: ViewportSize = {"width": 1280, "height": 800}
# A player's device, as the options of its browser context (``Browser.new_context``): a
# laptop; a phone (360x640, touch, mobile); a sharp phone, the same with a 2x screen.
LAPTOP: dict[str, Any] = {"viewport": DESKTOP}
TOUCH_PHONE: dict[str, Any] = {"viewport": PHONE, "has_touch": True, "is_mobile": True}
SHARP_PHONE: dict[str, Any] = {**TOUCH_PHONE, "device_scale_factor": 2}
# Where screenshots go when set (e.g. docs/screenshots); unset, none are written.
SCREENSHOT_DIR = os.environ.get("BOGGLE_SCREENSHOT_DIR", "")


class DaphneServer(SiteServer):
    """The site under Daphne (HTTP and websockets) against its own SQLite file, answering
    127.0.0.1 and localhost (``tests.servers``), with the browser tests' shortcuts."""

    def __init__(self, workdir: Path, port: int | None = None) -> None:
        super().__init__(workdir, port, extra_env={"DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost"})

    def end_round_now(self, code: str) -> None:
        """Move the room's running round's deadline to now, so the server ends it at once.

        Rounds last at least 30 s; the test only needs the server's own end-of-round path
        (deadline watcher, scoring, ``round.ended`` to every page), not the wait.
        Django stores UTC datetimes in SQLite as ``YYYY-MM-DD HH:MM:SS.ffffff`` text.
        """
        now = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")
        with sqlite3.connect(self.db_path, timeout=10) as db:
            changed = db.execute(
                "UPDATE games_round SET ends_at = ? WHERE status = 'running' AND room_id = "
                "(SELECT id FROM games_room WHERE code = ?)",
                (now, code),
            ).rowcount
        assert changed == 1, f"room {code} has no running round"

    def set_next_board(self, code: str, board: str) -> None:
        """The room's next round gets ``board`` (canonical text, as ``set_board`` stores
        it), for a test that needs a board of a kind a roll gives only most of the time."""
        with sqlite3.connect(self.db_path, timeout=10) as db:
            changed = db.execute(
                "UPDATE games_room SET next_board = ? WHERE code = ?", (board, code)
            ).rowcount
        assert changed == 1, f"no room {code}"


# ---------------------------------------------------------------- a player's moves


def phone_context(browser: Browser, **options) -> BrowserContext:
    """A new context (a player's own browser) on a phone: 360x640, touch, mobile."""
    return browser.new_context(**TOUCH_PHONE, **options)


def watch_errors(page: Page) -> list[str]:
    """Collect the page's uncaught errors and console errors; tests assert none."""
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(f"pageerror: {error}"))
    page.on(
        "console",
        lambda message: (
            errors.append(f"console: {message.text}") if message.type == "error" else None
        ),
    )
    return errors


def create_room(page: Page, base_url: str, nickname: str) -> str:
    """Create a room from the start page with its default settings; returns the code."""
    page.goto(base_url + "/")
    page.get_by_label("Your nickname").fill(nickname)
    page.get_by_role("button", name="Create room").click()
    page.wait_for_url("**/r/*/")
    expect(page.locator("#lobby-panel")).to_be_visible()
    return room_code(page)


def room_code(page: Page) -> str:
    """The code of the room the page shows (its URL ends in /r/<code>/)."""
    return page.url.rstrip("/").rsplit("/", 1)[1]


def join_room(page: Page, link: str, nickname: str) -> None:
    page.goto(link)
    page.get_by_label("Your nickname").fill(nickname)
    page.locator("#join-form button[type=submit]").click()
    expect(page.locator("#game")).to_be_visible()


@dataclass
class RoomOfTwo:
    """A host and a guest in one room, each in their own browser (the ``host_and_guest``
    fixture): their pages, the errors each page has had (``watch_errors``), the room's code
    and its link, by which the guest joins (``join``, unless already done)."""

    host: Page
    guest: Page
    guest_nickname: str
    code: str
    link: str
    host_errors: list[str]
    guest_errors: list[str]
    # Another browser (a table screen, a third player), closed with the players' after the
    # test: ``new_context(**options)`` takes ``Browser.new_context``'s options.
    new_context: Callable[..., BrowserContext]

    def join(self) -> None:
        """The guest joins the room by its link, with their nickname."""
        join_room(self.guest, self.link, self.guest_nickname)


class OpenRoom(Protocol):
    """The ``host_and_guest`` fixture: each call opens a host's and a guest's browser (a
    laptop and a phone unless told), has the host create a room with its default settings
    and the guest join it (``join=False``: not yet, for the test to do first what comes
    before; then ``RoomOfTwo.join``)."""

    def __call__(
        self,
        host: str = "Ann",
        guest: str = "Bob",
        *,
        host_device: dict[str, Any] = ...,
        guest_device: dict[str, Any] = ...,
        join: bool = True,
    ) -> RoomOfTwo: ...


def wait_until_playing(page: Page, timeout: float = 20_000) -> None:
    """Wait for the countdown to end: the word field opens."""
    expect(page.locator("#entry")).to_be_enabled(timeout=timeout)


def play_alone(page: Page, base_url: str, nickname: str, daily: bool = False) -> str:
    """From the start page, practise alone (or, ``daily``, play today's board): the round
    starts at once, without a lobby; wait out the countdown. Returns the room code."""
    page.goto(base_url + "/")
    if daily:
        page.get_by_label("Nickname on the leaderboard").fill(nickname)
        page.get_by_role("button", name="Play today's board").click()
    else:
        page.get_by_label("Your nickname").fill(nickname)
        page.get_by_role("button", name="Start practice").click()
    page.wait_for_url("**/r/*/")
    wait_until_playing(page)
    return room_code(page)


def play_best_word(host: Page, player: Page) -> FoundWord:
    """The host starts the round; once the player's clock runs, the player enters the
    board's best word and sees it counted. Returns that word."""
    host.locator("#start-round").click()
    # The new round's play view first: the word field of a round ended early (or of the
    # previous game) can still be enabled while the results or the lobby show.
    expect(player.locator("#play-panel")).to_be_visible()
    wait_until_playing(player)
    # The dice show their faces once the clock starts (not during the countdown).
    player.wait_for_function(
        "() => [...document.querySelectorAll('#play-board .die')].every(d => d.dataset.face)"
    )
    best = words_on(board_faces(player))[0]
    type_word(player, best.word)
    expect(my_word(player, best.word)).to_be_visible()
    return best


def start_solo_round(page: Page, base_url: str, nickname: str) -> tuple[str, list[FoundWord]]:
    """Create a room, start its round, wait out the countdown, enter the first word on the
    board and see it counted; returns the room code and the board's words."""
    code = create_room(page, base_url, nickname)
    page.locator("#start-round").click()
    wait_until_playing(page)
    found = words_on(board_faces(page))
    type_word(page, found[0].word)
    expect(my_word(page, found[0].word)).to_be_visible()
    expect(page.locator("#connection")).to_have_attribute("data-status", "open")
    return code, found


def board_faces(page: Page) -> list[list[str]]:
    """The board as rolled: rows of faces, read from the dice by their cell (a board turned
    on the phone draws them in another order)."""
    size = page.locator("#play-board .board").get_attribute("data-size")
    assert size is not None, "the board has no data-size"
    rows, cols = (int(n) for n in size.split("x"))
    faces = page.locator("#play-board .die").evaluate_all(
        "dice => dice.map(d => [Number(d.dataset.cell), d.dataset.face])"
        ".sort((a, b) => a[0] - b[0]).map(([, face]) => face)"
    )
    assert len(faces) == rows * cols and all(faces), faces
    return [faces[r * cols : (r + 1) * cols] for r in range(rows)]


def words_on(faces: list[list[str]], min_length: int = 3) -> list[FoundWord]:
    """Every English word on the board, by the project's solver (best first)."""
    solution = solve(from_faces(faces), dictionaries.load("english"), min_length)
    return list(solution.words)


def type_word(page: Page, word: str) -> None:
    page.locator("#entry").fill(word)
    page.locator("#entry").press("Enter")


def die_centre(page: Page, cell: int) -> tuple[float, float]:
    box = page.locator(f'#play-board .die[data-cell="{cell}"]').bounding_box()
    assert box is not None, f"die {cell} is not visible"
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def drag_word(page: Page, path: list[int] | tuple[int, ...], touch: bool) -> None:
    """Drag across the dice of ``path`` and let go: a finger (touch events) or the mouse."""
    points = [die_centre(page, cell) for cell in path]
    steps = 6
    track = [points[0]]
    for (x0, y0), (x1, y1) in itertools.pairwise(points):
        track += [
            (x0 + (x1 - x0) * i / steps, y0 + (y1 - y0) * i / steps) for i in range(1, steps + 1)
        ]
    if touch:
        cdp = page.context.new_cdp_session(page)

        def touch_event(kind: str, point: tuple[float, float] | None) -> None:
            points = [] if point is None else [{"x": point[0], "y": point[1], "id": 1}]
            cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

        touch_event("touchStart", track[0])
        for point in track[1:]:
            touch_event("touchMove", point)
        touch_event("touchEnd", None)
        cdp.detach()
    else:
        page.mouse.move(*track[0])
        page.mouse.down()
        for point in track[1:]:
            page.mouse.move(*point)
        page.mouse.up()


def tap_word(page: Page, path: list[int] | tuple[int, ...]) -> None:
    """Tap the dice of ``path`` one by one, then the last one again to submit."""
    for cell in [*path, path[-1]]:
        page.locator(f'#play-board .die[data-cell="{cell}"]').tap()


def my_word(page: Page, word: str, kind: str = "good"):
    """The entry for ``word`` in the player's own list, in state ``kind`` (good, bad, …)."""
    return page.locator(f'#my-words li.word.{kind}[data-word="{word}"]')


def player_words(page: Page, nickname: str):
    """The results' section of one player's words, told by its heading: the sections'
    text names other players too (who else found a word)."""
    heading = page.locator("h3 .nickname").get_by_text(nickname, exact=True)
    return page.locator(".player-words").filter(has=heading)


def overflowing(page: Page) -> list[str]:
    """Visible elements reaching past the viewport's sides, and the page's scroll width.
    Measured once the page's stylesheets have loaded: the DOM a test waits for can be
    there before them, and an element laid out without its style may reach past the edge
    (the language menu's buttons did, on a busy machine)."""
    page.wait_for_load_state("load")
    return page.evaluate(
        """() => {
        const width = document.documentElement.clientWidth;
        const found = [];
        if (document.documentElement.scrollWidth > width) {
          found.push(`page scrolls sideways: ${document.documentElement.scrollWidth} > ${width}`);
        }
        for (const el of document.body.querySelectorAll('*')) {
          if (el.closest('.visually-hidden, [hidden], script, template')) continue;
          const box = el.getBoundingClientRect();
          if (!box.width || !box.height) continue;
          if (box.right > width + 1 || box.left < -1) {
            // Named with its parent and text, so that a failure says which element it is.
            const parent = el.parentElement ? `${el.parentElement.tagName.toLowerCase()}.${el.parentElement.className} > ` : '';
            const text = (el.textContent || '').trim().slice(0, 24);
            found.push(`${parent}${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''}.${el.className} "${text}": ${Math.round(box.left)}..${Math.round(box.right)}`);
          }
        }
        return found;
    }"""
    )


def small_targets(page: Page, minimum: float = 44) -> list[str]:
    """Visible controls smaller than ``minimum`` CSS pixels in either direction."""
    return page.evaluate(
        """(minimum) => {
        const selector = 'button, select, a.button, summary, input:not([type=checkbox]):not([type=radio]),'
          + ' .check, .segmented span';
        const found = [];
        for (const el of document.querySelectorAll(selector)) {
          if (el.closest('[hidden], .visually-hidden')) continue;
          const box = el.getBoundingClientRect();
          if (!box.width || !box.height) continue;
          if (box.width < minimum - 0.5 || box.height < minimum - 0.5) {
            found.push(`${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''} "${el.textContent.trim().slice(0, 30)}": ${Math.round(box.width)}x${Math.round(box.height)}`);
          }
        }
        return found;
    }""",
        minimum,
    )


def screenshot(page: Page, name: str, full_page: bool = False) -> None:
    """Save a screenshot as ``<name>.png`` when BOGGLE_SCREENSHOT_DIR is set: what the
    screen shows (as a player sees it), or the whole page."""
    if not SCREENSHOT_DIR:
        return
    target = Path(SCREENSHOT_DIR)
    if not target.is_absolute():
        target = REPO_ROOT / target
    target.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(target / f"{name}.png"), full_page=full_page, animations="disabled")


def type_board(
    host: Page, typed: str, open_name: str = "Type a board", use_name: str = "Use this board"
) -> None:
    """The host types the next round's 4x4 board, one letter a die (the photo card's "Type a
    board": set_board), and sees it as the next board, row by row. ``open_name`` and
    ``use_name``: the two buttons' names in the page's language."""
    host.get_by_role("button", name=open_name).click()
    inputs = host.locator("#photo-grid .die-input")
    expect(inputs).to_have_count(16)
    expect(inputs.first).to_be_focused()
    host.keyboard.type(typed)
    host.get_by_role("button", name=use_name).click()
    rows = " ".join(typed[start : start + 4].upper() for start in range(0, 16, 4))
    expect(host.locator("#photo-next")).to_contain_text(rows)
