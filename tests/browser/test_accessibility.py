"""Accessibility in a real browser: axe-core over every page and state, and a round played
with the keyboard alone and followed through a screen reader's live region.

axe-core comes from the npm registry (tests/browser/package.json, pinned by its
package-lock.json; bin/test runs ``npm ci``) and is evaluated into each page by Playwright:
the site itself never serves or downloads it. Without it these tests skip, saying how to
get it, except under CI=true, where they fail. Django's admin pages are not checked.

Every page is checked on a phone and a laptop, in light and dark mode (the pages follow the
system's colour scheme): no serious or critical violation is allowed. The room's pages and
the table screen are checked again with players offline, removed and waiting at a locked
room (where a faded name or badge once fell below 4.5:1).
"""

from __future__ import annotations

import json
import os
import re
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from boggle_site.env import get_bool
from tests.browser.helpers import (
    DESKTOP,
    PHONE,
    TABLE_SCREEN,
    board_faces,
    create_room,
    join_room,
    my_word,
    play_best_word,
    type_word,
    wait_until_playing,
    watch_errors,
    words_on,
)

pytestmark = pytest.mark.browser

AXE = Path(__file__).resolve().parent / "node_modules" / "axe-core" / "axe.min.js"
# The impacts a page may not have; axe also reports "moderate" and "minor" ones.
FORBIDDEN_IMPACTS = ("serious", "critical")
# Where a summary of each run's violations goes, for a person to read.
REPORT_DIR = Path(os.environ.get("BOGGLE_A11Y_REPORT_DIR", "/tmp/boggle-a11y"))


@pytest.fixture(scope="module")
def axe_source() -> str:
    if not AXE.exists():
        message = (
            f"{AXE} is missing: run `npm ci --prefix tests/browser` (Node.js 20; bin/test does it)"
        )
        if get_bool(os.environ, "CI"):
            pytest.fail(f"{message}. CI=true: the accessibility tests must run.")
        pytest.skip(message)
    return AXE.read_text(encoding="utf-8")


def axe_violations(page: Page, axe_source: str) -> list[dict]:
    """axe-core's violations on the page as it is now (WCAG 2.x A and AA rules and axe's
    best practices). Evaluated through DevTools, so the site's CSP does not apply to it."""
    if not page.evaluate("() => Boolean(window.axe)"):
        page.evaluate(axe_source)
    return page.evaluate(
        """async () => {
        const result = await window.axe.run(document, {
          resultTypes: ['violations'],
          runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] },
        });
        return result.violations.map(v => ({
          id: v.id, impact: v.impact, help: v.help,
          nodes: v.nodes.map(n => ({ target: n.target.join(' '), summary: n.failureSummary })),
        }));
    }"""
    )


def serious_violations(page: Page) -> list[str]:
    """axe-core's serious and critical findings on the page as it is now (none without
    axe-core: test_accessibility.py says how to get it)."""
    if not AXE.exists():
        return []
    violations = axe_violations(page, AXE.read_text(encoding="utf-8"))
    return [
        f"{v['id']} ({v['impact']}) {node['target']}"
        for v in violations
        if v["impact"] in FORBIDDEN_IMPACTS
        for node in v["nodes"]
    ]


class Audit:
    """The violations of every state one test visits, asserted together at the end (so a
    failing run lists all of them, not the first one)."""

    def __init__(self, axe_source: str, name: str) -> None:
        self.axe_source = axe_source
        self.name = name
        self.found: dict[str, list[dict]] = {}

    def check(self, page: Page, state: str) -> None:
        page.wait_for_timeout(300)  # let transitions (colours fading in) settle
        self.found[state] = axe_violations(page, self.axe_source)

    def forbidden(self) -> list[str]:
        lines = []
        for state, violations in self.found.items():
            for violation in violations:
                if violation["impact"] not in FORBIDDEN_IMPACTS:
                    continue
                for node in violation["nodes"]:
                    lines.append(
                        f"{state}: {violation['id']} ({violation['impact']}) {node['target']}: "
                        f"{node['summary']}"
                    )
        return lines

    def save(self) -> None:
        REPORT_DIR.mkdir(parents=True, exist_ok=True)
        (REPORT_DIR / f"{self.name}.json").write_text(json.dumps(self.found, indent=1))


