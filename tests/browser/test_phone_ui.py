"""The room on a phone and a laptop: the invitation first in the lobby, the player's own
words in view during a round, long nicknames that do not widen the page, the shortest
round length, focus for keyboard and screen-reader users, and dark mode."""

from __future__ import annotations

import os
import re

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import (
    DESKTOP,
    PHONE,
    SHARP_PHONE,
    OpenRoom,
    board_faces,
    create_room,
    my_word,
    overflowing,
    phone_context,
    small_targets,
    start_solo_round,
    type_word,
    wait_until_playing,
    watch_errors,
    words_on,
)

pytestmark = pytest.mark.browser

# Where these tests' own screenshots go, to be looked at (never into the repository).
SHOT_DIR = os.environ.get("BOGGLE_UI_SHOTS", "")


def shot(page, name: str) -> None:
    if SHOT_DIR:
        page.screenshot(path=f"{SHOT_DIR}/{name}.png", animations="disabled")


def sharp_phone_context(browser, **options):
    """A phone (``helpers.phone_context``) with a 2x screen."""
    return phone_context(browser, device_scale_factor=2, **options)


def in_viewport(page, selector: str) -> bool:
    """Whether the element is wholly inside the viewport as the page is scrolled now."""
    return page.locator(selector).evaluate(
        """el => {
        const box = el.getBoundingClientRect();
        return box.width > 0 && box.height > 0 && box.top >= 0 && box.left >= 0
          && box.bottom <= window.innerHeight && box.right <= window.innerWidth;
    }"""
    )


def top_of(page, selector: str) -> float:
    return page.locator(selector).first.evaluate("el => el.getBoundingClientRect().top")


# Pretend the browser has the Web Share API, and record what it is asked to share.
FAKE_SHARE = """
window.__shared = [];
Object.defineProperty(navigator, "share", {
  configurable: true,
  value: (data) => { window.__shared.push(data); return Promise.resolve(); },
});
"""


def test_host_on_a_phone_sees_the_invitation_first(site, browser) -> None:
    """The lobby opens with the QR code and a Share button (the Web Share API), above the
    start button, the rules, the photo card and the settings; all in the first screen."""
    context = sharp_phone_context(browser)
    context.add_init_script(FAKE_SHARE)
    try:
        page = context.new_page()
        errors = watch_errors(page)
        code = create_room(page, site.url, "Ann")
        invite = page.locator("#lobby-panel .lobby-invite")
        expect(invite).to_be_visible()
        expect(invite.locator(".qr svg")).to_be_visible()
        # The first thing in the lobby panel, and above everything else on the page.
        first = page.locator("#lobby-panel > :not([hidden])").first
        assert first.evaluate("el => el.classList.contains('lobby-invite')")
        invite_top = top_of(page, "#lobby-panel .lobby-invite")
        for other in [
            "#lobby-panel .lobby-hero",
            "#lobby-panel .rules",
            "#photo-card",
            "#settings-card",
        ]:
            assert invite_top < top_of(page, other), other
        assert in_viewport(page, "#lobby-panel .lobby-invite .qr")
        # The side card would only repeat it.
        expect(page.locator("#share-card")).to_be_hidden()

        share = page.locator("#share-link")
        expect(share).to_be_visible()
        assert in_viewport(page, "#share-link")
        share.click()
        shared = page.evaluate("window.__shared")
        assert len(shared) == 1 and shared[0]["url"].endswith(f"/r/{code}/"), shared
        assert overflowing(page) == []
        assert small_targets(page) == []
        shot(page, "lobby-phone-invite")
        assert errors == []
    finally:
        context.close()


