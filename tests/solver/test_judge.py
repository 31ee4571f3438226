"""The referee (solver.judge): every verdict on hand-made boards and tiny word lists, and
scoring a round for several players."""

from __future__ import annotations

import gc
import itertools

import pytest

from solver import compile_word_list, parse_board, roll, solve
from solver.judge import (
    MAX_ENTRY_LENGTH,
    Verdict,
    find_word_path,
    judge_entry,
    normalise_entry,
    score_round,
)
from solver.wordrules import WordRules

# Cells, numbered row by row:
#    0 c   1 a   2 t   3 s
#    4 qu  5 i   6 e   7 x
#    8 d   9 o  10 g  11 z
#   12 w  13 e  14 n  15 t
BOARD = parse_board("cats quiex dogz went")
WORDS = ["cat", "cats", "qua", "quit", "quiet", "diet", "dog", "went", "tag", "tat", "zebra"]


@pytest.fixture(scope="module")
def word_list():
    """A tiny English word list (the default rules)."""
    return compile_word_list(WORDS, WordRules(), name="tiny")[0]


@pytest.fixture(scope="module")
def folding():
    """A tiny word list that folds accents, as the French and Dutch lists do."""
    return compile_word_list(["café", "thé", "élève"], WordRules(fold_accents=True))[0]


def judge(entry, word_list, min_length=3, already=frozenset(), board=BOARD):
    return judge_entry(entry, board, word_list, min_length, already=already)


def assert_path_spells(board, path, word):
    """The path uses distinct, adjacent cells whose faces spell ``word``."""
    assert len(set(path)) == len(path)
    neighbours = board.neighbours()
    for a, b in itertools.pairwise(path):
        assert b in neighbours[a]
    assert "".join(board.faces[cell] for cell in path) == word


# ---------------------------------------------------------------- accepted


@pytest.mark.parametrize("word", ["cat", "cats", "diet", "dog", "went", "quit", "quiet"])
def test_words_on_the_board_and_in_the_dictionary_are_accepted(word_list, word):
    """A dictionary word spelled by adjacent dice is accepted, with a path that spells it."""
    judgement = judge(word, word_list)
    assert judgement.verdict is Verdict.ACCEPTED
    assert judgement.accepted
    assert judgement.word == word
    assert_path_spells(BOARD, judgement.path, word)


def test_entries_are_trimmed_and_lower_cased(word_list):
    """Spaces around an entry and capitals (a phone's auto-capitalisation) do not matter."""
    for entry in ("  cat ", "CAT", "Cat", "cAt\n"):
        judgement = judge(entry, word_list)
        assert (judgement.word, judgement.verdict) == ("cat", Verdict.ACCEPTED), entry


def test_quit_path_uses_the_qu_die_once(word_list):
    """The word "quit" is spelled qu-i-t: three dice, the Qu die as one cell."""
    assert judge("quit", word_list).path == (4, 5, 2)


# ---------------------------------------------------------------- not a word


@pytest.mark.parametrize(
    "entry",
    ["", "   ", "c4t", "123", "ca-t", "c at", "cat!", "ca\x00t", "ca\x07t", "c\u200bat", "ca\tt"],
)
def test_entries_that_are_not_letters_are_not_words(word_list, entry):
    """Digits, punctuation, inner spaces and control characters make no word."""
    assert judge(entry, word_list).verdict is Verdict.NOT_A_WORD


def test_a_ten_thousand_character_entry_is_refused_without_work(word_list):
    """An absurdly long entry is not a word, and the judged word is cut to the maximum."""
    judgement = judge("a" * 10_000, word_list)
    assert judgement.verdict is Verdict.NOT_A_WORD
    assert len(judgement.word) == MAX_ENTRY_LENGTH


def test_the_longest_allowed_entry_is_still_judged(word_list):
    """An entry of exactly MAX_ENTRY_LENGTH letters gets a real verdict, not not_a_word."""
    assert judge("a" * MAX_ENTRY_LENGTH, word_list).verdict is Verdict.NOT_ON_BOARD


def test_normalise_entry_returns_empty_for_non_words(word_list):
    """normalise_entry says "" for entries that cannot be words."""
    assert normalise_entry("c4t", word_list) == ""
    assert normalise_entry(" Dog ", word_list) == "dog"


# ---------------------------------------------------------------- too short