@pytest.fixture
def new_context(browser) -> Iterator:
    contexts: list[BrowserContext] = []

    def make(viewport: dict, color_scheme: str = "light") -> BrowserContext:
        phone = viewport == PHONE
        context = browser.new_context(
            viewport=viewport,
            has_touch=phone,
            is_mobile=phone,
            color_scheme=color_scheme,
            permissions=["clipboard-read", "clipboard-write"],
        )
        contexts.append(context)
        return context

    yield make
    for context in contexts:
        context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "laptop"])
def test_no_serious_violations_on_any_page(site, new_context, axe_source, viewport, scheme) -> None:
    """Home, daily leaderboard, lobby, table screen (lobby, round, results), round, results,
    a word's meaning (dialog), the language menu, the typed-board grid, a round's read-only
    page, the profile (with and without an account) and its account forms: axe-core finds
    no serious or critical violation on any of them."""
    name = f"{'phone' if viewport == PHONE else 'laptop'}-{scheme}"
    audit = Audit(axe_source, name)
    context = new_context(viewport, scheme)
    page = context.new_page()
    errors = watch_errors(page)

    page.goto(site.url + "/")
    expect(page.get_by_label("Your nickname").first).to_be_visible()
    audit.check(page, "home")
    page.locator(".language-menu summary").click()
    audit.check(page, "home, language menu open")
    page.locator(".language-menu summary").click()

    page.goto(site.url + "/daily/")
    audit.check(page, "daily leaderboard")

    code = create_room(page, site.url, "Ann")
    audit.check(page, "lobby")

    table = context.new_page()
    table.goto(f"{site.url}/r/{code}/table/")
    expect(table.locator("#table-lobby")).to_be_visible()
    audit.check(table, "table screen, lobby")

    page.bring_to_front()
    page.locator("#start-round").click()
    expect(page.locator("#play-board .die").first).to_be_visible()
    audit.check(page, "round, countdown")
    wait_until_playing(page)
    found = words_on(board_faces(page))
    type_word(page, found[0].word)
    expect(my_word(page, found[0].word)).to_be_visible()
    type_word(page, "qzxq")
    expect(page.locator('#my-words li.word[data-word="qzxq"]')).to_be_visible()
    audit.check(page, "round, playing")
    expect(table.locator("#table-timer")).to_have_attribute("data-phase", "playing")
    audit.check(table, "table screen, round")

    site.end_round_now(code)
    expect(page.locator("#results-panel")).to_be_visible(timeout=10_000)
    audit.check(page, "results")
    expect(table.locator("#table-results")).to_be_visible(timeout=10_000)
    audit.check(table, "table screen, results")
    table.close()

    page.locator(f'.player-words .chip-button[data-word="{found[0].word}"]').click()
    page.get_by_role("button", name=f"What does {found[0].word.upper()} mean?").first.click()
    expect(page.get_by_role("dialog")).to_be_visible()
    audit.check(page, "results, a word's meaning (dialog)")
    page.keyboard.press("Escape")
    expect(page.get_by_role("dialog")).to_be_hidden()

    page.get_by_role("button", name="Type a board").click()
    expect(page.locator("#photo-grid .die-input").first).to_be_visible()
    audit.check(page, "results, typed-board grid")

    page.goto(f"{site.url}/r/{code}/rounds/1/")
    expect(page.locator("h1")).to_have_text("Round 1 results")
    audit.check(page, "round page (history)")

    page.goto(f"{site.url}/profile/")
    expect(page.locator("#profile-chart svg")).to_be_visible()  # the round just played
    audit.check(page, "profile")
    page.locator("#account-link").click()
    audit.check(page, "profile, sign in or make an account")
    page.locator("#sign-up-email").fill(f"{name}-{uuid.uuid4().hex[:8]}@example.org")
    page.locator("#sign-up-password").fill("short")
    page.locator("#sign-up").click()
    expect(page.locator("#sign-up-password-error")).to_be_visible()
    audit.check(page, "profile, account refused")
    page.locator("#sign-up-password").fill("an accessible profile")
    page.locator("#sign-up").click()
    expect(page.locator("#profile-sync")).to_contain_text("keeps 1 round")
    page.locator(".profile-delete summary").click()
    audit.check(page, "profile, signed in, delete open")

    audit.save()
    forbidden = audit.forbidden()
    print(f"\n{name}: {len(forbidden)} serious or critical violations", *forbidden, sep="\n  ")
    assert forbidden == []
    assert errors == []


