"""The Solve page (``/solve/``, ``/solve/<board>/``): type or photograph a board and see
every word, and check the lists of a game played on paper. A shell for the ES modules in
``static/js/solve/``, which talk to the Solve API (docs/api.md, "Solve a board"); a board
in the address is solved here and embedded, so its words draw at once."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import get_language

from games.room_dictionaries import available_dictionaries, dictionary_for_language
from solve import answers
from solve.api import MAX_BOARD_PARAM, SOLVE
from web import text, throttle
from web.errors import ClientError


def solve_page(request: HttpRequest, board: str = "") -> HttpResponse:
    """The page; with a board in the address (rows as path segments, or any board text),
    its words too, in ``?dictionary=`` (one rooms may choose; else the page's language's,
    where installed) and ``?min_length=``. A board or dictionary that cannot be solved shows the page with the
    reason, answered 400 (429 past the address's limit)."""
    dictionaries = available_dictionaries()
    chosen = request.GET.get("dictionary", "")
    if not (text.is_clean(chosen, answers.MAX_DICTIONARY_NAME) and chosen in dictionaries):
        chosen = dictionary_for_language(get_language() or "en")
    data: dict[str, Any] = {
        "board_text": "",
        "dictionary": chosen,
        "dictionaries": [{"name": n, "title": t} for n, t in dictionaries.items()],
        "answer": None,
        "error": None,
    }
    status = 200
    if board:
        data["board_text"] = board.strip("/").replace("/", " ")[:MAX_BOARD_PARAM]
        try:
            throttle.take(SOLVE, throttle.client_address(request))
            min_length = answers.min_length_param(request.GET.get("min_length"))
            puzzle = answers.check_puzzle(data["board_text"], chosen, min_length)
            data["answer"] = answers.solved(puzzle).answer
        except ClientError as error:
            data["error"] = {"code": error.code, "message": error.message}
            status = error.status
    return render(request, "solve/solve.html", {"solve_data": data}, status=status)
