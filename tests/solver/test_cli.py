"""The command line: python -m solver solve|score|roll|build|compile|lookup."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from solver import load_word_list, parse_board, solve
from solver.cli import main
from solver.dice import get_dice_set

REPOSITORY = Path(__file__).resolve().parents[2]

# c a t      The board of test_solve.py: these ten words are on it (one point each), the
# o d s      other six are not. Paths are unique: every letter is on one die.
# g x e
CAT_BOARD = "cat ods gxe"
ON_BOARD = {
    "cat": [0, 1, 2],
    "cats": [0, 1, 2, 5],
    "dog": [4, 3, 6],
    "god": [6, 3, 4],
    "cod": [0, 3, 4],
    "coat": [0, 3, 1, 2],
    "sex": [5, 8, 7],
    "sad": [5, 1, 4],
    "ads": [1, 4, 5],
    "gods": [6, 3, 4, 5],
}
NOT_ON_BOARD = ["act", "toad", "dogs", "date", "dad", "axe"]


@pytest.fixture
def wordlist(tmp_path, fresh_dictionary_dir) -> str:
    path = tmp_path / "words.txt"
    path.write_text("\n".join([*ON_BOARD, *NOT_ON_BOARD, "Paris", "qat"]) + "\n")
    return str(path)


def run(capsys, *argv: str, stdin: str = "") -> tuple[int, str, str]:
    code = main(list(argv), stdin=io.StringIO(stdin))
    out, err = capsys.readouterr()
    return code, out, err


def test_solve_json(capsys, wordlist):
    code, out, err = run(capsys, "solve", CAT_BOARD, "--dictionary", wordlist, "--json")
    assert code == 0 and err == ""
    data = json.loads(out)
    assert data["board"] == "cat ods gxe"
    assert (data["rows"], data["cols"]) == (3, 3)
    assert {w["word"]: w["path"] for w in data["words"]} == ON_BOARD
    assert all(set(w) == {"word", "points", "path"} for w in data["words"])
    assert all(w["points"] == 1 for w in data["words"])
    assert data["word_count"] == len(data["words"]) == 10
    assert data["total_points"] == sum(w["points"] for w in data["words"]) == 10


def test_solve_text(capsys, wordlist):
    code, out, err = run(capsys, "solve", CAT_BOARD, "--dictionary", wordlist)
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[-1] == "10 words, 10 points"
    listed = {line.split()[0]: int(line.split()[1]) for line in lines[:-1]}
    assert listed == dict.fromkeys(ON_BOARD, 1)


def test_solve_board_in_several_arguments_and_in_one_run(capsys, wordlist):
    _, spaced, _ = run(capsys, "solve", "cat", "ods", "gxe", "--dictionary", wordlist)
    _, run_together, _ = run(capsys, "solve", "catodsgxe", "--dictionary", wordlist)
    assert spaced == run_together
    assert spaced.splitlines()[-1] == "10 words, 10 points"


def test_solve_min_length(capsys, wordlist):
    code, out, _ = run(capsys, "solve", CAT_BOARD, "--dictionary", wordlist, "--min-length", "4")
    assert code == 0
    assert {line.split()[0] for line in out.splitlines()[:-1]} == {"cats", "coat", "gods"}
    assert out.splitlines()[-1] == "3 words, 3 points"


def test_solve_with_the_default_dictionary(capsys, use_session_dictionaries, english):
    board = "aeol iejm pdls orkf"
    code, out, _ = run(capsys, "solve", board, "--json")
    assert code == 0
    data = json.loads(out)
    expected = solve(parse_board(board), english)
    assert [(w["word"], w["points"]) for w in data["words"]] == [
        (found.word, found.points) for found in expected.words
    ]
    assert data["total_points"] == expected.total_points == sum(w["points"] for w in data["words"])
    assert data["word_count"] == len(expected) > 20


@pytest.mark.parametrize(
    ("board", "message"),
    [("ab cd", "3 to 6 rows, got 2"), ("abc1 defg hijk lmno", "unknown symbol '1'")],
)
def test_bad_board_exits_2_with_an_error(capsys, wordlist, board, message):
    code, out, err = run(capsys, "solve", board, "--dictionary", wordlist)
    assert code == 2
    assert out == ""
    assert err.startswith("error: ")
    assert message in err


def test_unknown_dictionary_exits_2(capsys, fresh_dictionary_dir):
    code, out, err = run(capsys, "solve", CAT_BOARD, "--dictionary", "klingon")
    assert code == 2 and out == ""
    assert err.startswith("error: no dictionary named 'klingon'")


def test_score_prints_one_line_per_board(capsys, wordlist):
    stdin = "cat ods gxe\n\n  cat o#s gxe  \ncatodsgxe\n"
    code, out, err = run(capsys, "score", "--dictionary", wordlist, stdin=stdin)
    assert code == 0 and err == ""
    # With d blocked only cat, cats, coat and sex are left.
    assert out.splitlines() == [
        "cat ods gxe\t10\t10",
        "cat o#s gxe\t4\t4",
        "catodsgxe\t10\t10",
    ]


def test_score_reports_bad_lines_and_still_scores_the_good_ones(capsys, wordlist):
    stdin = "cat ods gxe\nab cd\ncat o#s gxe\nhello world!\n"
    code, out, err = run(capsys, "score", "--dictionary", wordlist, stdin=stdin)
    assert code == 2
    assert out.splitlines() == ["cat ods gxe\t10\t10", "cat o#s gxe\t4\t4"]
    errors = err.splitlines()
    assert len(errors) == 2
    assert errors[0].startswith("line 2: ") and "3 to 6 rows" in errors[0]
    assert errors[1].startswith("line 4: ") and "unknown symbol" in errors[1]


def test_score_min_length(capsys, wordlist):
    code, out, _ = run(
        capsys, "score", "--dictionary", wordlist, "--min-length", "4", stdin=CAT_BOARD
    )
    assert code == 0
    assert out == "cat ods gxe\t3\t3\n"


def test_roll_is_reproducible(capsys):
    boards = []
    for seed in ("7", "7", "8"):
        code, out, _ = run(capsys, "roll", "--seed", seed)
        assert code == 0
        boards.append(out.strip())
    assert boards[0] == boards[1] != boards[2]
    board = parse_board(boards[0])
    assert (board.rows, board.cols) == (4, 4)
    classic_faces = {face for die in get_dice_set("classic").dice for face in die}
    assert set(board.faces) <= classic_faces


def test_roll_other_dice_sets(capsys):
    for name, side in (("big", 5), ("super-big", 6), ("classic-1976", 4)):
        code, out, _ = run(capsys, "roll", "--dice", name, "--seed", "x")
        assert code == 0
        board = parse_board(out)
        assert (board.rows, board.cols) == (side, side)
    with pytest.raises(SystemExit) as exit_info:
        main(["roll", "--dice", "tiny"])
    assert exit_info.value.code == 2
    assert "invalid choice: 'tiny'" in capsys.readouterr().err


def test_lookup_exit_codes(capsys, wordlist):
    code, out, _ = run(capsys, "lookup", "cats", "--dictionary", wordlist)
    assert (code, out) == (0, "yes: 'cats' is in the dictionary\n")
    code, out, _ = run(capsys, "lookup", "CAT", "--dictionary", wordlist)
    assert (code, out) == (0, "yes: 'cat' is in the dictionary\n")
    code, out, _ = run(capsys, "lookup", "cow", "--dictionary", wordlist)
    assert (code, out) == (1, "no: 'cow' is not in the word list\n")
    code, out, _ = run(capsys, "lookup", "Paris", "--dictionary", wordlist)
    assert (code, out) == (1, "no: proper noun (capitalised)\n")
    code, out, _ = run(capsys, "lookup", "qat", "--dictionary", wordlist)
    assert (code, out) == (1, "no: q not followed by u\n")


def test_compile_prints_the_report(capsys, tmp_path):
    source = tmp_path / "list.txt"
    source.write_text("# comment\ncat\ncat\nParis\nqat\nat\ndon't\nzebra\n")
    target = tmp_path / "list.lex"
    code, out, err = run(capsys, "compile", str(source), str(target))
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0] == "2 words kept, 5 dropped"
    reasons = {
        line.split("(e.g.")[0].split(None, 1)[1].strip(): int(line.split()[0]) for line in lines[1:]
    }
    assert reasons == {
        "duplicate": 1,
        "proper noun (capitalised)": 1,
        "q not followed by u": 1,
        "too short": 1,
        "characters outside the alphabet": 1,
    }
    assert set(load_word_list(target).trie.keys()) == {"cat", "zebra"}


def test_compile_options(capsys, tmp_path):
    source = tmp_path / "list.txt"
    source.write_text("été\nParis\nqat\nat\nabcdefgh\n", encoding="utf-8")
    target = tmp_path / "list.lex"
    argv = ["compile", str(source), str(target), "--fold-accents", "--no-qu-rule"]
    argv += ["--keep-capitalised", "--min-length", "2", "--max-length", "7"]
    code, out, _ = run(capsys, *argv)
    assert code == 0
    assert out.splitlines()[0] == "4 words kept, 1 dropped"
    word_list = load_word_list(target)
    assert set(word_list.trie.keys()) == {"ete", "paris", "qat", "at"}
    assert word_list.rules.fold_accents and not word_list.rules.qu_rule
    code, out, _ = run(capsys, "compile", str(source), str(target), "--alphabet", "abcdefgh")
    assert code == 0
    assert set(load_word_list(target).trie.keys()) == {"abcdefgh"}


def test_compile_errors_exit_2(capsys, tmp_path):
    code, out, err = run(capsys, "compile", str(tmp_path / "missing.txt"), str(tmp_path / "x.lex"))
    assert code == 2 and out == ""
    assert err.startswith("error: ") and "missing.txt" in err
    source = tmp_path / "list.txt"
    source.write_text("cat\n")
    code, _, err = run(capsys, "compile", str(source), str(tmp_path / "x.lex"), "--min-length", "0")
    assert code == 2 and err.startswith("error: ") and "min_length" in err
    source.write_text("# nothing\n")
    code, _, err = run(capsys, "compile", str(source), str(tmp_path / "x.lex"))
    assert code == 2 and "no usable words" in err
    assert not (tmp_path / "x.lex").exists()


def test_build(capsys, fresh_dictionary_dir):
    code, out, _ = run(capsys, "build", "english-common")
    assert code == 0
    first = out.splitlines()
    assert first[0] == f"english-common: compiled to {fresh_dictionary_dir / 'english-common.lex'}"
    assert "words kept" in first[1]
    code, out, _ = run(capsys, "build", "english-common")
    assert code == 0
    assert out == f"english-common: up to date ({fresh_dictionary_dir / 'english-common.lex'})\n"
    code, out, _ = run(capsys, "build", "english-common", "--force")
    assert "compiled to" in out
    code, out, err = run(capsys, "build", "klingon")
    assert code == 2 and "unknown dictionary 'klingon'" in err


def test_python_dash_m_solver(tmp_path, wordlist):
    env = {**os.environ, "BOGGLE_DICTIONARY_DIR": str(tmp_path / "cache")}

    def python_m_solver(*argv, stdin=""):
        return subprocess.run(
            [sys.executable, "-m", "solver", *argv],
            cwd=REPOSITORY,
            env=env,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )

    rolled = python_m_solver("roll", "--seed", "42")
    assert rolled.returncode == 0, rolled.stderr
    assert python_m_solver("roll", "--seed", "42").stdout == rolled.stdout
    assert (parse_board(rolled.stdout).rows, parse_board(rolled.stdout).cols) == (4, 4)
    solved = python_m_solver("solve", CAT_BOARD, "--dictionary", wordlist, "--json")
    assert solved.returncode == 0, solved.stderr
    assert json.loads(solved.stdout)["total_points"] == 10
    bad = python_m_solver("solve", "ab cd", "--dictionary", wordlist)
    assert bad.returncode == 2
    assert bad.stderr.startswith("error: ")
    scored = python_m_solver("score", "--dictionary", wordlist, stdin="cat ods gxe\nxx\n")
    assert scored.returncode == 2
    assert scored.stdout == "cat ods gxe\t10\t10\n"
