"""Chess-clock rounds (games.chess, games.chess_turns, docs/api.md "Chess clock") over real
websockets: turns in a drawn order, only the player whose turn it is may play, a word
nobody played passes the turn, refused and repeated words keep the clock running, flags
fall on the server's say with no message arriving, the last one left wins, a disconnected
player's clock runs, the host skips a player who is away.

No test waits for a clock: the running clock's start is moved back in the database so that
its flag fell a moment ago (``run_out``), and the deadline watcher lets it fall.
"""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import replace
from datetime import UTC, datetime

import pytest
from asgiref.sync import sync_to_async
from django.db import transaction
from django.test import Client
from django.utils import timezone

from games import events, rounds, tasks, words
from games.chess import ChessGame
from games.models import Round
from tests.games.ws_helpers import (
    PATIENCE,
    Player,
    ask,
    collect,
    connect,
    create_room,
    join_room,
    receive,
    receive_until,
    seconds_from_now,
    send,
    set_round_times,
    start_round,
    submit,
    two_players,
    whole_results,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_sockets")]


async def chess_room(*nicknames: str, seconds: int = 60):
    """A room in chess mode: Ann (host) and the other nicknames, all connected."""
    ann = await create_room(settings={"mode": "chess", "chess_seconds": seconds})
    players = [ann]
    for nickname in nicknames:
        players.append(await join_room(ann.code, nickname))
    for player in players:
        await connect(player)
    return players


async def start_chess(*players) -> tuple[Round, dict]:
    """Start a round (the test board) and end its countdown now; returns the round and the
    ``chess`` of the ``chess.turn`` that started the clock (seen by every player)."""
    round_ = await start_round(players[0], *players[1:])
    await set_round_times(round_, ends_at=timezone.now())  # the watcher starts the clock
    started = [await receive_until(p.comm, "chess.turn", reason="start") for p in players]
    assert all(event["chess"] == started[0]["chess"] for event in started)
    return round_, started[0]["chess"]


async def play(player: Player, word: str) -> dict:
    """Submit a word and return its verdict, and when it counted, read the ``chess.turn``
    it caused off the player's own socket too. Room events caused by a message may arrive
    before or after its answer (docs/api.md): ``submit`` drops what comes before its
    answer, so waiting for the event after it could wait for one already dropped."""
    assert player.comm is not None
    request_id = f"play-{uuid.uuid4().hex}"
    await send(player.comm, "submit", request_id=request_id, word=word)
    loop = asyncio.get_running_loop()
    end = loop.time() + PATIENCE
    verdict: dict | None = None
    played = False
    while verdict is None or (verdict.get("accepted") and not played):
        message = await receive(player.comm, timeout=max(end - loop.time(), 0.01))
        if message.get("request_id") == request_id:
            verdict = message
        elif message["type"] == "chess.turn" and (
            message["reason"],
            message["player_id"],
            message["word"],
        ) == ("played", player.id, word):
            played = True
    assert verdict is not None  # the loop ends only once it came
    return verdict


def by_id(players) -> dict:
    return {player.id: player for player in players}


async def stored_game(round_: Round) -> ChessGame:
    fresh = await sync_to_async(Round.objects.get)(pk=round_.pk)
    game = ChessGame.of(fresh)
    assert game is not None
    return game


@sync_to_async
def run_out(round_id: int, deadline_too: bool = True) -> int:
    """Move the running clock's start back so that its flag fell a second ago; with
    ``deadline_too`` the round's deadline with it, as the server keeps it (so the watcher
    lets it fall). Returns when it fell (ms)."""
    with transaction.atomic():
        round_ = Round.objects.select_for_update().get(pk=round_id)
        game = ChessGame.of(round_)
        assert game is not None and game.clock is not None
        clock, player = game.clock, game.clock.current
        assert player is not None
        fell = events.server_now_ms() - 1000
        left = clock.left(player, clock.turn_started_ms)
        clock = replace(clock, turn_started_ms=fell - left)
        round_.chess = replace(game, clock=clock).to_dict()
        fields = ["chess"]
        if deadline_too:
            round_.ends_at = datetime.fromtimestamp(fell / 1000, tz=UTC)
            fields.append("ends_at")
        round_.save(update_fields=fields)
    return fell


async def test_a_chess_round_is_untimed_and_its_clock_starts_with_a_drawn_order():
    ann, bob, cy = await chess_room("Bob", "Cy", seconds=45)
    round_ = await start_round(ann, bob, cy)
    started = (await ask(bob.comm, "sync"))["state"]["round"]
    assert (started["mode"], started["round_seconds"], started["ends_at"]) == ("chess", None, None)
    assert started["cancel_duplicates"] is False and started["instant_verdicts"] is True
    # Until the countdown is over: each player's time, no order yet.
    assert started["chess"] == {
        "seconds": 45,
        "players": [],
        "turn": None,
        "turn_started_at": None,
        "flag_at": None,
        "out": [],
        "winner": None,
        "played": [],
    }
    await set_round_times(round_, ends_at=timezone.now())
    event = await receive_until(cy.comm, "chess.turn")
    assert (event["reason"], event["player_id"], event["word"]) == ("start", None, None)
    chess = event["chess"]
    order = [entry["id"] for entry in chess["players"]]
    assert sorted(order) == sorted([ann.id, bob.id, cy.id])
    assert all(entry["left_ms"] == 45_000 and not entry["out"] for entry in chess["players"])
    assert chess["turn"] == order[0]
    assert chess["flag_at"] == chess["turn_started_at"] + 45_000
    # The state shows the same clock to a page that reconnects.
    assert (await ask(ann.comm, "sync"))["state"]["round"]["chess"] == chess


async def test_turns_pass_in_the_drawn_order_and_only_the_turn_player_plays():
    players = await chess_room("Bob", "Cy")
    round_, chess = await start_chess(*players)
    order = [by_id(players)[entry["id"]] for entry in chess["players"]]
    first, second, third = order
    # Out of turn: refused, and no clock moves.
    before = (await stored_game(round_)).clock
    reply = await submit(second.comm, "cats")
    assert (reply["verdict"], reply["accepted"]) == ("not_your_turn", False)
    assert reply["reason"] == "not your turn"
    assert (await stored_game(round_)).clock == before
    assert not [m for m in await collect(second.comm) if m["type"] == "chess.turn"]
    # The turn player's word counts: their clock stops, the next player's runs.
    assert (await submit(first.comm, "cats"))["verdict"] == "accepted"
    passed = await receive_until(third.comm, "chess.turn", reason="played")
    assert (passed["player_id"], passed["word"]) == (first.id, "cats")
    assert passed["chess"]["turn"] == second.id
    assert passed["chess"]["played"] == [{"player_id": first.id, "word": "cats"}]
    assert (await submit(second.comm, "dog"))["verdict"] == "accepted"
    passed = await receive_until(first.comm, "chess.turn", reason="played", player_id=second.id)
    assert passed["chess"]["turn"] == third.id
    assert (await submit(third.comm, "went"))["verdict"] == "accepted"
    back = await receive_until(first.comm, "chess.turn", reason="played", player_id=third.id)
    assert back["chess"]["turn"] == first.id  # round the order again
    # Stored like every refused entry: the player's words list it.
    state = (await ask(second.comm, "sync"))["state"]
    assert [(w["word"], w["verdict"]) for w in state["my_words"]] == [
        ("cats", "not_your_turn"),
        ("dog", "accepted"),
    ]


async def test_a_refused_or_repeated_word_keeps_the_clock_running():
    players = await chess_room("Bob")
    round_, chess = await start_chess(*players)
    first, second = (by_id(players)[entry["id"]] for entry in chess["players"])
    assert (await play(first, "cats"))["verdict"] == "accepted"
    await receive_until(second.comm, "chess.turn", reason="played")
    running = (await stored_game(round_)).clock
    for word, verdict in (
        ("zebra", "not_on_board"),
        ("dogz", "not_in_dictionary"),
        ("ca", "too_short"),
        ("cats", "already_played"),  # the other player's word
    ):
        reply = await submit(second.comm, word)
        assert (reply["verdict"], reply["accepted"]) == (verdict, False), reply
    assert (await submit(second.comm, "cats"))["reason"] == "someone played that word"
    assert (await stored_game(round_)).clock == running
    assert not [m for m in await collect(first.comm) if m["type"] == "chess.turn"]
    assert (await submit(second.comm, "dog"))["verdict"] == "accepted"
    await receive_until(first.comm, "chess.turn", reason="played", player_id=second.id)
    # One's own word again is a word someone played, too.
    assert (await submit(first.comm, "cats"))["verdict"] == "already_played"
    assert (await stored_game(round_)).clock.current == first.id


async def test_a_flag_falls_with_no_message_and_the_last_one_left_wins():
    players = await chess_room("Bob", "Cy")
    round_, chess = await start_chess(*players)
    first, second, third = (by_id(players)[entry["id"]] for entry in chess["players"])
    assert (await play(first, "went"))["verdict"] == "accepted"  # 1 point
    # The second player's clock runs out: nobody sends anything, the server puts them out.
    fell = await run_out(round_.id)
    flagged = await receive_until(third.comm, "chess.turn", reason="flag")
    assert flagged["player_id"] == second.id
    chess = flagged["chess"]
    assert chess["out"] == [second.id] and chess["turn"] == third.id
    assert chess["turn_started_at"] == fell  # the next clock runs from the moment it fell
    assert [entry["out"] for entry in chess["players"]] == [False, True, False]
    assert next(e for e in chess["players"] if e["id"] == second.id)["left_ms"] == 0
    reply = await submit(second.comm, "dog")
    assert reply["verdict"] == "not_your_turn"  # out: never their turn again
    assert (await submit(third.comm, "quiet"))["verdict"] == "accepted"  # 2 points
    passed = await receive_until(first.comm, "chess.turn", reason="played", player_id=third.id)
    assert passed["chess"]["turn"] == first.id  # the player out is passed over
    # The first player runs out too: the third is the last one left, and wins.
    await run_out(round_.id)
    last = await receive_until(second.comm, "chess.turn", reason="flag", player_id=first.id)
    assert (last["chess"]["winner"], last["chess"]["turn"]) == (third.id, None)
    assert last["chess"]["out"] == [second.id, first.id]
    ended = await receive_until(second.comm, "round.ended")
    results = await whole_results(second.comm, ended, second.id)
    # The winner first, then who went out last.
    assert [p["id"] for p in results["players"]] == [third.id, first.id, second.id]
    assert results["round"]["chess"]["winner"] == third.id
    assert [(p["id"], p["round_points"]) for p in results["players"]] == [
        (third.id, 2),
        (first.id, 1),
        (second.id, 0),
    ]


async def test_with_two_players_the_first_to_zero_loses_whatever_the_points():
    players = await chess_room("Bob")
    round_, chess = await start_chess(*players)
    first, second = (by_id(players)[entry["id"]] for entry in chess["players"])
    assert (await submit(first.comm, "quiet"))["verdict"] == "accepted"
    await receive_until(second.comm, "chess.turn", reason="played")
    assert (await play(second, "went"))["verdict"] == "accepted"
    await run_out(round_.id)  # the first player's clock: more points, but out
    flagged = await receive_until(second.comm, "chess.turn", reason="flag")
    assert (flagged["player_id"], flagged["chess"]["winner"]) == (first.id, second.id)
    ended = await receive_until(first.comm, "round.ended")
    ranked = ended["scores"]["players"]
    assert [(p["id"], p["round_points"]) for p in ranked] == [(second.id, 1), (first.id, 2)]
    assert ended["scores"]["round"]["status"] == "ended"
    stored = await sync_to_async(Round.objects.get)(pk=round_.pk)
    assert stored.status == Round.Status.ENDED
    # The room's history names the winner on the clock too, not the one with more points.
    history = await sync_to_async(Client().get)(f"/api/rooms/{first.code}/rounds")
    assert [w["id"] for w in history.json()["rounds"][0]["winners"]] == [second.id]


async def test_a_disconnected_players_clock_runs_and_their_flag_falls():
    players = await chess_room("Bob", "Cy")
    round_, chess = await start_chess(*players)
    first, second, third = (by_id(players)[entry["id"]] for entry in chess["players"])
    await second.comm.disconnect()
    await receive_until(first.comm, "player.online", player_id=second.id, online=False)
    assert (await submit(first.comm, "cats"))["verdict"] == "accepted"
    passed = await receive_until(third.comm, "chess.turn", reason="played")
    # Away, and it is their turn: their clock runs all the same.
    assert passed["chess"]["turn"] == second.id and passed["chess"]["flag_at"] is not None
    await run_out(round_.id)
    flagged = await receive_until(third.comm, "chess.turn", reason="flag")
    assert flagged["player_id"] == second.id
    assert flagged["chess"]["turn"] == third.id


async def test_the_host_skips_a_player_who_is_away_but_nobody_else():
    ann, bob, cy = await chess_room("Bob", "Cy")
    round_, chess = await start_chess(ann, bob, cy)
    # Only the host, and only a player who is offline or has left.
    reply = await ask(cy.comm, "skip_player", player_id=bob.id)
    assert (reply["type"], reply["code"]) == ("error", "not_host"), reply
    reply = await ask(ann.comm, "skip_player", player_id=bob.id)
    assert (reply["type"], reply["code"]) == ("error", "invalid"), reply
    assert "offline" in reply["message"]
    for bad in ("x", None, 10**9):
        reply = await ask(ann.comm, "skip_player", player_id=bad)
        assert (reply["type"], reply["code"]) == ("error", "invalid"), reply
    assert not [m for m in await collect(cy.comm) if m["type"] == "chess.turn"]
    await bob.comm.disconnect()
    await receive_until(ann.comm, "player.online", player_id=bob.id, online=False)
    before = (await stored_game(round_)).clock
    reply = await ask(ann.comm, "skip_player", player_id=bob.id)
    assert reply == {**reply, "type": "ok", "request": "skip_player"}
    skipped = await receive_until(cy.comm, "chess.turn", reason="skip")
    assert skipped["player_id"] == bob.id and skipped["chess"]["out"] == [bob.id]
    order = [entry["id"] for entry in chess["players"]]
    if before.current == bob.id:  # their turn: the next player's clock starts now
        assert skipped["chess"]["turn"] == order[(order.index(bob.id) + 1) % 3]
    else:  # someone else's turn: it goes on
        assert skipped["chess"]["turn"] == before.current
    # Skipped once: a second time is refused.
    reply = await ask(ann.comm, "skip_player", player_id=bob.id)
    assert reply["code"] == "invalid"


async def test_skipping_down_to_one_player_ends_the_round_with_a_winner():
    ann, bob = await chess_room("Bob")
    await start_chess(ann, bob)
    await bob.comm.disconnect()
    await receive_until(ann.comm, "player.online", player_id=bob.id, online=False)
    assert (await ask(ann.comm, "skip_player", player_id=bob.id))["type"] == "ok"
    skipped = await receive_until(ann.comm, "chess.turn", reason="skip")
    assert skipped["chess"]["winner"] == ann.id
    ended = await receive_until(ann.comm, "round.ended")
    assert ended["scores"]["players"][0]["id"] == ann.id


async def test_a_word_that_reached_the_server_before_the_flag_fell_counts():
    ann, bob = await chess_room("Bob")
    round_, chess = await start_chess(ann, bob)
    first, second = (by_id([ann, bob])[entry["id"]] for entry in chess["players"])
    # Long after the countdown (the clocks below are moved back a minute).
    await set_round_times(round_, starts_at=seconds_from_now(-600))
    # The flag fell a second ago, and no ender has got to it yet (its deadline stays).
    fell = await run_out(round_.id, deadline_too=False)
    result = await words.submit(round_.room_id, first.id, "cats", "late-1", (fell - 50) / 1000)
    assert result.verdict == "accepted"
    passed = await receive_until(second.comm, "chess.turn", reason="played")
    assert passed["chess"]["turn"] == second.id
    assert passed["chess"]["turn_started_at"] == fell - 50  # played when it came
    first_left = next(e for e in passed["chess"]["players"] if e["id"] == first.id)["left_ms"]
    assert first_left == 50
    # The same from the second player, after their flag fell: too late, and out.
    fell = await run_out(round_.id, deadline_too=False)
    result = await words.submit(round_.room_id, second.id, "dog", "late-2", (fell + 50) / 1000)
    assert result.verdict == "not_your_turn"
    flagged = await receive_until(first.comm, "chess.turn", reason="flag")
    assert (flagged["player_id"], flagged["chess"]["winner"]) == (second.id, first.id)
    await receive_until(first.comm, "round.ended")


async def test_a_flag_falls_once_however_many_enders_try():
    players = await chess_room("Bob", "Cy")
    round_, chess = await start_chess(*players)
    await run_out(round_.id)
    for _ in range(2):
        await sync_to_async(rounds.end_overdue_rounds)()
        await sync_to_async(tasks.end_round)(round_.id)
        await sync_to_async(rounds.do_end_round)(round_.id, deadline=True)
    seen = [m for m in await collect(players[1].comm, quiet=0.6) if m["type"] == "chess.turn"]
    assert [(m["reason"], m["player_id"]) for m in seen] == [("flag", chess["turn"])]
    game = await stored_game(round_)
    assert game.clock is not None and game.clock.out == (chess["turn"],)
    stored = await sync_to_async(Round.objects.get)(pk=round_.pk)
    assert stored.status == Round.Status.RUNNING  # two players left: it goes on
    assert stored.ends_at == datetime.fromtimestamp(game.clock.flag_falls_at() / 1000, tz=UTC)


async def test_the_host_can_still_end_a_chess_round_at_once():
    ann, bob = await chess_room("Bob")
    await start_chess(ann, bob)
    assert (await ask(ann.comm, "end_round"))["type"] == "ok"
    ended = await receive_until(bob.comm, "round.ended")
    stopped = ended["scores"]["round"]["chess"]
    assert (stopped["turn"], stopped["flag_at"], stopped["winner"]) == (None, None, None)


async def test_a_chess_round_needs_two_players_and_a_latecomer_watches():
    (ann,) = await chess_room()
    await ask(ann.comm, "set_board", board="cats qiex dogz went")
    reply = await ask(ann.comm, "start_round")
    assert (reply["type"], reply["code"]) == ("error", "not_enough_players"), reply
    assert "two players" in reply["message"]
    assert await sync_to_async(Round.objects.filter(room__code=ann.code).count)() == 0
    bob = await join_room(ann.code, "Bob")
    await connect(bob)
    round_, _ = await start_chess(ann, bob)
    dan = await join_room(ann.code, "Dan")
    await connect(dan)
    reply = await submit(dan.comm, "quit")
    assert reply["verdict"] == "not_your_turn"
    assert dan.id not in [entry["id"] for entry in (await stored_game(round_)).as_dict()["players"]]


@pytest.mark.parametrize("seconds", [19, 301, 60.5, "60", True, None])
async def test_chess_seconds_out_of_range_are_refused(seconds):
    ann, _ = await two_players()
    reply = await ask(ann.comm, "update_settings", settings={"chess_seconds": seconds})
    assert (reply["type"], reply["code"]) == ("error", "invalid"), reply
    assert "chess_seconds" in reply["message"]
    reply = await ask(ann.comm, "update_settings", settings={"mode": "chess", "chess_seconds": 20})
    assert (reply["settings"]["mode"], reply["settings"]["chess_seconds"]) == ("chess", 20)


async def test_the_clock_starts_when_an_entry_comes_before_the_enders():
    """The first word after the countdown may reach the server before any ender started
    the clock: it starts it, as the watcher would have."""
    ann, bob = await chess_room("Bob")
    round_ = await start_round(ann, bob)
    await set_round_times(round_, ends_at=seconds_from_now(60))  # no ender looks for now
    reply = await submit(ann.comm, "cats")
    started = await receive_until(bob.comm, "chess.turn", reason="start")
    first = started["chess"]["turn"]
    assert reply["verdict"] == ("accepted" if first == ann.id else "not_your_turn")
    assert (await stored_game(round_)).clock is not None
