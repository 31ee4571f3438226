"""docs/api.md's marked JSON examples are real responses (``tests.games.doc_examples``).

One game, played by ``DocClient``s (the client written from the document), produces the
real answer to every marked example with the example's own inputs; the test compares each
with its block. With ``BOGGLE_WRITE_DOC_EXAMPLES=1`` (``python -m tests.games.doc_examples
--write``) it rewrites the blocks instead.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

import pytest

from tests.games import doc_examples
from tests.games.doc_client import DocClient, close_all

pytestmark = pytest.mark.django_db(transaction=True)

# The board of the documents' examples (docs/api.md, "Round", "Results").
DOC_BOARD = "aeol iejm pdls orkf"
# What the rewritten examples show for a run's room code, address and host's token.
DOC_CODE = "t9un379j"
DOC_SITE = "http://127.0.0.1:8000"
DOC_TOKEN = "Vbp2xwxW4_jKOhlRro-vbKsLlWL5j1b0"


class ExampleClient(DocClient):
    """DocClient, plus what the examples need: requests sent exactly as a block writes them,
    and a socket opened by someone who is no player."""

    async def request_as_written(self, message: dict) -> dict:
        await self.send(message)
        return await self.wait_for_answer(message["request_id"])

    async def connect_to(self, code: str) -> dict:
        self.code, self.token = code, None
        return await self.connect(with_token=False)


def with_doc_values(real: dict[str, list[Any]], replacements: dict[str, str]) -> dict:
    """The real messages with this run's room code, address and token replaced by the
    document's, so that a rewrite changes what changed, not these."""
    text = json.dumps(real)
    for found, documented in replacements.items():
        text = text.replace(found, documented)
    return json.loads(text)