def focus_ring(page: Page) -> dict:
    """The focused element and how its focus shows (outline or box-shadow)."""
    return page.evaluate(
        """() => {
        const el = document.activeElement;
        const style = getComputedStyle(el);
        return {
          id: el.id, tag: el.tagName.toLowerCase(),
          outline: style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0,
          shadow: style.boxShadow !== 'none',
        };
    }"""
    )


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_round_by_keyboard_alone(site, new_context, scheme) -> None:
    """From the lobby to a verdict without a mouse: Tab reaches "Start round" with a visible
    focus ring, Enter starts it, the word field takes the focus when the round opens, and a
    word typed then Enter is judged; no positive tabindex reorders the page."""
    context = new_context(DESKTOP, scheme)
    page = context.new_page()
    errors = watch_errors(page)
    create_room(page, site.url, "Kim")
    assert page.locator("[tabindex]:not([tabindex='-1']):not([tabindex='0'])").count() == 0

    page.locator("body").focus()
    reached = []
    for _ in range(40):
        page.keyboard.press("Tab")
        ring = focus_ring(page)
        reached.append(ring["id"] or ring["tag"])
        assert ring["outline"] or ring["shadow"], f"no visible focus on {ring}"
        if ring["id"] == "start-round":
            break
    assert reached[-1] == "start-round", reached
    page.keyboard.press("Enter")

    wait_until_playing(page)
    expect(page.locator("#entry")).to_be_focused()
    ring = focus_ring(page)
    assert ring["outline"] or ring["shadow"], f"no visible focus on the word field: {ring}"
    word = words_on(board_faces(page))[0].word
    page.keyboard.type(word)
    page.keyboard.press("Enter")
    expect(my_word(page, word)).to_be_visible()
    expect(page.locator("#entry")).to_be_focused()
    expect(page.locator("#entry")).to_have_value("")
    assert errors == []


