"""The Solve page in real browsers, on a 360 px phone and a laptop, in English, Dutch and
French: a 4x4 board typed with its Qu die shows every word (count, most points, by length),
filters narrow them, a word lights its path and, tapped again, opens its meaning; the
address follows the board and opens it again, solved by the server; a 6x6 board takes its
two-letter face; "Play this board" starts a solo round or a room on that board; axe finds no
serious issue on the solved page."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser import test_accessibility
from tests.browser.helpers import (
    DESKTOP,
    PHONE,
    board_faces,
    overflowing,
    screenshot,
    small_targets,
    wait_until_playing,
    watch_errors,
)
from tests.browser.solve_helpers import (
    MEANING,
    chip,
    face_text,
    faces_of,
    fill_lists,
    grid_values,
    lit_path,
    no_serious_violations,
    press,
    solution,
    solve,
    solve_context,
    type_board,
)
from tests.browser.test_accessibility import Audit

pytestmark = pytest.mark.browser
# axe-core's source, skipping without it (test_accessibility.py's fixture, shared).
axe_source = test_accessibility.axe_source

# A 4x4 board with the Qu die first ("q" in board text): 415 words in the English list.
QU_BOARD = "qiet sarn lode pmbc"
# A 6x6 board whose first die is the Th face.
TH_BOARD = "th,e,m,a,s,t orings acedpu slowbe nditry kfamho"
# The rooms' usual 4x4 example.
PLAIN_BOARD = "aeol iejm pdls orkq"
# The first die's name in each language (the room's typed-board grid's, translated).
FIRST_DIE = {"en": "Row 1, die 1", "nl": "Rij 1, dobbelsteen 1", "fr": "Ligne 1, dé 1"}


@pytest.mark.parametrize(
    ("language", "viewport"),
    [("en", PHONE), ("en", DESKTOP), ("nl", PHONE), ("fr", DESKTOP)],
    ids=["en-phone", "en-laptop", "nl-phone", "fr-laptop"],
)
def test_a_typed_board_shows_every_word(site, browser, language, viewport) -> None:
    context = solve_context(browser, viewport, language)
    try:
        page = context.new_page()
        errors = watch_errors(page)
        page.goto(f"{site.url}/solve/")
        expect(page.locator("html")).to_have_attribute("lang", language)
        expect(page.locator("#words-empty")).to_be_visible()

        faces = faces_of(QU_BOARD)
        type_board(page, faces)  # "q" then "i": the Qu die, then the I die
        assert grid_values(page)[:2] == ["Qu", "I"]
        first_die = page.locator("#board-grid .die-input").first
        expect(first_die).to_have_attribute("aria-label", FIRST_DIE[language])
        solve(page)
        words = solution(QU_BOARD)
        assert len(words) > 100
        expect(page.locator("#words-title")).to_contain_text(str(len(words)))
        most = sum(found.points for found in words.values())
        expect(page.locator("#words-summary")).to_contain_text(str(most))
        # Grouped by length, longest first; the rare words folded under each length.
        lengths = page.locator("#words-groups .word-group").evaluate_all(
            "groups => groups.map(g => Number(g.dataset.length))"
        )
        assert lengths == sorted({len(word) for word in words}, reverse=True)
        assert page.locator("#words-groups .chip-button").count() == len(words)
        folded = page.locator("#words-groups .word-group").evaluate_all(
            """groups => groups.map(g => [
                Boolean(g.querySelector(':scope > .chips')),
                g.querySelector('details.rare-group')?.open ?? null])"""
        )
        # A length with common words folds its rare ones; one with only rare words shows them.
        assert all(shown is None or shown != has_common for has_common, shown in folded)
        assert [False] in [[shown] for _, shown in folded]
        assert page.url.endswith("/solve/qiet/sarn/lode/pmbc/?dictionary=english")
        if viewport == PHONE:
            assert overflowing(page) == []
            assert small_targets(page) == []
        screenshot(page, f"solve-typed-{language}-{'phone' if viewport == PHONE else 'laptop'}")

        # Filters: first letters, then a length too; the rare words matching show.
        page.locator("#filter-start").fill("squ")
        squ = sorted(word for word in words if word.startswith("squ"))
        visible = page.locator("#words-groups .chip-button:visible")
        expect(visible).to_have_count(len(squ))
        assert sorted(visible.evaluate_all("b => b.map(x => x.dataset.word)")) == squ
        expect(page.locator("#words-count")).to_contain_text(str(len(squ)))
        page.locator("#filter-length").select_option("7")
        sevens = [word for word in squ if len(word) == 7]
        expect(visible).to_have_count(len(sevens))
        page.locator("#filter-contains").fill("zzz")
        expect(page.locator(".solve-no-match")).to_be_visible()
        press(page, page.locator("#filters-clear"))
        expect(page.locator("#words-groups .chip-button")).to_have_count(len(words))

        # A word lights its path, dice numbered in order; tapped again, its meaning.
        word = "squared"
        target = chip(page, word)
        press(page, target)
        expect(target).to_have_attribute("aria-pressed", "true")
        expect(page.locator("#pane-board .die.on")).to_have_count(len(words[word].path))
        assert lit_path(page) == list(words[word].path)
        expect(page.locator("#pane-caption")).to_contain_text(word)
        meaning = MEANING[language].format(word.upper())
        expect(page.get_by_role("button", name=meaning)).to_be_visible()
        if viewport == PHONE:
            screenshot(page, f"solve-path-{language}-phone")
        press(page, target)
        dialog = page.get_by_role("dialog")
        expect(dialog).to_be_visible()
        expect(dialog).to_contain_text(word)
        page.keyboard.press("Escape")
        expect(dialog).to_be_hidden()
        assert lit_path(page) == list(words[word].path)  # still lit
        assert errors == []
    finally:
        context.close()


def test_a_link_opens_its_board_solved(site, browser) -> None:
    """The start page leads to /solve/; /solve/<rows>/?dictionary=… shows its words as the
    page opens (the server solved it: the page asks the API nothing); "Change the board" and
    "New board"; a pasted link fills the grid; a board that is none says why where it is
    typed; offline, the page says so."""
    context = solve_context(browser, DESKTOP)
    try:
        page = context.new_page()
        errors = watch_errors(page)
        asked: list[str] = []
        page.goto(f"{site.url}/")  # the start page leads here
        page.locator("#solve-link").click()
        page.wait_for_url(f"{site.url}/solve/")
        page.on("request", lambda r: asked.append(r.url) if "/api/solve" in r.url else None)
        page.goto(f"{site.url}/solve/aeol/iejm/pdls/orkq/?dictionary=english-common")
        common = solution(PLAIN_BOARD)  # more words than the common list has
        expect(page.locator("#words-results")).to_be_visible()
        title = page.locator("#words-title").text_content() or ""
        count = int(re.sub(r"\D", "", title))
        assert 0 < count < len(common)
        expect(page.locator("#pane-meta")).to_contain_text("English (common words)")
        assert grid_values(page) == [face_text(face) for face in faces_of(PLAIN_BOARD)]
        expect(page.locator("#board-link")).to_have_value(
            f"{site.url}/solve/aeol/iejm/pdls/orkq/?dictionary=english-common"
        )
        assert asked == []

        # "Change the board": the grid again, with the board; the words wait meanwhile.
        page.locator("#edit-board").click()
        expect(page.locator("#entry-card")).to_be_visible()
        expect(page.locator("#pane-card")).to_be_hidden()
        assert page.locator("#words-panel").evaluate("p => p.inert")
        page.locator("#cancel-edit").click()
        expect(page.locator("#pane-card")).to_be_visible()

        # "New board": an empty grid, the address back to /solve/.
        page.locator("#new-board").click()
        expect(page.locator("#words-empty")).to_be_visible()
        assert grid_values(page) == [""] * 16
        assert page.url == f"{site.url}/solve/"

        # A pasted board fills the grid (anywhere on the page), here a Solve link.
        page.locator("h1").click()
        page.evaluate(
            """(text) => {
                const data = new DataTransfer();
                data.setData('text/plain', text);
                document.body.dispatchEvent(new ClipboardEvent('paste', {clipboardData: data, bubbles: true}));
            }""",
            f"{site.url}/solve/qiet/sarn/lode/pmbc/",
        )
        assert grid_values(page) == [face_text(face) for face in faces_of(QU_BOARD)]

        response = page.goto(f"{site.url}/solve/aeolx/iejm/")
        assert response is not None and response.status == 400
        expect(page.locator("#board-error")).to_be_visible()
        expect(page.locator("#words-empty")).to_be_visible()

        # Offline: the page says so, and a solve that cannot reach the server says why.
        page.goto(f"{site.url}/solve/")
        context.set_offline(True)
        expect(page.locator("#solve-offline")).to_be_visible()
        type_board(page, faces_of(PLAIN_BOARD))
        page.locator("#solve-button").click()
        expect(page.locator("#words-error")).to_be_visible()
        context.set_offline(False)
        expect(page.locator("#solve-offline")).to_be_hidden()
        solve(page)
        # The browser logs the 400 page and the requests made offline.
        expected = ("status of 400", "ERR_INTERNET_DISCONNECTED")
        assert [e for e in errors if not any(text in e for text in expected)] == []
    finally:
        context.close()


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "laptop"])
def test_a_6x6_board_with_a_two_letter_face(site, browser, viewport) -> None:
    """On 6x6 "t" then "h" is the Th die (Space after a lone T moves on); its words use it."""
    context = solve_context(browser, viewport)
    try:
        page = context.new_page()
        errors = watch_errors(page)
        page.goto(f"{site.url}/solve/")
        faces = faces_of(TH_BOARD)
        assert faces[0] == "th"
        type_board(page, faces)
        cells = page.locator("#board-grid .die-input")
        for index in (0, 35):
            box = cells.nth(index).bounding_box()
            assert box is not None and box["width"] >= 44 and box["height"] >= 44
        if viewport == PHONE:
            assert overflowing(page) == []
            screenshot(page, "solve-6x6-typed-phone")
        solve(page)
        assert page.url.endswith(
            "/solve/th,e,m,a,s,t/orings/acedpu/slowbe/nditry/kfamho/?dictionary=english"
        )
        words = solution(TH_BOARD, min_length=4)
        expect(page.locator("#words-title")).to_contain_text(str(len(words)))
        through_th = sorted((word for word, found in words.items() if 0 in found.path), key=len)
        assert through_th, "the board has no word through its Th die"
        word = through_th[-1]
        page.locator("#filter-start").fill(word)  # rare words are folded: find it
        press(page, chip(page, word))
        assert lit_path(page) == list(words[word].path)
        expect(page.locator("#pane-board .die[data-cell='0']")).to_have_class(re.compile(r"\bon\b"))
        screenshot(page, f"solve-6x6-{'phone' if viewport == PHONE else 'laptop'}")
        assert errors == []
    finally:
        context.close()


@pytest.mark.parametrize("how", ["solo", "room"])
def test_play_this_board(site, browser, how) -> None:
    """ "Play this board": alone, the round starts on that board at once; a room's first
    round plays it. The nickname is asked for only then, and remembered."""
    context = solve_context(browser, PHONE)
    try:
        page = context.new_page()
        errors = watch_errors(page)
        page.goto(f"{site.url}/solve/qiet/sarn/lode/pmbc/")
        expect(page.locator("#play-form")).to_be_hidden()
        page.locator("#play-toggle").tap()
        expect(page.locator("#play-toggle")).to_have_attribute("aria-expanded", "true")
        page.locator("#play-solo").tap()
        expect(page.locator("#play-error")).to_be_visible()  # a nickname first
        page.locator("#play-nickname").fill("Noor")
        page.locator(f"#play-{how}").tap()
        page.wait_for_url("**/r/*/")
        if how == "room":
            page.locator("#start-round").click()
        wait_until_playing(page)
        rows = [row.split(",") if "," in row else list(row) for row in QU_BOARD.split()]
        assert board_faces(page) == [
            ["qu" if face == "q" else face for face in row] for row in rows
        ]
        assert page.evaluate("() => JSON.parse(localStorage.getItem('boggle.nickname'))") == "Noor"
        assert errors == []
    finally:
        context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "laptop"])
def test_no_serious_violations_on_the_solve_page(
    site, browser, axe_source, viewport, scheme
) -> None:
    """axe-core on the Solve page: empty, a typed board solved with a word lit, the meaning
    dialog, a paper game's lists filled in, then checked with a missed word lit."""
    name = f"solve-{'phone' if viewport == PHONE else 'laptop'}-{scheme}"
    audit = Audit(axe_source, name)
    context = solve_context(browser, viewport, color_scheme=scheme)
    try:
        page = context.new_page()
        errors = watch_errors(page)
        page.goto(f"{site.url}/solve/")
        audit.check(page, "empty")
        type_board(page, faces_of(QU_BOARD))
        solve(page)
        press(page, chip(page, "squared"))
        page.locator("#words-groups details.rare-group").first.locator("summary").click()
        page.locator("#play-toggle").click()
        audit.check(page, "solved, a word lit, play form open")
        press(page, chip(page, "squared"))
        expect(page.get_by_role("dialog")).to_be_visible()
        audit.check(page, "a word's meaning")
        page.keyboard.press("Escape")
        page.locator("#tab-lists").click()
        expect(page.locator("#lists-panel")).to_be_visible()
        fill_lists(page, {"Ann": "squared quiet zzz", "Bob": "square, squared"})
        audit.check(page, "the lists tab, filled in")
        page.locator("#check-lists").click()
        expect(page.locator("#paper-results")).to_be_visible()
        page.locator(".paper-missed .missed-common summary").click()  # many: folded
        page.locator(".paper-missed .chip-button").first.click()
        page.locator(".paper-missed details.rare-words summary").click()
        audit.check(page, "the lists checked, a missed word lit")
        screenshot(page, f"{name}-lists", full_page=True)
        no_serious_violations(audit, name)
        assert errors == []
    finally:
        context.close()
