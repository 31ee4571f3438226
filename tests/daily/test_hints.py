"""Hints in solo practice rooms (games.hints): the first letters of a word the player has not
found, common words first, a letter more per further hint and never the whole word; each
hint costs a point off the round's score (never below 0) in the results and the totals; no
hints on the daily board, in rooms with friends, or outside a playing round."""

from __future__ import annotations

import pytest
from django.test import Client

from daily import practice
from games import common_words, hints, rooms, rounds, state
from games.exceptions import HintsNotOffered, NoHintLeft, WrongRoundState
from games.models import Player, Round
from tests.daily.helpers import begin, start
from tests.games.words_helpers import submit_word

pytestmark = pytest.mark.django_db


def practice_round() -> tuple[Round, Player]:
    """A solo practice room (as POST /api/practice makes it) whose round 1 is playing."""
    room, ann = practice.do_start_practice("Ann", {"board_size": "4x4"})
    round_ = Round.objects.get(room=room, number=1)
    begin(round_)
    round_.refresh_from_db()
    return round_, ann


def test_a_hint_shows_the_first_two_letters_of_an_unfound_common_word() -> None:
    """The first hint: 2 letters, a prefix of a solution word the player has not found,
    a common one (the board has some), with its length; 1 hint used, costing 1 point."""
    round_, ann = practice_round()
    solution = [entry[0] for entry in round_.solution]
    common = common_words.round_common_words(round_.solution, round_.dictionary)
    assert common, "a rolled 4x4 board has common words"
    found = min(common, key=lambda word: (len(word) < 4, len(word), word))  # a hint's first pick
    assert submit_word(ann, found).accepted
    shown = hints.do_hint(ann)
    data = shown.as_dict()
    assert data["hints_used"] == 1 and data["cost"] == hints.HINT_COST == 1
    assert len(data["letters"]) == 2
    matching = [
        word
        for word in solution
        if word.startswith(data["letters"]) and len(word) == data["word_length"]
    ]
    assert matching, data
    hinted = round_.hints.get(player=ann).word
    assert hinted in matching and hinted != found, "never a word the player found"
    assert hinted in common, "common words come first"


def test_further_hints_add_a_letter_never_the_whole_word_then_move_on() -> None:
    """Hints on one word show 2, 3, ... letters up to all but the last; the next hint is
    about another word. Each one counts."""
    round_, ann = practice_round()
    first = hints.do_hint(ann)
    word_length = first.word_length
    shown = [first.letters]
    for _ in range(word_length - 3):
        again = hints.do_hint(ann)
        assert again.word_length == word_length and again.letters.startswith(shown[-1])
        shown.append(again.letters)
    assert [len(letters) for letters in shown] == list(range(2, word_length))
    other = hints.do_hint(ann)
    assert other.hints_used == len(shown) + 1
    assert len(other.letters) == 2
    counts = list(round_.hints.filter(player=ann).order_by("id").values_list("word", "count"))
    assert len(counts) == 2 and counts[0] == (counts[0][0], len(shown)), counts
    assert counts[1] == (counts[1][0], 1) and counts[1][0] != counts[0][0]


def test_finding_the_hinted_word_moves_the_next_hint_to_another_word() -> None:
    round_, ann = practice_round()
    first = hints.do_hint(ann)
    word = round_.hints.get(player=ann).word
    assert word.startswith(first.letters) and len(word) == first.word_length
    assert submit_word(ann, word).accepted
    second = hints.do_hint(ann)
    assert len(second.letters) == 2 and second.hints_used == 2
    hint_words = list(round_.hints.filter(player=ann).order_by("id").values_list("word", "count"))
    assert hint_words[0] == (word, 1) and hint_words[1][0] != word


def test_the_cost_comes_off_the_round_score_and_the_totals_never_below_zero() -> None:
    """Results: the player's round points are the words' points less 1 per hint, never
    below 0, with "hints" and "hint_points"; the totals (this round's and the state's)
    count the same."""
    round_, ann = practice_round()
    longest = max((entry for entry in round_.solution), key=lambda entry: entry[1])
    word, points = longest[0], longest[1]
    assert submit_word(ann, word).accepted
    hints.do_hint(ann)
    hints.do_hint(ann)
    assert rounds.do_end_round(round_.id)
    round_.refresh_from_db()
    me = state.results(round_)["players"][0]
    assert (me["hints"], me["hint_points"]) == (2, 2)
    assert me["round_points"] == max(0, points - 2)
    assert me["total_points"] == max(0, points - 2)
    room_state = state.room_state(round_.room, ann)
    assert room_state["players"][0]["total_points"] == max(0, points - 2)

    # Round 2: many hints, no word: the round scores 0, not less; the total keeps round 1's.
    rounds.do_start_round(ann)
    second = Round.objects.get(room=round_.room, number=2)
    begin(second)
    for _ in range(3):
        hints.do_hint(ann)
    assert rounds.do_end_round(second.id)
    second.refresh_from_db()
    me = state.results(second)["players"][0]
    assert (me["hints"], me["round_points"]) == (3, 0)
    assert me["total_points"] == max(0, points - 2)


def test_results_without_hints_keep_their_shape() -> None:
    round_, _ = practice_round()
    assert rounds.do_end_round(round_.id)
    round_.refresh_from_db()
    me = state.results(round_)["players"][0]
    assert "hints" not in me and me["round_points"] == 0


def test_the_state_has_the_cost_and_the_latest_hint_of_the_round() -> None:
    round_, ann = practice_round()
    assert state.room_state(round_.room, ann)["hints"] == {
        "cost": 1,
        "round": 1,
        "hints_used": 0,
        "latest": None,
    }
    shown = hints.do_hint(ann)
    part = state.room_state(round_.room, ann)["hints"]
    assert part["hints_used"] == 1
    assert part["latest"] == {"word_length": shown.word_length, "letters": shown.letters}


def test_no_hints_in_a_room_with_friends() -> None:
    room, ann = rooms.do_create_room("Ann", {"board_size": "4x4"})
    round_ = rounds.do_start_round(ann)
    begin(round_)
    with pytest.raises(HintsNotOffered):
        hints.do_hint(ann)
    assert state.room_state(room, ann)["hints"] is None
    assert not round_.hints.exists()


def test_no_hints_on_the_daily_board() -> None:
    """The daily board's leaderboard stays fair: its room is no practice room."""
    _, round_, player = start(Client(), "Ann")
    begin(round_)
    with pytest.raises(HintsNotOffered) as refused:
        hints.do_hint(player)
    assert refused.value.code == "hints_not_offered"
    assert state.room_state(round_.room, player)["hints"] is None


def test_no_hints_before_the_round_plays_or_after_it_ended() -> None:
    room, ann = practice.do_start_practice("Ann", None)
    with pytest.raises(WrongRoundState):  # preparing
        hints.do_hint(ann)
    round_ = Round.objects.get(room=room, number=1)
    assert rounds.do_prepare_round(round_.id)
    with pytest.raises(WrongRoundState):  # counting down
        hints.do_hint(ann)
    Round.objects.filter(pk=round_.pk).update(starts_at=round_.created_at)
    assert rounds.do_end_round(round_.id)
    with pytest.raises(WrongRoundState):
        hints.do_hint(ann)


def test_no_hint_left_once_every_word_is_found_or_shown() -> None:
    round_, ann = practice_round()
    Round.objects.filter(pk=round_.pk).update(solution=[["cat", 1, [0, 1, 2], True]])
    assert hints.do_hint(ann).letters == "ca"
    with pytest.raises(NoHintLeft) as refused:
        hints.do_hint(ann)
    assert refused.value.code == "no_hint_left"
