"""Offline practice in Chromium (/offline/): the browser's solver finds the server's words
on rolled boards of every size and judges entries as the server does; a phone whose
network is cut, with the server itself gone, opens the page from its service worker and
plays a whole round (typed and tapped words, verdicts, results with every word and its
path); the round joins the profile, and its account once the network is back. Dutch and
French pages, on a laptop."""

from __future__ import annotations

import itertools
import random
import re
import subprocess
import sys
import uuid
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from solver import dictionaries, get_dice_set, parse_board, roll, solve
from solver.dice import default_dice_set
from solver.judge import judge_entry
from solver.scoring import default_min_length
from tests.browser.helpers import (
    DESKTOP,
    REPO_ROOT,
    DaphneServer,
    my_word,
    overflowing,
    phone_context,
    tap_word,
    type_word,
    watch_errors,
)

pytestmark = pytest.mark.browser

PASSWORD = "practice makes perfect"
BOARDS_PER_SIZE = 8
# The dictionaries compared, with their language (the dice a room rolls for it).
LISTS = [("english", "en"), ("french", "fr"), ("dutch", "nl")]


@pytest.fixture(scope="module")
def own_site(chromium_path: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator:
    """A server of this module's own: the tests stop it (the network cut) and start it."""
    for name, _ in LISTS:
        dictionaries.build(name)
    server = DaphneServer(tmp_path_factory.mktemp("offline-site"))
    server.migrate()
    for name in ("french", "dutch"):  # English ships; these import with one command
        imported = subprocess.run(
            [sys.executable, "manage.py", "import_dictionary", name],
            cwd=REPO_ROOT, env=server.env(), capture_output=True, text=True, timeout=300, check=False,
        )  # fmt: skip
        assert imported.returncode == 0, (
            f"import_dictionary {name}:\n{imported.stdout}{imported.stderr}"
        )
    try:
        server.start()
        yield server
    finally:
        server.stop()


def open_practice(page: Page, url: str) -> None:
    page.goto(url + "/offline/")
    expect(page.locator("#offline-start")).to_be_enabled(timeout=30_000)


def chosen_list_url(page: Page, name: str) -> str:
    return page.evaluate(
        "name => JSON.parse(document.querySelector('#offline-data').textContent)"
        ".dictionaries.find((entry) => entry.name === name).url",
        name,
    )


BROWSER_SOLVES = """async ({url, boards, entries, rulebook}) => {
  const { parseWordList } = await import("/static/js/offline/wordlist.js");
  const { solveBoard, judgeEntry } = await import("/static/js/offline/solver.js");
  const list = parseWordList(await (await fetch(url)).text());
  const solved = boards.map((board) => {
    const size = rulebook.sizes[String(board.rows)];
    return solveBoard(board, list.trie, size.min_length, size.points);
  });
  const rules = { fold_accents: Boolean(list.header.rules.fold_accents), ligatures: rulebook.ligatures,
                  max_entry_length: rulebook.max_entry_length };
  const judged = entries.map(({ board, entry, already }) =>
    judgeEntry(entry, { board, trie: list.trie, rules, minLength: default_min(board), already: new Set(already) }));
  function default_min(board) { return rulebook.sizes[String(board.rows)].min_length; }
  return { words: list.trie.words, solved, judged };
}"""


def rulebook_of(page: Page, language: str) -> dict:
    return page.evaluate(
        "language => JSON.parse(document.querySelector('#offline-data').textContent).rules[language]",
        language,
    )


def spells(board, word: str, path: list[int]) -> bool:
    """``path``: distinct touching cells whose faces spell ``word``."""
    if len(set(path)) != len(path) or "".join(board.faces[cell] for cell in path) != word:
        return False
    neighbours = board.neighbours()
    return all(b in neighbours[a] for a, b in itertools.pairwise(path))


@pytest.mark.parametrize(("name", "language"), LISTS)
def test_the_browsers_solver_finds_the_servers_words(own_site, browser, name, language) -> None:
    """On rolled boards of each size (the dice a room rolls for the dictionary's language),
    the same words with the same points; every path the browser gives spells its word.
    Entries get the server's verdicts: Qu, accents, case, garbage, too short, repeats."""
    context = browser.new_context(viewport=DESKTOP)
    try:
        page = context.new_page()
        errors = watch_errors(page)
        open_practice(page, own_site.url)
        word_list = dictionaries.load(name)
        rng = random.Random(f"{name}-offline")
        boards = [
            roll(default_dice_set(side, side, language), seed=rng.randrange(2**32))
            for side in (4, 5, 6)
            for _ in range(BOARDS_PER_SIZE)
        ]
        entries = []
        for board in boards[::BOARDS_PER_SIZE]:
            solution = solve(board, word_list)
            words = [found.word for found in solution.words[:3]]
            for entry in [*words, *(w.upper() + " " for w in words), "été", "Été", "œuf", "queue",
                          "qeue", "ab", "c4t", "x" * 80, "", "zzzzzz"]:  # fmt: skip
                entries.append((board, entry, words[:1]))
        answer = page.evaluate(
            BROWSER_SOLVES,
            {
                "url": chosen_list_url(page, name),
                "boards": [
                    {"rows": b.rows, "cols": b.cols, "faces": list(b.faces)} for b in boards
                ],
                "entries": [
                    {
                        "board": {"rows": b.rows, "cols": b.cols, "faces": list(b.faces)},
                        "entry": e,
                        "already": a,
                    }
                    for b, e, a in entries
                ],
                "rulebook": rulebook_of(page, language),
            },
        )
        assert answer["words"] == len(word_list)
        for board, found in zip(boards, answer["solved"], strict=True):
            server = solve(board, word_list)
            assert [(w["word"], w["points"]) for w in found] == [
                (f.word, f.points) for f in server.words
            ], board
            assert all(spells(board, w["word"], w["path"]) for w in found), board
        for (board, entry, already), judged in zip(entries, answer["judged"], strict=True):
            expected = judge_entry(
                entry, board, word_list, default_min_length(board.rows, board.cols), set(already)
            )
            assert (judged["verdict"], judged["word"]) == (expected.verdict.value, expected.word), (
                entry
            )
        assert errors == []
    finally:
        context.close()


def sign_up(page: Page, url: str) -> str:
    email = f"offline-{uuid.uuid4().hex[:8]}@example.org"
    page.goto(url + "/profile/account/")
    page.locator("#sign-up-email").fill(email)
    page.locator("#sign-up-password").fill(PASSWORD)
    page.locator("#sign-up").click()
    page.wait_for_url("**/profile/")
    expect(page.locator("#profile-sync")).to_contain_text("keeps 0 rounds")
    return email


def board_of(page: Page):
    faces = page.locator("#play-board .die").evaluate_all(
        "dice => dice.map((die) => die.dataset.face)"
    )
    side = round(len(faces) ** 0.5)
    rows = [faces[r * side : (r + 1) * side] for r in range(side)]
    return parse_board(" ".join(",".join(row) for row in rows))


def kept_words(page: Page) -> list[str]:
    return page.evaluate(
        "caches.open('boggle-words').then((cache) => cache.keys()).then((keys) => keys.map((key) => key.url))"
    )


def test_a_phone_plays_a_round_with_the_network_cut_and_its_round_reaches_the_account(
    own_site, browser
) -> None:
    context = phone_context(browser)
    try:
        page = context.new_page()
        errors = watch_errors(page)
        sign_up(page, own_site.url)
        open_practice(page, own_site.url)
        english = chosen_list_url(page, "english")
        page.evaluate("navigator.serviceWorker.ready.then(() => true)")
        # The worker took the page once it was ready: the list is kept from the next load.
        page.reload()
        expect(page.locator("#offline-start")).to_be_enabled()
        assert any(url.endswith(english) for url in kept_words(page))

        # The network cut: the browser offline and the server gone.
        own_site.stop()
        context.set_offline(True)
        page.reload()
        expect(page.locator("#network-status")).to_contain_text("You are offline")
        expect(page.locator("#list-status")).to_contain_text("kept on this device")
        page.locator("#offline-seconds").select_option("60")
        page.locator("#offline-start").click()
        expect(page.locator("#play-panel")).to_be_visible()
        expect(page.locator("#timer-value")).to_have_text(re.compile(r"^(1:00|0:[45]\d)$"))
        board = board_of(page)
        classic = {face for die in get_dice_set("classic").dice for face in die}
        assert board.rows == 4 and set(board.faces) <= classic
        solution = solve(board, dictionaries.load("english"))
        assert len(solution.words) >= 2, (
            "a board with words (the classic dice nearly always give some)"
        )
        typed, tapped = solution.words[0], solution.words[1]
        type_word(page, typed.word.upper())
        expect(my_word(page, typed.word)).to_contain_text(f"+{typed.points}")
        tap_word(page, tapped.path)
        expect(my_word(page, tapped.word)).to_contain_text(f"+{tapped.points}")
        type_word(page, typed.word)
        expect(my_word(page, typed.word, "bad")).to_contain_text("you already have that word")
        type_word(page, "ab")
        expect(page.locator("#verdict")).to_contain_text("too short")
        # A reload mid-round (still offline) loses nothing: the round carries on.
        page.reload()
        expect(page.locator("#play-panel")).to_be_visible()
        expect(my_word(page, tapped.word)).to_be_visible()
        expect(page.locator("#my-words li")).to_have_count(4)
        assert board_of(page) == board
        assert overflowing(page) == []
        page.screenshot(path="/tmp/offline-practice-phone.png", full_page=True)

        page.locator("#end-round").click()
        expect(page.locator("#results-panel")).to_be_visible()
        score = typed.points + tapped.points
        expect(page.locator("#results-lead")).to_have_text(
            f"You found 2 of {len(solution.words)} words: {score} {'pt' if score == 1 else 'pts'}."
        )
        expect(page.locator(".all-words h2")).to_have_text(f"All {len(solution.words)} words")
        mine = page.locator(f'.all-words .chip.mine button[data-word="{typed.word}"]')
        mine.click()
        expect(page.locator(".selected-word")).to_contain_text("you found it")
        lit = page.locator(".results-board .die.on").evaluate_all(
            "dice => dice.map((die) => Number(die.dataset.cell))"
        )
        assert sorted(lit) == sorted(typed.path) or spells(board, typed.word, lit)
        expect(page.locator("#results-saved")).to_have_text("Kept in your profile on this device.")
        assert overflowing(page) == []
        page.screenshot(path="/tmp/offline-practice-results.png", full_page=True)
        record = page.evaluate("JSON.parse(localStorage.getItem('boggle.profile')).rounds.at(-1)")
        assert record["offline"] is True and record["score"] == score and record["words"] == 2

        # Still offline: the profile (kept) shows the round; a page never kept opens practice.
        page.goto(own_site.url + "/profile/")
        expect(page.locator(".profile-total", has_text="Rounds").locator("dd")).to_have_text("1")
        page.goto(own_site.url + "/")
        expect(page.locator("#setup-title")).to_have_text("Practice offline")

        # The network back: the round goes to the account by itself.
        own_site.start()
        context.set_offline(False)
        for _ in range(50):
            answer = page.request.get(own_site.url + "/api/profile/rounds").json()
            if answer["rounds"]:
                break
            page.wait_for_timeout(200)
        assert [(r["id"], r["offline"], r["score"]) for r in answer["rounds"]] == [
            (record["id"], True, score)
        ]
        assert [e for e in errors if "ERR_INTERNET_DISCONNECTED" not in e] == []
    finally:
        context.close()


def test_with_no_list_kept_the_page_says_how_to_get_one(own_site, browser) -> None:
    """A phone that opened the site but never practice: offline, the page comes from the
    worker's keep, and says the list needs the network once."""
    context = phone_context(browser)
    try:
        page = context.new_page()
        page.goto(own_site.url + "/")
        page.evaluate("navigator.serviceWorker.ready.then(() => true)")
        context.set_offline(True)
        page.goto(own_site.url + "/offline/")
        expect(page.locator("#list-status")).to_contain_text("not on this device yet")
        expect(page.locator("#offline-start")).to_be_disabled()
    finally:
        context.close()


@pytest.mark.parametrize(
    ("language", "title", "offline_note", "not_on_board"),
    [
        ("nl", "Offline oefenen", "Je bent offline", "niet op het bord"),
        ("fr", "S'entraîner hors ligne", "Vous êtes hors ligne", "pas sur la grille"),
    ],
)
def test_practice_speaks_dutch_and_french(
    own_site, browser, language, title, offline_note, not_on_board
) -> None:
    """On a laptop: the page, its verdicts and results in the language, with the language's
    own dictionary and dice."""
    context = browser.new_context(viewport=DESKTOP, locale=f"{language}-{language.upper()}")
    try:
        page = context.new_page()
        errors = watch_errors(page)
        open_practice(page, own_site.url)
        expect(page.locator("#setup-title")).to_have_text(title)
        assert (
            page.locator("#offline-dictionary").input_value()
            == {"nl": "dutch", "fr": "french"}[language]
        )
        page.evaluate("navigator.serviceWorker.ready.then(() => true)")
        page.reload()
        expect(page.locator("#offline-start")).to_be_enabled(timeout=30_000)
        context.set_offline(True)
        page.reload()
        expect(page.locator("#network-status")).to_contain_text(offline_note)
        page.locator("#offline-start").click()
        type_word(page, "zzzzq")
        expect(page.locator("#verdict")).to_contain_text(not_on_board)
        board = board_of(page)
        if language == "fr":
            faces = {face for die in get_dice_set("classic-fr").dice for face in die}
            assert set(board.faces) <= faces
        page.locator("#end-round").click()
        expect(page.locator("#results-panel")).to_be_visible()
        assert overflowing(page) == []
        page.screenshot(path=f"/tmp/offline-practice-{language}.png", full_page=True)
        assert [e for e in errors if "ERR_INTERNET_DISCONNECTED" not in e] == []
    finally:
        context.close()


def test_a_round_whose_time_ran_out_while_the_page_was_closed_ends_and_is_kept(
    own_site, browser
) -> None:
    """The phone closed the page mid-round (the round is saved as it goes); opened again
    after the deadline, the round ends with the words entered before, and joins the
    profile."""
    context = phone_context(browser)
    try:
        page = context.new_page()
        errors = watch_errors(page)
        open_practice(page, own_site.url)
        page.locator("#offline-start").click()
        solution = solve(board_of(page), dictionaries.load("english"))
        word = solution.words[0]
        type_word(page, word.word)
        expect(my_word(page, word.word)).to_be_visible()
        page.goto("about:blank")
        page.goto(own_site.url + "/offline/")
        page.evaluate(
            """() => {
            const saved = JSON.parse(localStorage.getItem('boggle.offline.round'));
            saved.round.endsAt = saved.round.typed.at(-1).at + 1;  // past: just after the word
            localStorage.setItem('boggle.offline.round', JSON.stringify(saved));
        }"""
        )
        page.reload()
        expect(page.locator("#results-panel")).to_be_visible()
        expect(page.locator("#results-lead")).to_contain_text(
            f"You found 1 of {len(solution.words)} words"
        )
        record = page.evaluate("JSON.parse(localStorage.getItem('boggle.profile')).rounds.at(-1)")
        assert record["offline"] is True and record["best"]["word"] == word.word
        assert page.evaluate("localStorage.getItem('boggle.offline.round')") is None
        page.reload()
        expect(page.locator("#setup-panel")).to_be_visible()  # ended once, not again
        assert errors == []
    finally:
        context.close()
