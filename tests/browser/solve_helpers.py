"""The Solve page's moves for the browser tests (test_solve*.py): typing a board into its
grid, solving it, reading what the page shows. The page is told apart by ids and roles, not
by its English words, so that the same moves work in Dutch and French."""

from __future__ import annotations

from playwright.sync_api import Browser, BrowserContext, Page, ViewportSize, expect

from solver import from_faces
from solver.board import TWO_LETTER_FACES, parse_board
from tests.browser.helpers import PHONE, words_on

# Accept-Language of each page language the site has.
LOCALES = {"en": "en-GB", "nl": "nl-NL", "fr": "fr-FR"}
# "What does X mean?" in each language (static/js/room/definitions.js, translated).
MEANING = {"en": "What does {} mean?", "nl": "Wat betekent {}?", "fr": "Que veut dire {} ?"}


def solve_context(
    browser: Browser, viewport: ViewportSize, language: str = "en", **options
) -> BrowserContext:
    """A browser in ``language`` on a phone (touch) or a laptop."""
    phone = viewport == PHONE
    return browser.new_context(
        viewport=viewport, has_touch=phone, is_mobile=phone, locale=LOCALES[language], **options
    )


def press(page: Page, target) -> None:
    """Tap on a touch screen, click with a mouse."""
    if page.viewport_size == PHONE:
        target.tap()
    else:
        target.click()


def faces_of(board: str) -> list[str]:
    """A board's faces row by row ("qu" for the Qu die), as the solver reads its text."""
    return [face for row in parse_board(board).grid() for face in row]


def keys_for(faces: list[str]) -> str:
    """What a person types into the grid for ``faces``: each face, and a space after a lone
    letter that would otherwise make a two-letter face with the next one (on 6x6)."""
    typed = ""
    for index, face in enumerate(faces):
        typed += "q" if face == "qu" else face
        following = faces[index + 1] if index + 1 < len(faces) else ""
        if len(face) == 1 and following and face + following[0] in TWO_LETTER_FACES:
            typed += " "
    return typed


def face_text(face: str) -> str:
    """A face as the grid shows it: "A", "Qu", "Th"."""
    return face[0].upper() + face[1:]


def grid_values(page: Page) -> list[str]:
    return page.locator("#board-grid .die-input").evaluate_all("d => d.map(i => i.value)")


def type_board(page: Page, faces: list[str]) -> None:
    """Type a board into the grid from its first die, as a person would."""
    side = int(len(faces) ** 0.5)
    size = page.locator(f"#solve-size input[value='{side}x{side}']")
    if not size.is_checked():
        size.check(force=True)  # the radio is covered by its styled label
    inputs = page.locator("#board-grid .die-input")
    expect(inputs).to_have_count(len(faces))
    press(page, inputs.first)
    page.keyboard.type(keys_for(faces))
    assert grid_values(page) == [face_text(face) for face in faces], grid_values(page)


def solve(page: Page) -> None:
    """Press Solve and wait for the words."""
    press(page, page.locator("#solve-button"))
    expect(page.locator("#words-results")).to_be_visible()
    expect(page.locator("#pane-card")).to_be_visible()


def lit_path(page: Page) -> list[int]:
    """The dice lit on the board pane, in the path's order (their numbers)."""
    lit = page.locator("#pane-board .die.on").evaluate_all(
        "dice => dice.map(d => [Number(d.querySelector('.order').textContent), Number(d.dataset.cell)])"
    )
    return [cell for _, cell in sorted(lit)]


def fill_lists(page: Page, lists: dict[str, str]) -> None:
    """Each player's name and words in the lists' rows, in order ("Check our lists")."""
    players = page.locator("#paper-players .paper-player")
    for index, (name, words) in enumerate(lists.items()):
        row = players.nth(index)
        if row.locator(".paper-name").input_value() != name:
            row.locator(".paper-name").fill(name)
        row.locator(".paper-words").fill(words)


def no_serious_violations(audit, name: str) -> None:
    """Save the audit's report, say what it found, and fail on a serious or critical issue
    (test_accessibility.py's Audit)."""
    audit.save()
    forbidden = audit.forbidden()
    print(f"\n{name}: {len(forbidden)} serious or critical violations", *forbidden, sep="\n  ")
    assert forbidden == []


def chip(page: Page, word: str, within: str = "#words-groups"):
    return page.locator(f"{within} .chip-button[data-word='{word}']")


def solution(board: str, min_length: int = 3) -> dict:
    """Every English word of a board by the project's solver: word to FoundWord."""
    faces = parse_board(board).grid()
    assert from_faces(faces).to_text() == board
    return {found.word: found for found in words_on(faces, min_length)}