def test_without_web_share_the_invitation_copies_the_link(site, browser) -> None:
    """No navigator.share (most laptops): no Share button, the Copy button copies."""
    context = sharp_phone_context(browser)
    context.add_init_script("delete Navigator.prototype.share;")
    try:
        page = context.new_page()
        create_room(page, site.url, "Ann")
        expect(page.locator("#share-link")).to_be_hidden()
        copy = page.locator("#lobby-panel .copy-link")
        expect(copy).to_be_visible()
        assert in_viewport(page, "#lobby-panel .copy-link")
        copy.click()
        expect(page.locator("#lobby-panel .copy-status")).to_contain_text("Link copied")
    finally:
        context.close()


@pytest.mark.parametrize(
    "viewport",
    [PHONE, {"width": 1280, "height": 800}],
    ids=["phone", "laptop"],
)
def test_own_words_are_in_view_during_a_round(site, browser, viewport) -> None:
    """After three words and a refused entry, the latest word and the count (entries and
    accepted words apart) show without scrolling."""
    phone = viewport == PHONE
    context = sharp_phone_context(browser) if phone else browser.new_context(viewport=viewport)
    try:
        page = context.new_page()
        errors = watch_errors(page)
        _, found = start_solo_round(page, site.url, "Ann")
        type_word(page, "zzxq")  # refused: not on the board
        expect(page.locator('#recent-list .recent-word.bad[data-word="zzxq"]')).to_be_visible()
        for word in found[1:3]:
            type_word(page, word.word)
            expect(my_word(page, word.word)).to_be_visible()
        page.evaluate("window.scrollTo(0, 0)")
        latest = found[2].word
        recent = page.locator(f'#recent-list .recent-word[data-word="{latest}"]')
        expect(recent).to_be_visible()
        assert in_viewport(page, f'#recent-list .recent-word[data-word="{latest}"]')
        assert in_viewport(page, "#recent-count")
        expect(page.locator("#recent-count")).to_have_text("(4 entered, 3 accepted)")
        # Newest first.
        expect(page.locator("#recent-list .recent-word").first).to_have_attribute(
            "data-word", latest
        )
        # The word field and the whole board stay in view too.
        assert in_viewport(page, "#entry")
        assert in_viewport(page, "#play-board")
        assert overflowing(page) == []
        shot(page, f"round-{'phone' if phone else 'laptop'}-recent")
        assert errors == []
    finally:
        context.close()


# 24 characters, the most a nickname has, no spaces, and of the widest letters.
LONG_NAME = "WWWWWWWWWWWW_MMMMMMMMMMM"


def test_a_long_nickname_does_not_widen_the_page(site, host_and_guest: OpenRoom) -> None:
    """A 24-character nickname without spaces, at 360 px: lobby, round and results fit."""
    assert len(LONG_NAME) == 24
    room = host_and_guest(
        LONG_NAME, LONG_NAME[::-1], host_device=SHARP_PHONE, guest_device=SHARP_PHONE, join=False
    )
    host, guest, code = room.host, room.guest, room.code
    guest.goto(f"{site.url}/r/{code}/")
    expect(guest.locator("#join-summary")).to_contain_text(LONG_NAME)
    assert overflowing(guest) == [], "join form"
    room.join()
    expect(host.locator("#players .player")).to_have_count(2)
    for page, name in [(host, "host"), (guest, "guest")]:
        assert overflowing(page) == [], f"lobby ({name})"
    shot(guest, "long-name-lobby")

    host.locator("#start-round").click()
    wait_until_playing(host)
    wait_until_playing(guest)
    found = words_on(board_faces(host))
    type_word(host, found[0].word)
    expect(my_word(host, found[0].word)).to_be_visible()
    type_word(guest, found[1].word)
    expect(my_word(guest, found[1].word)).to_be_visible()
    for page, name in [(host, "host"), (guest, "guest")]:
        assert overflowing(page) == [], f"round ({name})"

    site.end_round_now(code)
    expect(host.locator("#results-panel")).to_be_visible()
    expect(guest.locator("#results-panel")).to_be_visible()
    for page, name in [(host, "host"), (guest, "guest")]:
        assert overflowing(page) == [], f"results ({name}): {overflowing(page)}"
    shot(guest, "long-name-results")
    assert room.host_errors == [] and room.guest_errors == []