def test_verdicts_and_the_last_seconds_are_announced(site, new_context) -> None:
    """A screen reader hears, from one polite live region, each verdict and the last ten
    seconds of the round. A 30 s round, waited out in real time: a faked page clock would
    race the page's own re-reading of the server's clock (a ping after the jump)."""
    context = new_context(DESKTOP)
    page = context.new_page()
    errors = watch_errors(page)
    code = create_room(page, site.url, "Lee")
    page.locator("#setting-round_seconds").select_option("30")
    expect(page.locator("#settings-status")).to_have_text("Saved ✓")
    page.locator("#start-round").click()
    wait_until_playing(page)
    found = words_on(board_faces(page))
    live = page.locator("#live")
    expect(live).to_have_attribute("aria-live", "polite")
    assert (
        page.locator("[aria-live]").evaluate_all(
            "regions => regions.filter(r => r.id === 'live').length"
        )
        == 1
    )

    word = found[0].word
    type_word(page, word)
    expect(live).to_have_text(re.compile(rf"^{word}: accepted, \d+ points?$", re.IGNORECASE))
    type_word(page, "qzxq")
    expect(live).not_to_contain_text(word)
    expect(live).not_to_be_empty()
    refused = live.text_content() or ""
    assert "qzxq" in refused.lower(), refused

    # Said once the round is 10 s from its end, and kept until the round ends.
    expect(live).to_have_text("10 seconds left", timeout=45_000)
    assert code
    assert errors == []


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_serious_violations_with_players_offline_kicked_and_waiting(
    site, new_context, axe_source, scheme
) -> None:
    """The pages as a games night leaves them, not only with everyone online: a locked room
    with a newcomer waiting and a player removed (the host's lobby, the removed player's and
    the newcomer's pages), a player gone offline, then the host too (their page and the
    table screen, where the host's badge and the names of the players away are drawn)."""
    audit = Audit(axe_source, f"away-{scheme}")
    ann = new_context(DESKTOP, scheme).new_page()
    bob, cid, dan = (new_context(PHONE, scheme).new_page() for _ in range(3))
    table = new_context(TABLE_SCREEN, scheme).new_page()
    code = create_room(ann, site.url, "Ann")
    for page, nickname in ((bob, "Bob"), (cid, "Cid")):
        join_room(page, f"{site.url}/r/{code}/", nickname)
    ann.locator("#lock-room").click()
    expect(ann.locator("#lock-room")).to_have_attribute("aria-pressed", "true")
    dan.goto(f"{site.url}/r/{code}/")
    dan.get_by_label("Your nickname").fill("Dan")
    dan.get_by_role("button", name="Ask to join").click()
    expect(dan.locator("#waiting-panel")).to_be_visible()
    audit.check(dan, "a newcomer waiting")
    ann.get_by_role("button", name="Remove: Bob").click()
    ann.get_by_role("button", name="Sure? Remove: Bob").click()
    expect(bob.locator("#gone-title")).to_have_text("You were removed from the room")
    audit.check(bob, "a removed player's page")
    table.goto(f"{site.url}/r/{code}/table/")
    expect(table.locator("#table-lobby")).to_be_visible()

    cid.context.close()  # Cid's phone goes away
    expect(ann.locator("#players .player", has_text="Cid").locator(".presence")).to_have_text(
        "offline"
    )
    expect(ann.locator("#waiting-requests .waiting-person")).to_have_count(1)
    expect(ann.locator(".kicked-player")).to_have_count(1)
    audit.check(ann, "host's lobby: a newcomer waiting, a player removed, one offline")
    ann.get_by_role("button", name="Refuse Dan").click()
    expect(ann.get_by_role("button", name="Undo: refuse Dan")).to_be_visible()
    audit.check(ann, "host's lobby: a refusal to undo")
    expect(table.locator("#table-players .table-player.away")).to_have_count(1)
    audit.check(table, "table screen, lobby, a player offline")

    ann.context.close()  # the host's laptop too
    expect(table.locator("#table-players .table-player.away")).to_have_count(2)
    audit.check(table, "table screen, lobby, the host and a player offline")

    audit.save()
    forbidden = audit.forbidden()
    print(
        f"\naway-{scheme}: {len(forbidden)} serious or critical violations", *forbidden, sep="\n  "
    )
    assert forbidden == []


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_serious_violations_with_reactions(site, new_context, axe_source, scheme) -> None:
    """The results with reactions on screen: a word's emoji, a score's row of emoji open,
    the quick phrases, and the reactions shown on a phone, a laptop and the table screen."""
    audit = Audit(axe_source, f"reactions-{scheme}")
    ann = new_context(DESKTOP, scheme).new_page()
    bob = new_context(PHONE, scheme).new_page()
    table = new_context(TABLE_SCREEN, scheme).new_page()
    code = create_room(ann, site.url, "Ann")
    join_room(bob, f"{site.url}/r/{code}/", "Bob")
    table.goto(f"{site.url}/r/{code}/table/")
    best = play_best_word(ann, bob)
    site.end_round_now(code)
    for page in (ann, bob):
        expect(page.locator("#results-panel")).to_be_visible(timeout=15_000)
    ann.locator(f'.player-words .chip-button[data-word="{best.word}"]').first.click()
    ann.locator('.word-reactions [data-emoji="wow"]').click()
    bob.locator(".scoreboard .react-toggle").click()
    expect(bob.locator(".react-row .emoji-button")).to_have_count(6)
    for page, state in ((ann, "laptop"), (bob, "phone, a score's emoji open"), (table, "table")):
        expect(page.locator(".reaction-toast").first).to_be_visible()
        audit.check(page, f"results with a reaction: {state}")
    audit.save()
    forbidden = audit.forbidden()
    print(f"\nreactions-{scheme}: {len(forbidden)} serious or critical", *forbidden, sep="\n  ")
    assert forbidden == []


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "laptop"])
def test_no_serious_violations_in_offline_practice(
    site, new_context, axe_source, viewport, scheme
) -> None:
    """Offline practice with the network cut: choosing, a round with verdicts, and the
    results with a word's path lit."""
    name = f"offline-{'phone' if viewport == PHONE else 'laptop'}-{scheme}"
    audit = Audit(axe_source, name)
    context = new_context(viewport, scheme)
    page = context.new_page()
    page.goto(site.url + "/offline/")
    expect(page.locator("#offline-start")).to_be_enabled(timeout=30_000)
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    page.reload()
    expect(page.locator("#offline-start")).to_be_enabled()
    context.set_offline(True)
    page.reload()
    expect(page.locator("#network-status")).to_be_visible()
    audit.check(page, "offline practice, choosing")
    page.locator("#offline-start").click()
    found = words_on(board_faces(page))
    type_word(page, found[0].word)
    expect(my_word(page, found[0].word)).to_be_visible()
    type_word(page, "qzxq")
    expect(page.locator('#my-words li.word[data-word="qzxq"]')).to_be_visible()
    audit.check(page, "offline practice, playing")
    page.locator("#end-round").click()
    page.locator(f'.all-words .chip-button[data-word="{found[0].word}"]').click()
    expect(page.locator(".selected-word")).to_contain_text("you found it")
    audit.check(page, "offline practice, results")
    audit.save()
    forbidden = audit.forbidden()
    print(f"\n{name}: {len(forbidden)} serious or critical", *forbidden, sep="\n  ")
    assert forbidden == []