def test_too_short_for_the_room(word_list):
    """Below the room's minimum length is too short, even for a dictionary word on the board."""
    assert judge("cat", word_list, min_length=4).verdict is Verdict.TOO_SHORT
    assert judge("cats", word_list, min_length=4).verdict is Verdict.ACCEPTED


def test_two_letter_entries_are_too_short(word_list):
    """A two-letter entry is too short with the classic minimum of 3."""
    judgement = judge("at", word_list)
    assert (judgement.word, judgement.verdict) == ("at", Verdict.TOO_SHORT)


def test_qu_counts_as_two_letters_for_length(word_list):
    """The word "qua" uses two dice but has three letters: it meets a minimum of 3, not 4."""
    assert judge("qua", word_list, min_length=3).verdict is Verdict.ACCEPTED
    assert judge("qua", word_list, min_length=4).verdict is Verdict.TOO_SHORT
    # "quit" is three dice, four letters.
    assert judge("quit", word_list, min_length=4).verdict is Verdict.ACCEPTED


# ---------------------------------------------------------------- already entered


def test_a_word_the_player_already_has_is_already_entered(word_list):
    """A word in the player's accepted set is refused as already entered, in any case."""
    judgement = judge("CATS", word_list, already={"cats"})
    assert (judgement.word, judgement.verdict) == ("cats", Verdict.ALREADY_ENTERED)
    assert judge("cat", word_list, already={"cats"}).verdict is Verdict.ACCEPTED


# ---------------------------------------------------------------- not in the dictionary


def test_a_word_on_the_board_but_not_in_the_dictionary(word_list):
    """The word "ate" is on the board (a-t-e) but not in the tiny word list."""
    assert find_word_path(BOARD, "ate") is not None
    assert judge("ate", word_list).verdict is Verdict.NOT_IN_DICTIONARY


def test_a_q_without_u_is_not_on_the_board(word_list):
    """A q not followed by u can be typed, but the Qu die never spells a lone q."""
    assert judge("qat", word_list).verdict is Verdict.NOT_ON_BOARD


def test_extra_words_of_the_room_count_as_dictionary_words(word_list):
    """Words the room accepts on top of the dictionary pass the dictionary check."""
    judgement = judge_entry("ate", BOARD, word_list, 3, extra_words={"ate"})
    assert judgement.verdict is Verdict.ACCEPTED


# ---------------------------------------------------------------- not on the board


def test_a_dictionary_word_that_is_not_on_the_board(word_list):
    """The word "zebra" is in the dictionary but nowhere on the board."""
    judgement = judge("zebra", word_list)
    assert (judgement.verdict, judgement.path) == (Verdict.NOT_ON_BOARD, None)


@pytest.mark.parametrize("entry", ["xyzzy", "zzzqx", "blorp", "tga", "taat"])
def test_a_word_the_board_does_not_spell_is_not_on_board_before_the_dictionary(word_list, entry):
    """Letters missing from the board, or letters that do not touch, make not_on_board
    even when the dictionary does not have the word either: not_in_dictionary is only ever
    said of words the board spells (the words a player may challenge)."""
    assert entry not in word_list
    judgement = judge(entry, word_list)
    assert (judgement.verdict, judgement.path) == (Verdict.NOT_ON_BOARD, None)


def test_letters_must_touch(word_list):
    """All letters of "tag" are on the board, but a (cell 1) does not touch g (cell 10)."""
    assert judge("tag", word_list).verdict is Verdict.NOT_ON_BOARD


def test_a_die_is_used_once_per_word(word_list):
    """The word "tat" needs the t at cell 2 twice: the other t (cell 15) is far away."""
    assert judge("tat", word_list).verdict is Verdict.NOT_ON_BOARD


def test_a_qu_die_cannot_spell_a_lone_q_or_u(word_list):
    """The Qu die gives "qu" together: "qa" or "ui" paths through it do not exist."""
    assert find_word_path(BOARD, "qi") is None
    assert find_word_path(BOARD, "ui") is None
    assert find_word_path(BOARD, "qui") == (4, 5)


def test_judging_leaves_no_garbage_for_the_cycle_collector(word_list):
    """A web process judges a thousand entries a second: each must be freed as soon as it
    is answered, never left as a reference cycle for the collector (whose passes pause
    every player of the process). A path search that was a self-calling closure did."""
    entries = ["quiet", "cats", "tag", "zebra", "xyz", "went", "diet", "ab"]
    gc.collect()
    gc.disable()
    try:
        for _ in range(50):
            for entry in entries:
                judge(entry, word_list)
                find_word_path(BOARD, entry)
        unreachable = gc.collect()
    finally:
        gc.enable()
    assert unreachable == 0