def test_rounds_can_last_30_seconds(site, browser) -> None:
    """The host's round lengths start at 30 s (the server allows 30 to 1800)."""
    context = browser.new_context(viewport=DESKTOP)
    try:
        page = context.new_page()
        create_room(page, site.url, "Ann")
        select = page.locator("#setting-round_seconds")
        expect(select.locator("option").first).to_have_attribute("value", "30")
        expect(select.locator("option").first).to_have_text("30 s")
        select.select_option("30")
        expect(page.locator("#settings-status")).to_have_text("Saved ✓")
        page.reload()
        expect(page.locator("#setting-round_seconds")).to_have_value("30")
        page.locator("#start-round").click()
        wait_until_playing(page)
        expect(page.locator("#timer-value")).to_have_text(re.compile(r"^0:(30|2\d)$"))
    finally:
        context.close()


# ---------------------------------------------------------------- contrast, focus, dark mode

CONTRAST_JS = """
const parse = (text) => {
  const m = text.match(/rgba?\\(([^)]+)\\)/);
  if (!m) return null;
  const p = m[1].split(/[\\s,\\/]+/).filter(Boolean).map(Number);
  return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
};
const lum = ([r, g, b]) => {
  const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
  return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
};
const ratio = (a, b) => {
  const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05);
};
const over = (top, base) => base.map((v, i) => v * (1 - top[3]) + top[i] * top[3]);
/** The colour behind an element: its and its ancestors' backgrounds, composited; null
 * when an image or gradient is in the way (not measurable this way). */
const backdrop = (el) => {
  const layers = [];
  for (let e = el; e; e = e.parentElement) {
    const style = getComputedStyle(e);
    const colour = parse(style.backgroundColor);
    if (colour && colour[3] > 0) {
      layers.push(colour);
      if (colour[3] >= 1) break;
    } else if (style.backgroundImage !== "none") {
      return null;
    }
  }
  let base = [255, 255, 255];
  for (const colour of layers.reverse()) base = over(colour, base);
  return base;
};
"""


def low_contrast_text(page) -> list[str]:
    """Visible text whose colour has less than 4.5:1 (3:1 when large) against what is
    behind it; text on gradients and images, and dimmed (disabled) controls, are skipped."""
    return page.evaluate(
        "() => {"
        + CONTRAST_JS
        + """
        const found = [];
        for (const el of document.body.querySelectorAll('*')) {
          if (el.closest('.visually-hidden, [hidden], script, svg, template')) continue;
          const text = [...el.childNodes].filter((n) => n.nodeType === 3).map((n) => n.textContent).join('').trim();
          if (!text) continue;
          const box = el.getBoundingClientRect();
          if (!box.width || !box.height) continue;
          let opacity = 1;
          for (let e = el; e; e = e.parentElement) opacity *= Number(getComputedStyle(e).opacity);
          if (opacity < 1) continue;
          const style = getComputedStyle(el);
          if (style.visibility === 'hidden') continue;
          const back = backdrop(el);
          if (!back) continue;
          const colour = parse(style.color);
          const fore = over(colour, back);
          const size = parseFloat(style.fontSize);
          const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
          const value = ratio(fore, back);
          if (value < (large ? 3 : 4.5)) {
            found.push(`${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''}.${el.className} "${text.slice(0, 20)}": ${value.toFixed(2)} (${style.color} on rgb(${back.map(Math.round)}))`);
          }
        }
        return found;
    }"""
    )


