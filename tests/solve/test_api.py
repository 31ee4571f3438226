"""The Solve API (docs/api.md, "Solve a board"): GET /api/solve answers what a round on the
same board would (its results' solution: words, paths, points), and POST /api/solve/check
referees a paper game's lists; both refuse what is not a board, a dictionary or a list with
a clear error and never a 5xx."""

from __future__ import annotations

import itertools
import json
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from games import rooms, rounds, state
from games.models import Round
from solve import answers
from solver import roll
from tests.games.words_helpers import submit_word

pytestmark = pytest.mark.django_db

BOARD = "aeol iejm pdls orkf"


@pytest.fixture(autouse=True)
def fresh_solutions():
    answers.forget_solutions()
    yield
    answers.forget_solutions()


def solve(client: Client | None = None, **params):
    return (client or Client()).get("/api/solve", params)


def check(body, client: Client | None = None):
    data = body if isinstance(body, str | bytes) else json.dumps(body)
    return (client or Client()).post("/api/solve/check", data, content_type="application/json")


def assert_error(response, status: int, code: str, *words: str) -> None:
    assert response.status_code == status, response.content
    error = response.json()["error"]
    assert error["code"] == code and error["message"]
    for word in words:
        assert word in error["message"], error["message"]


def spells(grid: list[list[str]], path: list[int], word: str) -> bool:
    """The path's cells are distinct and touching, and their faces spell ``word``."""
    cols = len(grid[0])
    faces = [face for row in grid for face in row]
    touching = all(
        max(abs(a // cols - b // cols), abs(a % cols - b % cols)) == 1
        for a, b in itertools.pairwise(path)
    )
    return len(set(path)) == len(path) and touching and "".join(faces[c] for c in path) == word


def running_round(board: str) -> Round:
    """A room's round on ``board``, prepared (solved) and running."""
    side = len(board.split())
    _, host = rooms.do_create_room("Ann", {"board_size": f"{side}x{side}"})
    rooms.do_set_next_board(host, board)
    round_ = rounds.do_start_round(host)
    assert rounds.do_prepare_round(round_.id)
    now = timezone.now()
    Round.objects.filter(pk=round_.pk).update(
        starts_at=now - timedelta(seconds=1), ends_at=now + timedelta(seconds=60)
    )
    round_.refresh_from_db()
    return round_


def played_round_results(board: str) -> dict:
    """The results of a round a room played on ``board``."""
    round_ = running_round(board)
    rounds.do_end_round(round_.id)
    round_.refresh_from_db()
    assert round_.status == Round.Status.ENDED
    return state.results(round_)


@pytest.mark.parametrize("dice_set", ["classic", "big", "super-big"])
def test_the_api_answers_what_a_round_on_the_board_finds(dice_set):
    for seed in range(3):
        board = roll(dice_set, f"solve-api:{seed}").to_text()
        results = played_round_results(board)
        response = solve(board=board)
        assert response.status_code == 200, response.content
        answer = response.json()
        assert answer["board"]["board"] == board
        assert answer["min_length"] == results["round"]["min_length"]
        assert answer["dictionary"] == results["round"]["dictionary"]
        expected = [(w["word"], w["points"], w["path"], w["common"]) for w in results["solution"]]
        assert [
            (w["word"], w["points"], w["path"], w["common"]) for w in answer["words"]
        ] == expected
        assert answer["word_count"] == results["word_count"]
        assert answer["max_points"] == results["max_points"]
        for word in answer["words"]:
            assert spells(answer["board"]["grid"], word["path"], word["word"])


def test_the_answer_has_the_documented_shape_and_defaults_as_a_new_room():
    answer = solve(board=BOARD).json()
    assert set(answer) == {"board", "dictionary", "min_length", "word_count", "max_points", "words"}
    assert answer["board"] == {
        "board": BOARD,
        "rows": 4,
        "columns": 4,
        "grid": [list(row) for row in BOARD.split()],
    }
    assert answer["dictionary"] == "english" and answer["min_length"] == 3
    assert set(answer["words"][0]) == {"word", "points", "path", "common"}
    assert answer["word_count"] == len(answer["words"]) > 0
    assert answer["max_points"] == sum(word["points"] for word in answer["words"])
    six = solve(board=roll("super-big", "six").to_text()).json()
    assert six["min_length"] == 4 and min(len(w["word"]) for w in six["words"]) >= 4


def test_min_length_and_dictionary_choose_the_words():
    broad = solve(board=BOARD).json()
    longer = solve(board=BOARD, min_length="5").json()
    assert longer["min_length"] == 5
    assert [w["word"] for w in longer["words"]] == [
        w["word"] for w in broad["words"] if len(w["word"]) >= 5
    ]
    common = solve(board=BOARD, dictionary="english-common").json()
    assert common["dictionary"] == "english-common"
    assert {w["word"] for w in common["words"]} < {w["word"] for w in broad["words"]}


def test_board_notations_qu_and_two_letter_faces():
    # The Qu die (q) and a Super Big Boggle face (th) in a 4x4 board.
    answer = solve(board="q,u,i,t th,e,s,e a,b,c,d e,f,g,h").json()
    assert answer["board"]["grid"][0][0] == "qu"
    assert answer["board"]["grid"][1][0] == "th"
    words = {w["word"]: w for w in answer["words"]}
    assert "these" in words and words["these"]["path"][0] == 4
    # The same board in the run notation gives the same answer.
    run = solve(board="aeoliejmpdlsorkf").json()
    assert run["words"] == solve(board=BOARD).json()["words"]


@pytest.mark.parametrize(
    ("params", "code"),
    [
        ({}, "invalid_board"),
        ({"board": "abc"}, "invalid_board"),
        ({"board": "abcd efgh ijkl"}, "invalid_board"),  # 3x4: no size rooms play
        ({"board": "abc def ghi"}, "invalid_board"),  # 3x3
        ({"board": "ab1d efgh ijkl mnop"}, "invalid_board"),
        ({"board": "x" * 500}, "invalid"),
        ({"board": "ab\x00d efgh ijkl mnop"}, "invalid"),
        ({"board": BOARD, "dictionary": "klingon"}, "unknown_dictionary"),
        ({"board": BOARD, "dictionary": "\x7f"}, "invalid"),
        ({"board": BOARD, "min_length": "2"}, "invalid"),
        ({"board": BOARD, "min_length": "nine"}, "invalid"),
        ({"board": BOARD, "min_length": "99999999999999999999"}, "invalid"),
    ],
)
def test_what_is_no_board_or_no_dictionary_gets_a_clear_400(params, code):
    assert_error(solve(**params), 400, code)


def test_an_unknown_dictionary_names_itself_and_where_to_look():
    assert_error(solve(board=BOARD, dictionary="klingon"), 400, "unknown_dictionary", "klingon")


def test_solutions_are_kept_per_board_and_dictionary_version(django_assert_num_queries):
    solve(board=BOARD)
    # Asked again: no solving, only the dictionary's look-up (and the default's name, when
    # none is asked for).
    with django_assert_num_queries(1):
        assert solve(board=BOARD, dictionary="english").status_code == 200
    with django_assert_num_queries(2):
        assert solve(board=BOARD).status_code == 200


# ---------------------------------------------------------------- the referee


def test_check_scores_ranks_cancels_and_lists_the_missed_words():
    answer = solve(board=BOARD).json()
    valid = [w["word"] for w in answer["words"] if w["points"] == 1][:3]
    response = check(
        {
            "board": BOARD,
            "players": [
                {"name": "Ann", "words": [valid[0], valid[1], "zzzz", valid[0].upper()]},
                {"name": "Bob", "words": [valid[1], valid[2], "ab", "", "quiet"]},
            ],
        }
    )
    assert response.status_code == 200, response.content
    result = response.json()
    assert result["cancel_duplicates"] is True
    ann, bob = sorted(result["players"], key=lambda p: p["name"])
    assert [(w["word"], w["verdict"], w["points"], w["cancelled"]) for w in ann["words"]] == [
        (valid[0], "accepted", 1, False),
        (valid[1], "accepted", 0, True),
        ("zzzz", "not_on_board", 0, False),
        (valid[0], "already_entered", 0, False),
    ]
    assert ann["words"][2]["reason"] == "not on the board"
    assert ann["words"][3]["reason"] == "written twice"
    assert ann["words"][0]["reason"] is None
    assert [w["verdict"] for w in bob["words"]] == [
        "accepted",
        "accepted",
        "too_short",
        "not_on_board",
    ]
    assert ann["points"] == 1 and bob["points"] == 1
    assert ann["rank"] == bob["rank"] == 1
    missed = {w["word"] for w in result["missed"]}
    assert missed == {w["word"] for w in answer["words"]} - set(valid)
    assert result["word_count"] == answer["word_count"]


def test_check_in_the_dictionary_or_not_and_without_cancelling():
    common = solve(board=BOARD, dictionary="english-common").json()
    word = next(w["word"] for w in common["words"] if w["points"] == 1)
    result = check(
        {
            "board": BOARD,
            "dictionary": "english-common",
            "cancel_duplicates": False,
            "players": [
                {"name": "Ann", "words": ["jeels"]},  # in the broad list only
                {"name": "Bob", "words": [word.upper()]},
                {"name": "Cy", "words": [word]},
            ],
        }
    ).json()
    by_name = {p["name"]: p for p in result["players"]}
    assert by_name["Ann"]["words"][0]["verdict"] == "not_in_dictionary"
    assert by_name["Bob"]["words"][0] == {
        "word": word,
        "verdict": "accepted",
        "reason": None,
        "points": 1,
        "cancelled": False,
        "path": by_name["Bob"]["words"][0]["path"],
    }
    assert by_name["Cy"]["points"] == 1
    assert [p["name"] for p in result["players"]] == ["Bob", "Cy", "Ann"]


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"board": BOARD}, ["players"]),
        ({"board": BOARD, "players": []}, ["players"]),
        ({"board": BOARD, "players": [{"name": "", "words": []}]}, ["name"]),
        ({"board": BOARD, "players": [{"name": "Ann"}, {"name": "ann"}]}, ["ann"]),
        ({"board": BOARD, "players": [{"name": "Ann", "words": "cat dog"}]}, ["list"]),
        ({"board": BOARD, "players": [{"name": "Ann", "words": [7]}]}, ["words[0]"]),
        ({"board": BOARD, "players": [{"name": "Ann", "words": ["c\x00t"]}]}, ["words[0]"]),
        ({"board": BOARD, "players": [{"name": "Ann", "words": ["x" * 100]}]}, ["words[0]"]),
        ({"board": BOARD, "players": [{"name": "A", "words": [], "team": 1}]}, ["players"]),
        ({"board": BOARD, "players": [{"name": f"P{i}"} for i in range(13)]}, ["12"]),
        (
            {"board": BOARD, "players": [{"name": "Ann", "words": ["cat"] * 501}]},
            ["500"],
        ),
        ({"board": BOARD, "cancel_duplicates": "yes", "players": [{"name": "A"}]}, ["cancel"]),
        ({"board": BOARD, "colour": "red", "players": [{"name": "A"}]}, ["colour"]),
    ],
)
def test_check_refuses_what_is_no_paper_game_with_a_clear_400(body, words):
    assert_error(check(body), 400, "invalid", *words)


