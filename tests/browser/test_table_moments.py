"""Table play on the table screen (issue 32, items 4 and 6), in real browsers: the letters
turned every way for a screen lying flat (the same after a reload), and the round's moments
(first word, a lead change, an 8-letter word) in a banner with a tone, muted with the rest
(static/js/table/lying-flat.js, moments.js).

Two players on the typed board GENE ETAR SNOW BIKE: Ann finds GENE (first word), Bob
GENERATE (8 letters; 1-1, nobody leads yet), then TARE (Bob takes the lead).

Screenshots (BOGGLE_SCREENSHOT_DIR, as every one): table-moments-lobby.png (the switches),
table-moments-flat.png (lying flat, mid-round), table-moments-banner.png (the first word's
banner), table-moments-long-word.png (an 8-letter word's).
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.helpers import (
    TABLE_SCREEN,
    OpenRoom,
    board_faces,
    my_word,
    overflowing,
    screenshot,
    type_board,
    type_word,
    wait_until_playing,
    watch_errors,
    words_on,
)

pytestmark = pytest.mark.browser

TYPED = "geneetarsnowbike"
BOARD = [list("gene"), list("etar"), list("snow"), list("bike")]
# Solving the board, the round's events and a moment's turn in the queue, on a busy machine.
WAIT_MS = 30_000

FIRST = "First word: Ann!"
LONG = "Bob found an 8-letter word!"
LEAD = "Bob takes the lead!"

# Before the page's scripts: count the tones made (WebAudio oscillators).
COUNT_TONES = """
(() => {
  window.__tones = 0;
  const Context = window.AudioContext || window.webkitAudioContext;
  if (!Context) return;
  const create = Context.prototype.createOscillator;
  Context.prototype.createOscillator = function (...args) {
    window.__tones += 1;
    return create.apply(this, args);
  };
})();
"""
# After the page loaded: the text of each moment as its banner shows.
WATCH_MOMENTS = """
() => {
  window.__moments = [];
  const banner = document.getElementById('table-moment');
  let shown = !banner.hidden;
  new MutationObserver(() => {
    if (!banner.hidden && !shown) window.__moments.push(banner.textContent);
    shown = !banner.hidden;
  }).observe(banner, { attributes: true, childList: true, subtree: true, characterData: true });
}
"""


def moments(table: Page) -> list[str]:
    return table.evaluate("() => window.__moments")


def wait_for_moment(table: Page, text: str) -> None:
    table.wait_for_function("(text) => window.__moments.includes(text)", arg=text, timeout=WAIT_MS)


def wait_until_quiet(table: Page) -> None:
    """No moment showing and none waiting in the queue."""
    expect(table.locator("#table-moment")).to_be_hidden(timeout=WAIT_MS)
    expect(table.locator("#table-moment")).to_have_attribute("data-queued", "0")
    expect(table.locator("#table-moment")).to_be_hidden()


def turns(table: Page) -> list[str | None]:
    return table.locator("#table-board .die").evaluate_all(
        "dice => dice.map(d => d.dataset.turn ?? null)"
    )


def test_lying_flat_and_the_moments_of_a_round(site, host_and_guest: OpenRoom) -> None:
    room = host_and_guest()
    ann, bob, code = room.host, room.guest, room.code
    ann_errors, bob_errors = room.host_errors, room.guest_errors
    words = {w.word for w in words_on(BOARD)}
    assert {"gene", "generate", "tare"} <= words

    table = room.new_context(viewport=TABLE_SCREEN).new_page()
    table_errors = watch_errors(table)
    table.add_init_script(COUNT_TONES)
    table.goto(f"{site.url}/r/{code}/table/")
    expect(table.locator("#table-lobby")).to_be_visible()
    expect(table.locator("#table-connection")).to_have_attribute("data-status", "open")
    table.evaluate(WATCH_MOMENTS)

    # The switches, in the lobby: lying flat (off until asked) and the sound.
    flat = table.get_by_label("Lying flat: letters face every way")
    expect(flat).to_be_visible()
    expect(flat).not_to_be_checked()
    sound = table.get_by_role("button", name="Mute the sounds")
    expect(sound).to_have_attribute("aria-pressed", "false")
    flat.check()  # a click: the page may make sounds from now on
    expect(flat).to_be_checked()
    assert overflowing(table) == []
    screenshot(table, "table-moments-lobby")

    type_board(ann, TYPED)
    ann.locator("#start-round").click()
    for page in (ann, bob):
        wait_until_playing(page, timeout=WAIT_MS)
        assert board_faces(page) == BOARD
    expect(table.locator("#table-timer")).to_have_attribute("data-phase", "playing")
    dice = table.locator("#table-board .die")
    expect(dice).to_have_count(16)
    table.wait_for_function(
        "() => [...document.querySelectorAll('#table-board .die')].every(d => d.dataset.turn)",
        timeout=WAIT_MS,
    )
    expect(table.locator("#table-round .table-flat-toggle")).to_be_visible()
    expect(table.get_by_label("Lying flat: letters face every way")).to_be_checked()

    # Every letter turned a quarter at a time, as its die lies; never mirrored.
    before = turns(table)
    assert set(before) <= {"0", "90", "180", "270"}, before
    assert len(set(before)) > 1, before
    transforms = dice.locator(".face").evaluate_all(
        "faces => faces.map(f => getComputedStyle(f).transform)"
    )
    for turn, transform in zip(before, transforms, strict=True):
        assert turn is not None
        expected = {
            "0": ["none", "matrix(1, 0, 0, 1, 0, 0)"],
            "90": ["matrix(0, 1, -1, 0, 0, 0)"],
            "180": ["matrix(-1, 0, 0, -1, 0, 0)"],
            "270": ["matrix(0, -1, 1, 0, 0, 0)"],
        }[turn]
        # Rounding leaves tiny numbers (6.12323e-17) where a 0 is.
        assert normalise(transform) in expected, (turn, transform)
    # N and W read as Z and M when turned: underlined, as on real dice; no other die is.
    ambiguous = dice.evaluate_all(
        "dice => dice.filter(d => d.classList.contains('ambiguous')).map(d => d.dataset.face)"
    )
    assert sorted(ambiguous) == ["n", "n", "w"], ambiguous
    assert overflowing(table) == []
    screenshot(table, "table-moments-flat")

    # Ann's GENE: the round's first word.
    type_word(ann, "gene")
    expect(my_word(ann, "gene")).to_be_visible()
    banner = table.locator("#table-moment")
    expect(banner).to_have_text(FIRST, timeout=WAIT_MS)
    expect(banner).to_be_visible()
    screenshot(table, "table-moments-banner")
    wait_for_moment(table, FIRST)
    wait_until_quiet(table)
    assert moments(table) == [FIRST]
    assert table.evaluate("() => window.__tones") > 0  # a tone, not muted

    # Bob's GENERATE: an 8-letter word, and a tie (nobody strictly ahead: no lead change).
    type_word(bob, "generate")
    expect(my_word(bob, "generate")).to_be_visible()
    expect(banner).to_have_text(LONG, timeout=WAIT_MS)
    screenshot(table, "table-moments-long-word")
    wait_for_moment(table, LONG)
    expect(table.locator(".table-count")).to_have_text(["Ann1", "Bob1"])
    wait_until_quiet(table)
    assert moments(table) == [FIRST, LONG]

    # Muted, the next moment shows without a sound. Bob's TARE puts him ahead.
    sound.click()
    expect(sound).to_have_attribute("aria-pressed", "true")
    tones = table.evaluate("() => window.__tones")
    type_word(bob, "tare")
    expect(my_word(bob, "tare")).to_be_visible()
    wait_for_moment(table, LEAD)
    expect(table.locator(".table-count")).to_have_text(["Bob2", "Ann1"])
    wait_until_quiet(table)
    assert moments(table) == [FIRST, LONG, LEAD]
    assert table.evaluate("() => window.__tones") == tones

    # A reload: the same turns, the switches remembered, no moment told again.
    table.reload()
    expect(table.locator("#table-timer")).to_have_attribute("data-phase", "playing")
    expect(table.locator(".table-count")).to_have_text(["Bob2", "Ann1"])
    expect(table.get_by_label("Lying flat: letters face every way")).to_be_checked()
    expect(table.get_by_role("button", name="Mute the sounds")).to_have_attribute(
        "aria-pressed", "true"
    )
    table.wait_for_function(
        "() => [...document.querySelectorAll('#table-board .die')].every(d => d.dataset.turn)",
        timeout=WAIT_MS,
    )
    assert turns(table) == before
    expect(table.locator("#table-moment")).to_be_hidden()

    # Upright again: no die turned; lying flat once more, the same turns.
    table.get_by_label("Lying flat: letters face every way").uncheck()
    assert turns(table) == [None] * 16
    expect(table.locator("#table-board .die.ambiguous")).to_have_count(0)
    table.get_by_label("Lying flat: letters face every way").check()
    assert turns(table) == before

    # The round's end: no moments, the results.
    table.evaluate(WATCH_MOMENTS)
    site.end_round_now(code)
    expect(table.locator("#table-results")).to_be_visible(timeout=WAIT_MS)
    expect(table.locator("#table-moment")).to_be_hidden()
    assert moments(table) == []
    assert table_errors == [] and ann_errors == [] and bob_errors == []


def normalise(transform: str) -> str:
    """A computed matrix with its near-zero numbers written 0 (and -0 as 0)."""
    if not transform.startswith("matrix("):
        return transform
    numbers = [float(n) for n in transform[len("matrix(") : -1].split(",")]
    rounded = [round(n, 6) + 0.0 for n in numbers]
    return "matrix(" + ", ".join(f"{n:g}" for n in rounded) + ")"