def focus_ring(page) -> dict:
    """The focused element's ring: its width, and its contrast with the backdrop around it
    (the parent's background, since the ring sits outside the element)."""
    return page.evaluate(
        "() => {"
        + CONTRAST_JS
        + """
        let el = document.activeElement;
        // The board-size radios draw their ring on the label's box next to them.
        if (el.matches('.segmented input')) el = el.nextElementSibling;
        const style = getComputedStyle(el);
        const back = backdrop(el.parentElement);
        const colour = parse(style.outlineColor);
        return {
          what: `${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''}.${el.className} "${el.textContent.trim().slice(0, 20)}"`,
          width: style.outlineStyle === 'none' ? 0 : parseFloat(style.outlineWidth),
          contrast: back ? ratio(over(colour, back), back) : null,
        };
    }"""
    )


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_focus_ring_stands_out(site, browser, scheme) -> None:
    """Tabbing through the lobby: every focused control has a ring of 2 px or more with
    at least 3:1 contrast against its surroundings, in light and dark mode."""
    context = browser.new_context(viewport=DESKTOP, color_scheme=scheme)
    try:
        page = context.new_page()
        create_room(page, site.url, "Ann")
        expect(page.locator("#setting-round_seconds")).to_be_visible()
        page.locator("body").focus()
        seen = []
        for _ in range(16):
            page.keyboard.press("Tab")
            ring = focus_ring(page)
            if ring["what"].startswith("body"):
                continue
            seen.append(ring["what"])
            assert ring["width"] >= 2, ring
            if ring["contrast"] is not None:
                assert ring["contrast"] >= 3, ring
        # The walk went through the top bar, the lobby and the settings.
        assert any("brand" in what for what in seen), seen
        assert any("start-round" in what for what in seen), seen
        assert any("setting-" in what for what in seen), seen
    finally:
        context.close()


def test_results_take_the_focus(site, browser) -> None:
    """When a round ends, focus moves to the results' heading (for screen readers and
    keyboards: the controls of the round are gone)."""
    context = browser.new_context(viewport=DESKTOP)
    try:
        page = context.new_page()
        code, _ = start_solo_round(page, site.url, "Ann")
        site.end_round_now(code)
        expect(page.locator("#results-panel")).to_be_visible()
        expect(page.locator("#results-title")).to_be_focused()
        assert page.locator("#results-title").get_attribute("tabindex") == "-1"
    finally:
        context.close()


def body_background_luminance(page) -> float:
    return page.evaluate(
        "() => {"
        + CONTRAST_JS
        + "return lum(parse(getComputedStyle(document.body).backgroundColor)); }"
    )


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_colour_scheme_keeps_text_readable(site, browser, scheme) -> None:
    """With the system in dark mode the pages turn dark; in both modes every text keeps
    4.5:1 (3:1 when large) on the start page, lobby, round and results."""
    host_context = sharp_phone_context(browser, color_scheme=scheme)
    try:
        page = host_context.new_page()
        errors = watch_errors(page)
        page.goto(site.url + "/")
        luminance = body_background_luminance(page)
        assert (luminance < 0.05) if scheme == "dark" else (luminance > 0.5), luminance
        assert low_contrast_text(page) == [], "start page"
        shot(page, f"home-{scheme}")

        code = create_room(page, site.url, "Ann")
        assert low_contrast_text(page) == [], "lobby"
        shot(page, f"lobby-{scheme}")
        page.locator("#start-round").click()
        wait_until_playing(page)
        found = words_on(board_faces(page))
        type_word(page, found[0].word)
        expect(my_word(page, found[0].word)).to_be_visible()
        type_word(page, "zzyzx")
        expect(my_word(page, "zzyzx", "bad")).to_be_visible()
        assert low_contrast_text(page) == [], "round"
        shot(page, f"round-{scheme}")
        site.end_round_now(code)
        expect(page.locator("#results-panel")).to_be_visible()
        page.locator(".player-words .chip-button").first.evaluate("button => button.click()")
        assert low_contrast_text(page) == [], "results"
        shot(page, f"results-{scheme}")
        assert errors == []
    finally:
        host_context.close()
