"""The solver: hand-checked boards, path checks, and cross-checks against independent solvers.

Nothing here calls the solver's internals: the reference solvers below work from cell
coordinates and plain string comparisons.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from functools import cache
from itertools import pairwise

import pytest

from solver import (
    Board,
    WordRules,
    compile_word_list,
    find_paths,
    from_faces,
    parse_board,
    roll,
    solve,
)
from solver.dice import DICE_SETS
from solver.wordlist import WordList

ANY_LENGTH = WordRules(min_length=1)


def word_list_of(words, rules: WordRules = ANY_LENGTH) -> WordList:
    return compile_word_list(words, rules)[0]


def words_found(board: Board, word_list: WordList, min_length: int | None = None) -> set[str]:
    return {found.word for found in solve(board, word_list, min_length).words}


# --- independent reference code -----------------------------------------------------------


def touching(a: int, b: int, cols: int) -> bool:
    """Two cells touch when they differ and each coordinate differs by at most one."""
    (ra, ca), (rb, cb) = divmod(a, cols), divmod(b, cols)
    return a != b and abs(ra - rb) <= 1 and abs(ca - cb) <= 1


def expected_points(letters: int, rows: int, cols: int) -> int:
    """rules.md: 3-4 letters 1, 5: 2, 6: 3, 7: 5, 8+: 11; 6x6 adds 2 per letter from 9."""
    table = {3: 1, 4: 1, 5: 2, 6: 3, 7: 5}
    if letters < 3:
        return 0
    if letters < 8:
        return table[letters]
    if rows * cols == 36:
        return 11 + 2 * (letters - 8)
    return 11


@cache
def touching_cells(rows: int, cols: int) -> tuple[tuple[int, ...], ...]:
    cells = range(rows * cols)
    return tuple(tuple(b for b in cells if touching(a, b, cols)) for a in cells)


def spell(board: Board, word: str) -> list[int] | None:
    """Reference search: one path of distinct touching cells, none blocked, spelling word."""
    faces = board.faces
    nearby = touching_cells(board.rows, board.cols)

    def extend(path: list[int], position: int) -> list[int] | None:
        if position == len(word):
            return path
        candidates = nearby[path[-1]] if path else range(len(faces))
        for cell in candidates:
            face = faces[cell]
            if cell in path or face == "#":
                continue
            if word[position : position + len(face)] == face:
                result = extend([*path, cell], position + len(face))
                if result is not None:
                    return result
        return None

    return extend([], 0) if word else None


def spelled_anywhere(board: Board) -> set[str]:
    """Every string that any path on the board spells (brute force, blocked cells skipped)."""
    faces = board.faces
    nearby = touching_cells(board.rows, board.cols)
    spelled: set[str] = set()

    def grow(cell: int, used: set[int], text: str) -> None:
        spelled.add(text)
        for nb in nearby[cell]:
            if nb not in used and faces[nb] != "#":
                used.add(nb)
                grow(nb, used, text + faces[nb])
                used.remove(nb)

    for start, face in enumerate(faces):
        if face != "#":
            grow(start, {start}, face)
    return spelled


def count_simple_paths(rows: int, cols: int) -> int:
    """How many paths of distinct touching cells a grid has (the same walk as above)."""
    nearby = touching_cells(rows, cols)

    def grow(cell: int, used: set[int]) -> int:
        count = 1
        for nb in nearby[cell]:
            if nb not in used:
                used.add(nb)
                count += grow(nb, used)
                used.remove(nb)
        return count

    return sum(grow(start, {start}) for start in range(rows * cols))


def assert_valid_solution(
    board: Board, solution, words: frozenset[str] | set[str], min_length: int
):
    """Every word: in the word set, long enough, once, spelled by a valid path, scored right."""
    seen = set()
    for found in solution.words:
        assert found.word not in seen, f"{found.word} listed twice"
        seen.add(found.word)
        assert found.word in words
        assert len(found.word) >= min_length
        path = found.path
        assert len(set(path)) == len(path), f"{found.word}: a die used twice in {path}"
        assert all(0 <= cell < board.rows * board.cols for cell in path)
        for a, b in pairwise(path):
            assert touching(a, b, board.cols), f"{found.word}: {a} and {b} do not touch"
        assert all(board.faces[cell] != "#" for cell in path)
        assert "".join(board.faces[cell] for cell in path) == found.word
        assert found.points == expected_points(len(found.word), board.rows, board.cols)
    assert [(-f.points, f.word) for f in solution.words] == sorted(
        (-f.points, f.word) for f in solution.words
    )
    assert solution.total_points == sum(f.points for f in solution.words)
    assert len(solution) == len(solution.words)


def test_reference_helpers_work():
    # The helpers themselves must be right for the cross-checks to mean anything.
    # 2x2: every cell touches every other, so 4 + 4*3 + 4*3*2 + 4*3*2*1 = 64 paths.
    assert count_simple_paths(2, 2) == 64
    # 1x3, a line: 3 single cells, 4 one-step paths, 2 two-step paths.
    assert count_simple_paths(1, 3) == 9
    board = parse_board("ab# cde fgh")
    assert spell(board, "abe") == [0, 1, 5]  # e is (1,2), below the # but touching b
    assert spell(board, "aba") is None
    assert spell(board, "ab#") is None
    assert spell(board, "ah") is None
    assert "abedcfg"[:3] in spelled_anywhere(board)
    assert "b#" not in spelled_anywhere(board)
    qu = parse_board("q,th,a b,c,d e,f,g")
    assert spell(qu, "quthad") == [0, 1, 2, 5]
    assert spell(qu, "qthad") is None


# --- hand-checked boards ---------------------------------------------------------------------

# c a t      0 1 2
# o d s      3 4 5
# g x e      6 7 8
CAT_BOARD = "cat ods gxe"
CAT_WORDS = [
    *["cat", "cats", "dog", "god", "cod", "coat", "sex", "sad", "ads", "gods"],  # on the board
    *["act", "toad", "dogs", "date", "dad", "axe"],  # not on it
    *["at", "do"],  # two letters
]
# Every letter of CAT_BOARD is on one die only, so each path is the only one.
CAT_PATHS = {
    "cat": (0, 1, 2),  # c-a, a-t along the top
    "cats": (0, 1, 2, 5),  # t(0,2) is above s(1,2)
    "dog": (4, 3, 6),  # d(1,1) o(1,0) g(2,0)
    "god": (6, 3, 4),
    "cod": (0, 3, 4),
    "coat": (0, 3, 1, 2),  # o(1,0) touches a(0,1) diagonally
    "sex": (5, 8, 7),
    "sad": (5, 1, 4),  # s(1,2) touches a(0,1) diagonally
    "ads": (1, 4, 5),
    "gods": (6, 3, 4, 5),
}
# Not found: act (c(0,0) and t(0,2) do not touch), toad (t(0,2), o(1,0) do not touch),
# dogs (g(2,0), s(1,2) do not touch), date (t(0,2), e(2,2) do not touch), dad (one d),
# axe (a(0,1), x(2,1) do not touch).


def test_hand_checked_board():
    board = parse_board(CAT_BOARD)
    solution = solve(board, word_list_of(CAT_WORDS))
    assert {found.word: found.path for found in solution.words} == CAT_PATHS
    assert all(found.points == 1 for found in solution.words)
    assert solution.total_points == 10
    # All one point: alphabetical.
    assert [found.word for found in solution.words] == sorted(CAT_PATHS)
    assert solution.by_word()["coat"].path == (0, 3, 1, 2)
    assert solution.words[0].to_dict() == {"word": "ads", "points": 1, "path": [1, 4, 5]}


def test_min_length_filters_words():
    board = parse_board(CAT_BOARD)
    word_list = word_list_of(CAT_WORDS)
    assert words_found(board, word_list, 2) == set(CAT_PATHS) | {"at", "do"}
    assert solve(board, word_list, 2).by_word()["at"].points == 0
    assert words_found(board, word_list, 3) == set(CAT_PATHS)
    assert words_found(board, word_list) == set(CAT_PATHS)  # 3x3: 3 letters by default
    assert words_found(board, word_list, 4) == {"cats", "coat", "gods"}
    assert words_found(board, word_list, 5) == set()


def test_blocked_cells_are_never_used():
    # The d of CAT_BOARD blocked: every word through it goes.
    board = parse_board("cat o#s gxe")
    solution = solve(board, word_list_of(CAT_WORDS))
    assert {found.word: found.path for found in solution.words} == {
        word: CAT_PATHS[word] for word in ("cat", "cats", "coat", "sex")
    }


def test_a_blocked_cell_does_not_connect_its_neighbours():
    # a(0,0) touches only blocked cells; with x in the middle of the top row a-x-b is a path.
    word_list = word_list_of(["ab", "axb", "bx", "xa"])
    assert words_found(parse_board("a#b ##x xxx"), word_list, 1) == {"bx"}
    assert words_found(parse_board("axb ##x xxx"), word_list, 1) == {"axb", "bx", "xa"}


def test_a_word_needing_the_same_die_twice_is_not_found():
    word_list = word_list_of(["see", "sex", "aba", "abab"])
    assert words_found(parse_board("sex ooo ooo"), word_list) == {"sex"}
    assert words_found(parse_board("see ooo ooo"), word_list) == {"see"}
    assert words_found(parse_board("abo ooo ooo"), word_list) == set()
    assert words_found(parse_board("aba ooo ooo"), word_list) == {"aba"}
    # A second b at (1,1) touches a(0,2): a b a b.
    assert words_found(parse_board("aba obo ooo"), word_list) == {"aba", "abab"}


def test_a_word_counts_once_however_many_paths_spell_it():
    word_list = word_list_of(["aaa", "aaaa", "a" * 9, "a" * 10])
    solution = solve(parse_board("aaa aaa aaa"), word_list)
    assert [found.word for found in solution.words] == ["a" * 9, "aaa", "aaaa"]
    assert solution.words[0].points == 11
    assert len(set(solution.words[0].path)) == 9


# qu i  s     0 1 2
# e  e  x     3 4 5
# u  n  t     6 7 8
QU_BOARD = "qis eex unt"


def test_the_qu_die():
    words = [
        *["quiet", "queen", "queue", "ten", "net", "sex", "six"],  # on the board
        *["qis", "uis", "exit", "unit", "tune", "nut", "quit", "quits", "suit"],  # not
    ]
    board = parse_board(QU_BOARD)
    # Compiled without the Qu rule, so that "qis" is in the word list.
    solution = solve(board, word_list_of(words, WordRules(qu_rule=False)))
    found = solution.by_word()
    # quiet: qu i(0,1) e(1,1) t(2,2). queen: qu e e n, either e first. queue: qu e u(2,0) e,
    # and u(2,0) touches both e. ten/net: t(2,2) e(1,1) n(2,1). sex: s(0,2) e(1,1) x(1,2).
    # six: s i x(1,2), i(0,1) touches x diagonally.
    # Not found: qis (no die shows a bare q), uis (the Qu die's u is not a die of its own,
    # and u(2,0) does not touch i), exit (x touches i but i does not touch t), unit (n(2,1)
    # does not touch i(0,1)), tune and nut (u(2,0) does not touch t(2,2)), quit (i does not
    # touch t), suit (s does not touch u(2,0)).
    assert set(found) == {"quiet", "queen", "queue", "ten", "net", "sex", "six"}
    assert found["quiet"].path == (0, 1, 4, 8)
    assert found["queen"].path in {(0, 3, 4, 7), (0, 4, 3, 7)}
    assert found["queue"].path in {(0, 3, 6, 4), (0, 4, 6, 3)}
    # Qu counts two letters: quiet, queen and queue are 5-letter words, 2 points each.
    assert [found[w].points for w in ("quiet", "queen", "queue")] == [2, 2, 2]
    assert solution.total_points == 3 * 2 + 4 * 1


def test_words_starting_or_ending_with_the_qu_die():
    word_list = word_list_of(["qu", "equ", "aqua", "suq"], WordRules(min_length=1, qu_rule=False))
    # e(0,0) qu(0,1) a(0,2); a below qu at (1,1).
    assert words_found(parse_board("eqa xax xxx"), word_list, 1) == {"qu", "equ", "aqua"}


# th e  n     0 1 2
# er a  in    3 4 5
# he an s     6 7 8
TWO_LETTER_BOARD = "th,e,n er,a,in he,an,s"


def test_two_letter_faces_spell_through():
    words = [
        *["then", "than", "the", "era", "eras", "ans", "sane", "sin", "heer", "inane"],
        *["her", "tan", "thin", "hers", "tin", "seen"],
    ]
    board = parse_board(TWO_LETTER_BOARD)
    solution = solve(board, word_list_of(words))
    # then: th e n along the top. than: th a(1,1) n(0,2). the: th e. era: er a. eras: er a
    # s(2,2). ans: an s. sane: s a n e. sin: s in. heer: he(2,0) er(1,0). inane: in(1,2)
    # a(1,1) n(0,2) e(0,1).
    # Not found, because a face is never split: her (no h or r die), tan (no t die, though
    # th touches a touches n), thin (th and in do not touch), hers, tin, seen.
    expected = {
        "then": (0, 1, 2),
        "than": (0, 4, 2),
        "the": (0, 1),
        "era": (3, 4),
        "eras": (3, 4, 8),
        "ans": (7, 8),
        "sane": (8, 4, 2, 1),
        "sin": (8, 5),
        "heer": (6, 3),
        "inane": (5, 4, 2, 1),
    }
    assert {found.word: found.path for found in solution.words} == expected
    # Points go by letters, not dice: "the" is 3 letters (1 point), "inane" 5 (2 points).
    assert solution.by_word()["inane"].points == 2
    assert solution.total_points == 11


def test_letters_outside_the_word_list_alphabet_are_dead_cells():
    word_list = word_list_of(["abc", "cab", "ba"], WordRules(alphabet="abc", min_length=1))
    assert set(word_list.trie.keys()) == {"abc", "cab", "ba"}
    # x, y and z are not in the alphabet: those cells are simply never used.
    assert words_found(parse_board("abc xyz xyz"), word_list, 1) == {"abc", "ba"}
    # a(0,0) c(0,1), b(1,1) touches both.
    assert words_found(parse_board("acx ybz xyz"), word_list, 1) == {"abc", "cab", "ba"}
    assert words_found(parse_board("xyz xyz xyz"), word_list, 1) == set()


def test_find_paths_maps_word_ids_to_paths():
    board = parse_board(CAT_BOARD)
    word_list = word_list_of(CAT_WORDS)
    paths = {
        word_list.word(word_id): path for word_id, path in find_paths(board, word_list).items()
    }
    assert paths == {**CAT_PATHS, "at": (1, 2), "do": (4, 3)}


# --- properties over many boards with the real English list ---------------------------------


@pytest.mark.parametrize("name", sorted(DICE_SETS))
def test_every_path_spells_its_word(english, english_words, name):
    dice_set = DICE_SETS[name]
    minimum = 3 if dice_set.rows * dice_set.cols < 25 else 4
    lengths = Counter()
    for seed in range(60):
        board = roll(name, seed)
        solution = solve(board, english)
        assert_valid_solution(board, solution, english_words, minimum)
        lengths.update(len(found.word) for found in solution.words)
    # The rolls find plenty of words, and default minimum lengths apply.
    assert sum(lengths.values()) > 60 * 20
    assert min(lengths) == minimum


def test_min_length_only_filters(english):
    for seed in range(30):
        board = roll("classic", seed)
        everything = solve(board, english, 3)
        for minimum in (4, 5, 6):
            longer = solve(board, english, minimum)
            assert [f for f in everything.words if len(f.word) >= minimum] == list(longer.words)


def test_super_big_rolls_use_their_special_faces(english, english_words):
    # Over many 6x6 rolls, words are found through two-letter faces and Qu dice.
    through = Counter()
    for seed in range(60):
        board = roll("super-big", seed)
        for found in solve(board, english).words:
            for cell in found.path:
                if len(board.faces[cell]) == 2:
                    through[board.faces[cell]] += 1
    assert {"qu", "th", "er", "in", "he", "an"} <= set(through)


@pytest.fixture(scope="module")
def english_text(english_words):
    """The English words, one a line, for a fast regular-expression prefilter."""
    return "\n".join(sorted(english_words))


@pytest.mark.parametrize(("name", "boards"), [("classic", 30), ("classic-1976", 20)])
def test_english_solutions_match_a_per_word_search(english, english_text, name, boards):
    # For each word of the word list that the board's letters could make (only letters on the
    # board, no letter more often than the board has it), look for a path with the reference
    # search; the solver must find exactly those words.
    for seed in range(boards):
        board = roll(name, seed)
        letters = "".join(board.faces)
        available = Counter(letters)
        pattern = rf"^[{''.join(sorted(available))}]{{3,{len(letters)}}}$"
        candidates = re.findall(pattern, english_text, re.MULTILINE)
        expected = {
            word
            for word in candidates
            if not Counter(word) - available and spell(board, word) is not None
        }
        assert len(expected) > 5
        assert words_found(board, english) == expected, (name, seed, board.to_text())


# --- brute force on random boards with generated dictionaries ------------------------------

FACES = [*"aeilnorstu", *"bcdgkmpz", "qu", "th", "er", "in", "he", "an", "#"]
WEIGHTS = [8] * 10 + [2] * 8 + [3, 2, 2, 2, 2, 2, 3]


def random_board(rng: random.Random, rows: int, cols: int) -> Board:
    return from_faces(rng.choices(FACES, WEIGHTS, k=rows * cols), rows=rows)


def random_walk(rng: random.Random, board: Board, cells: int) -> str:
    """A string spelled by a random path (may stop early at a dead end)."""
    nearby = touching_cells(board.rows, board.cols)
    open_cells = [c for c, face in enumerate(board.faces) if face != "#"]
    if not open_cells:
        return ""
    path = [rng.choice(open_cells)]
    while len(path) < cells:
        options = [c for c in nearby[path[-1]] if c not in path and board.faces[c] != "#"]
        if not options:
            break
        path.append(rng.choice(options))
    return "".join(board.faces[c] for c in path)


def dictionary_for(rng: random.Random, board: Board) -> list[str]:
    """Words on the board, near misses, and random strings."""
    words = set()
    for _ in range(60):
        word = random_walk(rng, board, rng.randint(1, board.rows * board.cols))
        if not word:
            continue
        words.add(word)
        words.add(word[:-1])
        position = rng.randrange(len(word))
        words.add(word[:position] + rng.choice("aeioustq") + word[position + 1 :])
        words.add(word + rng.choice("aest"))
        words.add(word[::-1])
        words.add(word.replace("qu", "q"))
    for _ in range(60):
        words.add("".join(rng.choices("aeilnorstuqh", k=rng.randint(1, 7))))
    return sorted(word for word in words if word)


def test_brute_force_all_paths_on_3x3_boards():
    rng = random.Random(1234)
    total = 0
    for _ in range(150):
        board = random_board(rng, 3, 3)
        word_list = word_list_of(dictionary_for(rng, board))
        words = set(word_list.trie.keys())
        expected = words & spelled_anywhere(board)
        solution = solve(board, word_list, 1)
        assert {found.word for found in solution.words} == expected, board.to_text()
        assert_valid_solution(board, solution, words, 1)
        total += len(expected)
    assert total > 150 * 10  # the dictionaries do put words on the boards


@pytest.mark.parametrize(("rows", "cols"), [(4, 4), (3, 5), (5, 4), (6, 6)])
def test_per_word_search_on_random_boards(rows, cols):
    rng = random.Random(rows * 100 + cols)
    total = 0
    for _ in range(60 if rows * cols <= 20 else 15):
        board = random_board(rng, rows, cols)
        word_list = word_list_of(dictionary_for(rng, board))
        words = set(word_list.trie.keys())
        expected = {word for word in words if spell(board, word) is not None}
        solution = solve(board, word_list, 1)
        assert {found.word for found in solution.words} == expected, board.to_text()
        assert_valid_solution(board, solution, words, 1)
        total += len(expected)
    assert total > 100