def test_blocked_cells_spell_nothing():
    """A blocked square (#) breaks paths that would go through it."""
    board = parse_board("c#t ###  ###")
    assert find_word_path(board, "ct") is None
    assert find_word_path(parse_board("cat ### ###"), "cat") == (0, 1, 2)


# ---------------------------------------------------------------- accents


def test_accents_fold_for_a_folding_word_list(folding):
    """With a folding word list "café" and "cafe" are the same word, typed either way."""
    board = parse_board("cafe thxx lvyy zzzz")
    for entry in ("café", "cafe", "CAFÉ", "Café"):
        judgement = judge(entry, folding, board=board)
        assert (judgement.word, judgement.verdict) == ("cafe", Verdict.ACCEPTED), entry


def test_words_the_folding_word_list_drops_are_still_reported_folded(folding):
    """The entry "Où" is too short for the word list itself; the verdict names it folded."""
    judgement = judge("Où", folding)
    assert (judgement.word, judgement.verdict) == ("ou", Verdict.TOO_SHORT)


def test_folded_words_count_as_already_entered(folding):
    """Typing "cafe" after "café" is the same word again."""
    board = parse_board("cafe thxx lvyy zzzz")
    judgement = judge("cafe", folding, already={"cafe"}, board=board)
    assert judgement.verdict is Verdict.ALREADY_ENTERED


def test_accents_are_kept_for_a_non_folding_word_list(word_list):
    """The English word list does not fold: "càt" is not "cat" (and no die shows "à")."""
    judgement = judge("càt", word_list)
    assert (judgement.word, judgement.verdict) == ("càt", Verdict.NOT_ON_BOARD)


@pytest.mark.parametrize("entry", ["cafe\u0301", "CAFE\u0301", " Cafe\u0301 "])
def test_a_decomposed_accent_is_judged_like_the_composed_letter(folding, entry):
    """An "e" + combining acute (as some keyboards and pastes send it) is "é"."""
    board = parse_board("cafe thxx lvyy zzzz")
    assert judge(entry, folding, board=board) == judge("café", folding, board=board)
    assert judge(entry, folding, board=board).verdict is Verdict.ACCEPTED


def test_a_decomposed_accent_gets_the_composed_verdict_without_folding(word_list):
    """Without folding too, decomposed and composed input give the same verdict and word."""
    assert judge("ca\u0300t", word_list) == judge("càt", word_list)


# ---------------------------------------------------------------- score_round


def test_duplicates_cancel_with_cancel_duplicates():
    """A word two players found scores for nobody; unique words keep their points."""
    scored = score_round({"ann": ["cats", "dog"], "bob": ["dog", "went"]}, 4, 4, True)
    ann = {item.word: item for item in scored["ann"]}
    bob = {item.word: item for item in scored["bob"]}
    assert (ann["dog"].points, ann["dog"].cancelled) == (0, True)
    assert (bob["dog"].points, bob["dog"].cancelled) == (0, True)
    assert (ann["cats"].points, ann["cats"].cancelled) == (1, False)
    assert (bob["went"].points, bob["went"].cancelled) == (1, False)


def test_duplicates_score_for_everyone_without_cancel_duplicates():
    """Friendly rooms: a word two players found scores for both."""
    scored = score_round({"ann": ["quiet"], "bob": ["quiet"]}, 4, 4, cancel_duplicates=False)
    for player in ("ann", "bob"):
        assert [(s.word, s.points, s.cancelled) for s in scored[player]] == [("quiet", 2, False)]


def test_a_word_listed_twice_by_one_player_is_not_a_duplicate():
    """Only other players cancel a word; one player's repeats count once."""
    scored = score_round({"ann": ["cats", "cats"], "bob": ["dog"]}, 4, 4)
    assert [(s.word, s.points, s.cancelled) for s in scored["ann"]] == [("cats", 1, False)]


def test_qu_counts_as_two_letters_for_points():
    """The word "quiet" (4 dice) has 5 letters: 2 points, not 1."""
    assert score_round({"ann": ["quiet"]}, 4, 4)["ann"][0].points == 2


