"""The Solve API (docs/api.md, "Solve a board"): ``GET /api/solve`` answers every word of
a board, ``POST /api/solve/check`` a paper game's lists checked and scored. Views parse
and count the request against the address's limit; ``solve.answers`` does the work."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods

from solve import answers
from web import text, throttle
from web.errors import InvalidInput
from web.json_api import json_api, rate_limited, read_json

# Largest body of POST /api/solve/check: 12 lists of 500 words, each word up to the
# longest entry, with room for the JSON around them.
MAX_CHECK_BODY_BYTES = 512 * 1024
# Longest ?board= taken (games.checks.MAX_BOARD_CHARS refuses longer ones after).
MAX_BOARD_PARAM = 400

# A family at a table solves a few boards a minute; a script solving every board there is
# costs a walk each (a few milliseconds).
SOLVE = throttle.Limit("solve", 120, 60, gettext_lazy("too many boards solved from your address"))
# Checking twelve lists of 500 words walks the board for each: some 50 ms.
CHECK = throttle.Limit(
    "solve_check", 30, 20, gettext_lazy("too many lists checked from your address")
)


@json_api
@require_http_methods(["GET"])
@rate_limited(SOLVE)
def solve_board(request: HttpRequest) -> HttpResponse:
    board = text.check_text(request.GET.get("board", ""), "board", MAX_BOARD_PARAM)
    dictionary = text.check_text(request.GET.get("dictionary", ""), "dictionary", 200)
    min_length = answers.min_length_param(request.GET.get("min_length"))
    puzzle = answers.check_puzzle(board, dictionary or None, min_length)
    return HttpResponse(answers.solved(puzzle).encoded, content_type="application/json")


@json_api
@require_http_methods(["POST"])
@rate_limited(CHECK)
def check_lists(request: HttpRequest) -> JsonResponse:
    data = read_json(request, MAX_CHECK_BODY_BYTES)
    unknown = sorted(
        set(data) - {"board", "dictionary", "min_length", "cancel_duplicates", "players"}
    )
    if unknown:
        raise InvalidInput(f"unknown field {unknown[0]!r}")
    cancel = data.get("cancel_duplicates", True)
    if not isinstance(cancel, bool):
        raise InvalidInput("cancel_duplicates is true or false")
    puzzle = answers.check_puzzle(data.get("board"), data.get("dictionary"), data.get("min_length"))
    lists = answers.check_players(data.get("players"))
    return JsonResponse(answers.check_answer(puzzle, lists, cancel))
