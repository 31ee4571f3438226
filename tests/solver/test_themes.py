"""Themed word rules (solver.themes): each rule, its reason, the judge's off_theme verdict
and dealing a themed board again when the theme leaves it too few words."""

from __future__ import annotations

import pytest

from solver import compile_word_list, parse_board, roll, solve
from solver.deal import MAX_THEMED_ROLLS, MIN_ROUND_WORDS, deal_round_board
from solver.dice import CLASSIC_1992
from solver.judge import Verdict, judge_entry
from solver.themes import Rule, Theme
from solver.wordlist import WordList
from solver.wordrules import WordRules


@pytest.mark.parametrize(
    ("theme", "yes", "no", "reason"),
    [
        (Theme(Rule.PALINDROMES), ["eve", "level", "a"], ["even", "cat"], "not a palindrome"),
        (Theme(Rule.CONTAINS, "e"), ["eve", "tee", "quiet"], ["cat", "dog"], "has no E"),
        (Theme(Rule.STARTS_WITH, "s"), ["sea", "s"], ["cats", "pass"], "does not start with S"),
        (Theme(Rule.COMMON), ["cat"], ["quoz"], "not a common word"),
        (
            Theme(Rule.LIST, list_name="animals", title="Animals"),
            ["cat"],
            ["tea"],
            "not in the theme list Animals",
        ),
    ],
)
def test_each_rule_allows_its_words_and_says_why_not(
    theme: Theme, yes: list[str], no: list[str], reason: str
) -> None:
    data = {"common": frozenset({"cat", "the"}), "listed": frozenset({"cat", "dog"})}
    assert all(theme.allows(word, **data) for word in yes)
    assert not any(theme.allows(word, **data) for word in no)
    assert theme.reason == reason


def test_a_list_without_a_title_is_named_by_its_name() -> None:
    assert Theme(Rule.LIST, list_name="birds").reason == "not in the theme list birds"


@pytest.mark.parametrize(
    ("rule", "letter", "list_name"),
    [
        (Rule.NONE, "", ""),
        (Rule.CONTAINS, "", ""),
        (Rule.CONTAINS, "ee", ""),
        (Rule.STARTS_WITH, "é", ""),
        (Rule.STARTS_WITH, "E", ""),
        (Rule.LIST, "", ""),
    ],
)
def test_a_theme_needs_what_its_rule_names(rule: Rule, letter: str, list_name: str) -> None:
    with pytest.raises(ValueError):
        Theme(rule, letter, list_name)


@pytest.mark.parametrize(
    "theme",
    [
        Theme(Rule.PALINDROMES),
        Theme(Rule.CONTAINS, "q"),
        Theme(Rule.LIST, list_name="animals", title="Animals"),
    ],
)
def test_a_theme_goes_through_its_dict_and_back(theme: Theme) -> None:
    assert Theme.from_dict(theme.as_dict()) == theme
    assert Theme.from_dict(None) is None


def test_the_dict_names_only_what_the_rule_uses() -> None:
    assert Theme(Rule.STARTS_WITH, "s").as_dict() == {
        "rule": "starts_with",
        "letter": "s",
        "list": None,
        "title": None,
    }


# ---------------------------------------------------------------- the judge

# Cells:  c a t s / t i e x / d o g z / w e n t
BOARD = parse_board("cats tiex dogz went")


@pytest.fixture(scope="module")
def word_list() -> WordList:
    return compile_word_list(["cat", "cats", "tat", "quiet", "went", "dog"], WordRules())[0]


def test_off_theme_comes_after_every_other_check(word_list: WordList) -> None:
    """The theme is the last check: a word must be a word, long enough, new, on the board and
    in the dictionary before the theme is asked."""
    solution = {found.word for found in solve(BOARD, word_list, 3).words}
    themed = frozenset(word for word in solution if Theme(Rule.PALINDROMES).allows(word))
    assert themed == {"tat"}

    def verdict(entry: str, already: frozenset[str] = frozenset()) -> Verdict:
        return judge_entry(entry, BOARD, word_list, 3, already=already, on_theme=themed).verdict

    assert verdict("tat") is Verdict.ACCEPTED
    assert verdict("cats") is Verdict.OFF_THEME
    assert verdict("tat", already=frozenset({"tat"})) is Verdict.ALREADY_ENTERED
    assert verdict("c4t") is Verdict.NOT_A_WORD
    assert verdict("ca") is Verdict.TOO_SHORT
    assert verdict("zzz") is Verdict.NOT_ON_BOARD  # a palindrome, not on the board
    assert verdict("tot") is Verdict.NOT_ON_BOARD
    assert verdict("dogz") is Verdict.NOT_IN_DICTIONARY
    # No theme (None): everything the dictionary has counts.
    assert judge_entry("cats", BOARD, word_list, 3).verdict is Verdict.ACCEPTED


def test_a_word_the_room_accepted_goes_through_the_theme_too(word_list: WordList) -> None:
    judged = judge_entry("dogz", BOARD, word_list, 3, extra_words={"dogz"}, on_theme={"tat"})
    assert judged.verdict is Verdict.OFF_THEME


# ---------------------------------------------------------------- dealing


def starts_with_s(word: str) -> bool:
    return Theme(Rule.STARTS_WITH, "s").allows(word)


def themed_count(english: WordList, seed: str, roll_number: int) -> int:
    board = roll(CLASSIC_1992, f"{seed}:{roll_number}")
    return sum(1 for found in solve(board, english, 3).words if starts_with_s(found.word))


def test_a_themed_roll_with_too_few_words_is_rolled_again(english: WordList) -> None:
    """A roll whose words under the theme are fewer than the floor is shaken again: the
    deal is the first roll that reaches it, though the first roll had many words."""
    seed = next(
        str(n)
        for n in range(1000)
        if themed_count(english, str(n), 0) < MIN_ROUND_WORDS
        and len(solve(roll(CLASSIC_1992, f"{n}:0"), english, 3)) >= MIN_ROUND_WORDS
    )
    dealt = deal_round_board(CLASSIC_1992, english, 3, seed=seed, allows=starts_with_s)
    assert dealt.roll_number > 0
    assert themed_count(english, seed, dealt.roll_number) >= MIN_ROUND_WORDS
    for earlier in range(dealt.roll_number):
        assert themed_count(english, seed, earlier) < MIN_ROUND_WORDS
    # Without the theme the first roll would have done.
    assert deal_round_board(CLASSIC_1992, english, 3, seed=seed).roll_number == 0


def test_a_rare_theme_gets_the_richest_of_its_rolls() -> None:
    """Palindromes of a tiny list never reach the floor: after MAX_THEMED_ROLLS the deal
    is the first of the rolls with the most of them."""
    tiny, _ = compile_word_list(["tat", "tot", "eve", "sees", "cat", "eat", "tea"], WordRules())

    def palindrome(word: str) -> bool:
        return Theme(Rule.PALINDROMES).allows(word)

    dealt = deal_round_board(CLASSIC_1992, tiny, 3, seed="rare", allows=palindrome)
    counts = [
        sum(
            1
            for found in solve(roll(CLASSIC_1992, f"rare:{n}"), tiny, 3).words
            if palindrome(found.word)
        )
        for n in range(MAX_THEMED_ROLLS)
    ]
    assert 0 < max(counts) < MIN_ROUND_WORDS
    assert dealt.roll_number == counts.index(max(counts))