@pytest.mark.parametrize(
    ("rows", "word", "points"),
    [
        (4, "cat", 1),
        (4, "cats", 1),
        (4, "quiet", 2),
        (4, "quiets", 3),
        (4, "acquits", 5),
        (4, "acquites", 11),
        (4, "abcdefghij", 11),
        (5, "abcdefghij", 11),
        (6, "abcdefgh", 11),
        (6, "abcdefghi", 13),
        (6, "abcdefghij", 15),
    ],
)
def test_points_by_board_size(rows, word, points):
    """The rule sheet's table; 6x6 adds 2 points per letter from 9 letters on."""
    assert score_round({"ann": [word]}, rows, rows)["ann"][0].points == points


def test_words_come_back_sorted_by_points_then_alphabetically():
    """Each player's list: highest points first, ties alphabetical."""
    scored = score_round({"ann": ["went", "cat", "quiet", "dog"]}, 4, 4)
    assert [s.word for s in scored["ann"]] == ["quiet", "cat", "dog", "went"]


def test_players_without_words_get_an_empty_list():
    """A player who found nothing is still in the result."""
    assert score_round({"ann": [], "bob": ["cat"]}, 4, 4)["ann"] == []


# ---------------------------------------------------------------- a 3x3 board, folding word list

# qu i  s     0 1 2
# e  e  x     3 4 5
# u  n  t     6 7 8
QIS_BOARD = parse_board("qis eex unt")
QIS_LEXICON = compile_word_list(
    ["quiet", "queen", "ten", "net", "six", "exit", "tune", "ete"], WordRules(fold_accents=True)
)[0]


def test_find_word_path_agrees_with_solve(english):
    """Every word the solver finds on rolled boards has a path; reversed words it does not
    find have none."""
    for name in ("classic", "super-big"):
        for seed in range(15):
            board = roll(name, seed)
            found = solve(board, english, 3).by_word()
            for word in found:
                path = find_word_path(board, word)
                assert path is not None
                assert "".join(board.faces[cell] for cell in path) == word
            # Reversed words that are not on the board must not be found either.
            for word in found:
                backwards = word[::-1]
                if backwards in english and backwards not in found:
                    assert find_word_path(board, backwards) is None


def test_verdicts():
    """Each verdict on a 3x3 board with a Qu die and a folding word list."""

    def verdict(entry, **kwargs):
        return judge_entry(entry, QIS_BOARD, QIS_LEXICON, 3, **kwargs).verdict

    accepted = judge_entry(" Quiet ", QIS_BOARD, QIS_LEXICON, 3)
    assert accepted.accepted and accepted.word == "quiet" and accepted.path == (0, 1, 4, 8)
    assert verdict("ten") is Verdict.ACCEPTED
    assert verdict("exit") is Verdict.NOT_ON_BOARD  # i(0,1) does not touch t(2,2)
    assert verdict("tune") is Verdict.NOT_ON_BOARD  # u(2,0) does not touch t(2,2)
    assert verdict("tex") is Verdict.NOT_IN_DICTIONARY  # t-e-x touch; not a word
    assert verdict("nix") is Verdict.NOT_ON_BOARD  # n(2,1) does not touch i(0,1); no word
    assert verdict("ne") is Verdict.TOO_SHORT
    assert verdict("ten", already={"ten"}) is Verdict.ALREADY_ENTERED
    assert verdict("ten-ish") is Verdict.NOT_A_WORD
    assert verdict("") is Verdict.NOT_A_WORD
    assert verdict("nix", extra_words={"nix"}) is Verdict.NOT_ON_BOARD
    assert verdict("six", extra_words={"nix"}) is Verdict.ACCEPTED
    # Accents fold as the word list folds them: "été" is "ete", in the dictionary, but only one
    # e, (1,1), touches t(2,2), so not on the board.
    assert judge_entry("été", QIS_BOARD, QIS_LEXICON, 3).word == "ete"
    assert verdict("été") is Verdict.NOT_ON_BOARD


def test_score_round_cancels_shared_words():
    """Shared words score 0 and are marked cancelled; without cancelling both players score."""
    scored = score_round({"ann": ["queen", "ten", "six"], "bob": ["ten", "net"]}, 4, 4)
    assert [(s.word, s.points, s.cancelled) for s in scored["ann"]] == [
        ("queen", 2, False),
        ("six", 1, False),
        ("ten", 0, True),
    ]
    assert [(s.word, s.points, s.cancelled) for s in scored["bob"]] == [
        ("net", 1, False),
        ("ten", 0, True),
    ]
    friendly = score_round({"ann": ["ten"], "bob": ["ten"]}, 6, 6, cancel_duplicates=False)
    assert friendly["ann"][0].points == friendly["bob"][0].points == 1
