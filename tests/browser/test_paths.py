"""The page lights the path of a typed word as the server would find it
(static/js/room/paths.js against solver.judge.find_word_path)."""

from __future__ import annotations

import pytest

from solver import parse_board
from solver.judge import find_word_path

pytestmark = pytest.mark.browser

# The Qu die at cell 4 (written "q"), a U die at cell 6: "quit" is on the board (cells 4, 5,
# 2), "qit" is not: the Qu die never spells a lone "q".
BOARD = "cats qiux dogz went"


@pytest.mark.parametrize("typed", ["quit", "qit", "qui", "quu", "cats", "went", "q"])
def test_the_page_finds_a_path_exactly_when_the_server_does(site, browser, typed) -> None:
    board = parse_board(BOARD)
    page = browser.new_page()
    try:
        page.goto(site.url + "/")
        found = page.evaluate(
            """async ([text, faces, cols]) => {
                const { findPath } = await import("/static/js/room/paths.js");
                return findPath(text, faces, cols);
            }""",
            [typed, list(board.faces), board.cols],
        )
        expected = find_word_path(board, typed)
        assert (found is None) == (expected is None), (typed, found, expected)
        if found is not None:
            assert "".join(board.faces[cell] for cell in found) == typed
    finally:
        page.close()