def test_check_refuses_a_bad_board_or_dictionary_and_a_body_that_is_not_json():
    assert_error(check({"board": "abc", "players": [{"name": "A"}]}), 400, "invalid_board")
    assert_error(check({"board": [1], "players": [{"name": "A"}]}), 400, "invalid_board")
    assert_error(
        check({"board": BOARD, "dictionary": {"a": 1}, "players": [{"name": "A"}]}),
        400,
        "unknown_dictionary",
    )
    assert_error(check("{not json"), 400, "invalid")
    assert_error(check("[1, 2]"), 400, "invalid")


def test_twelve_full_lists_fit_and_a_larger_body_is_413():
    words = [f"{'abcdefghijklmnopqrstuvwxyz'[i % 26]}{'x' * 60}" for i in range(500)]
    players = [{"name": f"Player {i}", "words": words} for i in range(12)]
    response = check({"board": BOARD, "players": players})
    assert response.status_code == 200, response.content[:200]
    assert all(p["points"] == 0 for p in response.json()["players"])
    huge = json.dumps({"board": BOARD, "players": [{"name": "A", "words": ["a" * 70] * 8000}]})
    assert len(huge) > 512 * 1024
    assert check(huge).status_code in (400, 413)


def test_the_check_judges_as_a_round_does():
    """A round's verdicts and points for the same words on the same board."""
    round_ = running_round(BOARD)
    host = round_.room.players.get()
    entries = ["dole", "jeels", "hello", "ab", "dole", "peeled", "xq"]
    for entry in entries:
        submit_word(host, entry)
    rounds.do_end_round(round_.id)
    round_.refresh_from_db()
    results = state.results(round_)
    (player,) = results["players"]
    result = check({"board": BOARD, "players": [{"name": "Ann", "words": entries}]}).json()
    checked = result["players"][0]["words"]
    accepted = {w["word"]: w["points"] for w in checked if w["verdict"] == "accepted"}
    assert accepted == {w["word"]: w["points"] for w in player["words"]}
    refused = {
        (w["word"], w["verdict"])
        for w in checked
        if w["verdict"] not in ("accepted", "already_entered")
    }
    assert refused == {(w["word"], w["verdict"]) for w in player["rejected"]}
    assert result["players"][0]["points"] == player["round_points"]


def test_query_bytes_that_are_not_utf8_are_no_dictionary():
    response = Client().get(f"/api/solve?board={BOARD.replace(' ', '+')}&dictionary=%ED%A0%80")
    assert_error(response, 400, "unknown_dictionary")