async def play_the_documented_game(
    documented: dict[str, doc_examples.Example],
) -> tuple[dict[str, list[Any]], dict[str, str]]:
    """Real messages for the marked examples, by name: a list with one value per block
    line (a block's requests are sent as written); and the run's volatile texts with what
    the document shows instead."""
    real: dict[str, list[Any]] = {}

    def requests(name: str) -> list[dict]:
        return [line for line in documented[name].lines if "server_time" not in line]

    ann, bob, dan = ExampleClient("Ann"), ExampleClient("Bob"), ExampleClient("Dan")
    cy, dee = ExampleClient("Cy"), ExampleClient("Dee")  # a chess clock room of their own
    try:
        created = await ann.create_room({"round_seconds": 30})
        assert ann.code is not None
        real["create-room"] = [created]
        await bob.join(ann.code)
        status, taken = await dan.call("POST", f"/api/rooms/{ann.code}/join", {"nickname": "bob"})
        assert status == 409
        real["error"] = [taken]
        status, dictionaries = await ann.call("GET", "/api/dictionaries")
        real["dictionaries"] = [dictionaries]
        status, solved = await ann.call("GET", f"/api/solve?board={DOC_BOARD.replace(' ', '+')}")
        real["solve"] = [solved]
        paper_game = {
            "board": DOC_BOARD,
            "dictionary": "english",
            "cancel_duplicates": True,
            "players": [
                {"name": "Ann", "words": ["dorks", "delfs", "lepo", "delfs"]},
                {"name": "Bob", "words": ["delfs", "jeels", "hello", "ox"]},
            ],
        }
        status, checked = await ann.call("POST", "/api/solve/check", paper_game)
        real["solve-check"] = [checked]

        denied = await ExampleClient("Eve").connect_to(ann.code)
        real["connect-error"] = [denied]
        await ann.connect()
        await bob.connect()
        not_host = {"type": "start_round", "request_id": "r1"}
        real["socket-error"] = [await bob.request_as_written(not_host)]
        for name in ("update-settings", "set-board", "start-round"):
            sent = requests(name)[0]
            if name == "start-round":
                await ann.request({"type": "update_settings", "settings": {"min_length": 3}})
                await ann.request({"type": "set_board", "board": DOC_BOARD})
            real[name] = [sent, await ann.request_as_written(sent)]
        started = (await bob.wait_for("round.started"))["round"]
        real["round"] = [started]
        await ann.wait_for("round.started")
        await ann.sleep_until(started["starts_at"])

        sent = requests("submit")[0]
        accepted = await ann.request_as_written(sent)
        await ann.send({"type": "submit", "word": "hello"})
        refused = await ann.wait_for("verdict", word="hello")
        real["submit"] = [sent, accepted, refused]
        for word in ("dorks", "delfs", "lepo", "hello", "dorks"):
            await bob.submit(word)
        assert (await ann.request({"type": "end_round"}))["type"] == "ok"
        real["round-ended"] = [await bob.wait_for("round.ended")]
        asked = requests("results-request")[0]
        real["results-request"] = [asked, await bob.request_as_written(asked)]
        challenged = await bob.request({"type": "challenge", "word": "lepo", "round_number": 1})
        challenge_id = challenged["challenge"]["id"]
        vote = {"type": "vote_challenge", "challenge_id": challenge_id, "accept": False}
        assert (await ann.request(vote))["type"] == "ok"
        status, results = await ann.call("GET", f"/api/rooms/{ann.code}/rounds/1")
        real["results"] = [results["results"]]

        await ann.request({"type": "set_board", "board": "cats qiex dogz went"})
        await ann.request({"type": "start_round"})
        second = (await ann.wait_for("round.started"))["round"]
        await ann.sleep_until(second["starts_at"])
        for word in ("quiet", "cats", "went"):
            await ann.submit(word)
        await bob.submit("cats")
        assert (await ann.request({"type": "end_round"}))["type"] == "ok"
        await ann.wait_for("round.ended")
        status, rounds = await ann.call("GET", f"/api/rooms/{ann.code}/rounds")
        real["rounds"] = [rounds]
        status, stats = await ann.call("GET", f"/api/rooms/{ann.code}/stats")
        real["stats"] = [stats]
        real["state"] = [(await ann.request({"type": "sync"}))["state"]]
        ended = await ann.request({"type": "end_game"})
        real["standing"] = [ended["standing"]]

        await cy.create_room({"mode": "chess", "chess_seconds": 60})
        assert cy.code is not None
        await dee.join(cy.code)
        await cy.connect()
        await dee.connect()
        await cy.request({"type": "set_board", "board": DOC_BOARD})
        await cy.request({"type": "start_round"})
        real["chess-turn"] = [await dee.wait_for("chess.turn")]  # the clock starts
    finally:
        await close_all(ann, bob, dan, cy, dee)
    assert ann.code and ann.token
    return real, {ann.code: DOC_CODE, "http://testserver": DOC_SITE, ann.token: DOC_TOKEN}


def state_table_fields() -> set[str]:
    """The fields the State table of docs/api.md lists."""
    section = doc_examples.API_DOC.read_text().split("### State\n", 1)[1].split("\n### ", 1)[0]
    return set(re.findall(r"^\| `([a-z_]+)` \|", section, re.M))


@pytest.mark.usefixtures("no_live_counts")  # every version shown is the same in each run
async def test_the_documented_examples_are_real_responses() -> None:
    documented = doc_examples.examples()
    real, replacements = await play_the_documented_game(documented)
    if os.environ.get(doc_examples.WRITE_ENV):
        print("rewritten:", doc_examples.rewrite(with_doc_values(real, replacements)))
        return
    # Every marked example is produced, and (so that this test can fail) there are some.
    assert {"create-room", "results", "submit"} <= set(documented)
    not_played = sorted(set(documented) - set(real))
    assert not_played == [], f"no scenario produces {not_played}"
    wrong = {}
    for name, example in documented.items():
        lines = example.lines
        assert len(lines) == len(real[name]), name
        for documented_line, real_line in zip(lines, real[name], strict=True):
            found = doc_examples.mismatch(documented_line, real_line)
            if found is not None:
                wrong[name] = found
    assert wrong == {}, "examples that differ from the real response (normalised, "
    "documented then real); run python -m tests.games.doc_examples --write:\n" + json.dumps(
        wrong, indent=1
    )
    # The State table names every field of a real state, and no other.
    table, state = state_table_fields(), set(real["state"][0])
    assert (sorted(state - table), sorted(table - state)) == ([], []), (
        "(fields of a real state missing from docs/api.md's State table, fields it lists that a"
        " state does not have)"
    )
