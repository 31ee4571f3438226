"""House rules in real browsers: a player challenges a word the dictionary refused; the
host rules on another player's challenge, or the room votes (the host's own challenge is
decided by the others' votes only), and every page shows the round scored again."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from solver import dictionaries, from_faces
from solver.scoring import word_points
from tests.browser.helpers import (
    LAPTOP,
    OpenRoom,
    board_faces,
    join_room,
    my_word,
    player_words,
    screenshot,
    type_word,
    wait_until_playing,
    watch_errors,
    words_on,
)
from tests.browser.test_play import scoreboard

pytestmark = pytest.mark.browser

VOWELS = set("aeiouy")


def non_word_on(faces: list[list[str]]) -> tuple[str, tuple[int, int, int]]:
    """Three adjacent dice spelling no English word (by the solver's word list), preferring
    ones that look like a word (consonant, vowel, consonant). Returns (word, path)."""
    board = from_faces(faces)
    word_list = dictionaries.load("english")
    neighbours = board.neighbours()
    candidates = []
    for a in range(len(board.faces)):
        for b in neighbours[a]:
            for c in neighbours[b]:
                if c == a:
                    continue
                letters = [board.faces[cell].lower() for cell in (a, b, c)]
                if any(len(letter) != 1 or not letter.isalpha() for letter in letters):
                    continue
                word = "".join(letters)
                if word in word_list or word_list.drop_reason(word) is not None:
                    continue
                looks_real = letters[0] not in VOWELS and letters[1] in VOWELS
                candidates.append((not looks_real, word, (a, b, c)))
    assert candidates, f"no non-word path on {faces}"
    _, word, path = min(candidates)
    return word, path


def test_player_challenges_a_refused_word_and_the_host_accepts_it(
    site, host_and_guest: OpenRoom
) -> None:
    room = host_and_guest(guest_device=LAPTOP)
    ann, bob, code = room.host, room.guest, room.code
    ann_errors, bob_errors = room.host_errors, room.guest_errors

    ann.locator("#start-round").click()
    wait_until_playing(ann)
    wait_until_playing(bob)
    faces = board_faces(bob)
    words = [w for w in words_on(faces) if len(w.path) >= 3]
    assert len(words) >= 2, f"too few words on {faces}"
    ann_word, bob_word = words[0], words[1]
    odd, _path = non_word_on(faces)
    odd_points = word_points(len(odd))

    type_word(ann, ann_word.word)
    expect(my_word(ann, ann_word.word)).to_be_visible()
    type_word(bob, bob_word.word)
    expect(my_word(bob, bob_word.word)).to_be_visible()
    type_word(bob, odd)
    expect(my_word(bob, odd, "bad")).to_contain_text("not in the dictionary")

    site.end_round_now(code)
    for page in (ann, bob):
        expect(page.locator("#results-title")).to_have_text("Round 1 results")

    def expected(bob_points: int) -> list[tuple[str, str, str]]:
        rows = [("Ann", ann_word.points), ("Bob", bob_points)]
        rows.sort(key=lambda row: (-row[1], row[0].lower()))
        return [(name, str(points), str(points)) for name, points in rows]

    assert scoreboard(ann) == scoreboard(bob) == expected(bob_word.points)

    # Only Bob can challenge his word, and only from his own page.
    challenge = bob.get_by_role("button", name=re.compile(f"^Challenge {odd.upper()}"))
    expect(challenge).to_be_visible()
    box = challenge.bounding_box()
    assert box is not None and box["width"] >= 44 and box["height"] >= 44, box
    expect(ann.locator(".challenge-button")).to_have_count(0)

    # By keyboard: focus the button and press Enter.
    challenge.focus()
    bob.keyboard.press("Enter")
    ann_item = ann.locator(".challenge-list li", has_text=f"Bob challenges {odd.upper()}")
    expect(ann_item).to_be_visible()
    expect(bob.locator(".challenge-list")).to_contain_text(f"You challenge {odd.upper()}")
    # Ann (online) is the one voter: one vote decides; Bob neither votes nor rules.
    expect(bob.locator(".challenge-list")).to_contain_text("0 of 1 vote to accept")
    expect(bob.locator(".challenge-list")).to_contain_text("The others vote")
    expect(bob.get_by_role("button", name=re.compile("accept", re.I))).to_have_count(0)
    expect(challenge).to_have_count(0)
    # Ann may vote, and as the host rule at once: both offered, told apart by name.
    expect(ann_item.get_by_role("button", name=f"Vote to accept {odd.upper()}")).to_be_visible()
    expect(ann_item.get_by_role("button", name=f"Accept {odd.upper()}", exact=True)).to_be_visible()

    screenshot(ann, "challenge-host", full_page=True)
    ann_item.get_by_role("button", name=f"Accept {odd.upper()}", exact=True).click()

    rescored = expected(bob_word.points + odd_points)
    for page in (ann, bob):
        expect(page.locator(".challenge-list")).to_contain_text("Accepted ✓")
        accepted = player_words(page, "Bob").locator(f'.chip.good .chip-button[data-word="{odd}"]')
        expect(accepted).to_contain_text(f"+{odd_points} · accepted on challenge")
        expect(page.locator("#results-panel .scoreboard tbody")).to_contain_text(
            str(bob_word.points + odd_points)
        )
    assert scoreboard(ann) == scoreboard(bob) == rescored
    screenshot(bob, "challenge-accepted", full_page=True)
    expect(ann.get_by_role("button", name=f"Accept {odd.upper()}")).to_have_count(0)
    expect(ann.get_by_role("button", name=f"Vote to accept {odd.upper()}")).to_have_count(0)

    assert ann_errors == [] and bob_errors == []


def test_the_hosts_own_challenge_is_decided_by_the_other_players_votes(
    site, host_and_guest: OpenRoom
) -> None:
    """Ann hosts and challenges her own word: she gets no ruling or vote buttons; Bob and
    Carl vote (2 of 2 needed), Bob changes his mind, and Carl's vote accepts it."""
    room = host_and_guest(guest_device=LAPTOP)
    ann, bob, code = room.host, room.guest, room.code
    carl = room.new_context(**LAPTOP).new_page()
    errors = [room.host_errors, room.guest_errors, watch_errors(carl)]
    join_room(carl, room.link, "Carl")
    for page in (ann, bob, carl):
        expect(page.locator("#players .player")).to_have_count(3)

    ann.locator("#start-round").click()
    for page in (ann, bob, carl):
        wait_until_playing(page)
    odd, _path = non_word_on(board_faces(ann))
    type_word(ann, odd)
    expect(my_word(ann, odd, "bad")).to_contain_text("not in the dictionary")
    site.end_round_now(code)
    for page in (ann, bob, carl):
        expect(page.locator("#results-title")).to_have_text("Round 1 results")

    word = odd.upper()
    ann.get_by_role("button", name=re.compile(f"^Challenge {word}")).click()
    items = {
        name: page.locator(".challenge-list li", has_text="challenge")
        for name, page in (("ann", ann), ("bob", bob), ("carl", carl))
    }
    for item in items.values():
        expect(item).to_contain_text("0 of 2 votes to accept")
    # The host's own challenge: no Accept/Decline for her at all (rule or vote).
    expect(items["ann"]).to_contain_text("The others vote")
    expect(items["ann"].get_by_role("button")).to_have_count(0)

    vote_accept = items["bob"].get_by_role("button", name=f"Vote to accept {word}")
    vote_decline = items["bob"].get_by_role("button", name=f"Vote to decline {word}")
    expect(items["bob"].get_by_role("button", name=f"Accept {word}", exact=True)).to_have_count(0)
    vote_decline.click()
    for item in items.values():
        expect(item).to_contain_text("0 of 2 votes to accept · 1 to decline")
    expect(vote_decline).to_have_attribute("aria-pressed", "true")
    expect(vote_accept).to_have_attribute("aria-pressed", "false")
    # Bob changes his vote.
    vote_accept.click()
    for item in items.values():
        expect(item).to_contain_text("1 of 2 votes to accept")
    expect(items["ann"]).not_to_contain_text("to decline")
    expect(vote_accept).to_have_attribute("aria-pressed", "true")
    expect(vote_decline).to_have_attribute("aria-pressed", "false")
    screenshot(bob, "challenge-vote", full_page=True)

    items["carl"].get_by_role("button", name=f"Vote to accept {word}").click()
    points = word_points(len(odd))
    for page in (ann, bob, carl):
        expect(page.locator(".challenge-list")).to_contain_text("Accepted ✓")
        expect(page.locator(".challenge-list").get_by_role("button")).to_have_count(0)
        accepted = player_words(page, "Ann").locator(f'.chip.good .chip-button[data-word="{odd}"]')
        expect(accepted).to_contain_text(f"+{points} · accepted on challenge")
    assert scoreboard(ann)[0] == ("Ann", str(points), str(points))
    assert errors == [[], [], []]
