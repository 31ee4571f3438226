"""docs/api.md's game, played by ``DocClient`` (tests/games/doc_client.py, the client
written from the document alone): a whole round with a reconnect and a late joiner, and the
board text, Qu rules, retries and fixed results.
"""

from __future__ import annotations

import pytest

from tests.games.doc_client import DocClient, close_all, non_word_on, words_on

pytestmark = pytest.mark.django_db(transaction=True)


async def test_doc_client_plays_a_round() -> None:
    """Create, join, start an untimed round, play (with a reconnect and a late joiner), end it
    and read the same results over the socket and HTTP."""
    ann, bob, carl = DocClient("Ann"), DocClient("Bob"), DocClient("Carl")
    created = await ann.create_room({"round_seconds": None})
    assert ann.code is not None
    assert created["room"]["host_id"] == ann.player_id == created["room"]["you"]
    assert created["room"]["settings"]["round_seconds"] is None
    await bob.join(ann.code)
    # Joining again with the token is a rejoin: 200 and the same player.
    status, again = await bob.call("POST", f"/api/rooms/{ann.code}/join", {"nickname": "x"})
    assert status == 200 and again["player"]["id"] == bob.player_id
    try:
        assert (await ann.connect())["type"] == "state"
        assert (await bob.connect())["type"] == "state"
        assert bob.state is not None and bob.state["you"] == bob.player_id
        await ann.sync_clock()
        # One clock on both sides: the server read it between the ping and its pong, so
        # the estimate is off by at most half the round trip (plus a millisecond's rounding).
        assert ann.best_rtt_ms is not None
        assert abs(ann.offset_ms) <= ann.best_rtt_ms / 2 + 1

        assert (await bob.request({"type": "start_round"}))["code"] == "not_host"
        for number in range(1, 6):  # one rolled board in a thousand has under 6 words
            ok = await ann.request({"type": "start_round"})
            assert ok == {**ok, "type": "ok", "request": "start_round", "round_number": number}
            started = (await bob.wait_for("round.started"))["round"]
            await ann.wait_for("round.started")
            assert started["status"] == "running" and started["ends_at"] is None  # untimed
            words = words_on(started)
            if len(words) >= 6:
                break
            assert (await ann.request({"type": "end_round"}))["type"] == "ok"
        assert len(words) >= 6, started["board"]

        # Before starts_at, the countdown: words are refused with wrong_round_state. On a
        # slow machine the countdown may be over when this one arrives: then it is judged
        # (the docs' rule either way; a word that cannot count, so the game is unchanged).
        early = await ann.submit("zzzqx")
        if early["type"] == "error":
            assert early["code"] == "wrong_round_state", early
        else:
            assert early["type"] == "verdict" and early["server_time"] >= started["starts_at"]
        await ann.sleep_until(started["starts_at"])

        (shared, shared_pts), (a_word, a_pts), (b_word, b_pts) = words[:3]
        (b_late, b_late_pts), (c_word, c_pts) = words[3:5]
        for word in (shared, a_word):
            verdict = await ann.submit(word)
            assert verdict["verdict"] == "accepted" and verdict["accepted"] is True, verdict
        assert (await ann.submit(a_word))["verdict"] == "already_entered"
        assert (await bob.submit(shared, "b-1"))["accepted"] is True
        non_word = non_word_on(started)  # on the board, in no dictionary
        refused = await bob.submit(non_word.upper())
        assert refused["word"] == non_word and refused["verdict"] == "not_in_dictionary"
        assert refused["reason"] == "not in the dictionary"
        off_board = await bob.submit("Zzzqx")  # letters the board does not have
        assert off_board["word"] == "zzzqx" and off_board["verdict"] == "not_on_board"
        assert off_board["reason"] == "not on the board"

        # Bob's connection drops with b_word sent but unanswered; he reconnects and resends.
        bob.unanswered["b-2"] = b_word
        await bob.send({"type": "submit", "word": b_word, "client_id": "b-2"})
        await bob.disconnect()
        state = await bob.connect()
        assert state["type"] == "state"
        assert "b-1" in {entry["client_id"] for entry in state["state"]["my_words"]}
        resent = await bob.resend_unanswered()
        assert [(v["client_id"], v["verdict"]) for v in resent] == [("b-2", "accepted")]
        assert (await bob.submit(b_word, "b-2"))["verdict"] == "accepted"  # stored, not judged
        assert (await bob.submit(b_late))["accepted"] is True

        # Carl joins mid-round and plays the rest of it.
        await carl.join(ann.code)
        joined = await ann.wait_for("player.joined")
        assert joined["player"] == {
            "id": carl.player_id,
            "nickname": "Carl",
            "online": False,
            "is_host": False,
            "total_points": 0,
            "team": None,
        }
        state = await carl.connect()
        assert state["state"]["round"]["status"] == "running"
        assert (await carl.submit(c_word))["accepted"] is True
        expected = {str(ann.player_id): 2, str(bob.player_id): 3, str(carl.player_id): 1}
        counts = await ann.wait_for("round.counts", counts=expected)
        assert "version" not in counts and isinstance(counts["counted_at"], int)

        assert (await ann.request({"type": "end_round"}))["type"] == "ok"
        # round.ended: the same scores for all, each player's own words; the rest on asking.
        ended = [await c.wait_for("round.ended") for c in (ann, bob, carl)]
        assert ended[0]["scores"] == ended[1]["scores"] == ended[2]["scores"]
        asked = await carl.request({"type": "results", "round_number": number})
        assert (asked["type"], asked["round_number"]) == ("results", number)
        results = asked["results"]
        status, over_http = await carl.call(
            "GET", f"/api/rooms/{ann.code}/rounds/{number}", auth=False
        )
        assert status == 200 and over_http["results"] == results
        lists = ("words", "rejected")
        assert ended[0]["scores"]["players"] == [
            {key: value for key, value in entry.items() if key not in lists}
            for entry in results["players"]
        ]
        assert ended[0]["scores"]["round"] == results["round"]
        for client, event in zip((ann, bob, carl), ended, strict=True):
            row = next(p for p in results["players"] if p["id"] == client.player_id)
            assert event["mine"] == {key: row[key] for key in lists}

        players = {p["nickname"]: p for p in results["players"]}
        assert players["Ann"]["round_points"] == a_pts
        assert players["Bob"]["round_points"] == b_pts + b_late_pts
        assert players["Carl"]["round_points"] == c_pts
        for name in ("Ann", "Bob"):
            mine = {w["word"]: w for w in players[name]["words"]}
            assert mine[shared]["cancelled"] is True and mine[shared]["points"] == 0
        assert {
            "word": non_word,
            "verdict": "not_in_dictionary",
            "reason": "not in the dictionary",
        } in players["Bob"]["rejected"]
        assert {
            "word": "zzzqx",
            "verdict": "not_on_board",
            "reason": "not on the board",
        } in players["Bob"]["rejected"]
        solution = {entry["word"]: entry for entry in results["solution"]}
        assert sorted(solution[shared]["found_by"]) == sorted([ann.player_id, bob.player_id])
        assert solution[shared]["points"] == shared_pts  # what it would have scored alone
        assert results["word_count"] == len(words)
        assert results["max_points"] == sum(points for _, points in words)
        ranked = [p["round_points"] for p in results["players"]]
        assert ranked == sorted(ranked, reverse=True)

        # After the end: a new entry is round_over; the room state holds the results.
        late = await carl.submit(words[5][0])
        assert late["verdict"] == "round_over" and late["accepted"] is False
        status, room = await bob.call("GET", f"/api/rooms/{ann.code}")
        assert status == 200 and room["room"]["results"] == results
        assert room["room"]["you"] == bob.player_id
        totals = {p["id"]: p["total_points"] for p in room["room"]["players"]}
        assert totals[bob.player_id] == b_pts + b_late_pts
    finally:
        await close_all(ann, bob, carl)


async def test_doc_client_qu_rules_retries_and_fixed_results() -> None:
    """The board text and Qu rules, a client_id reused for another word, an oversized
    message still answered with its request_id, the documented answers to repeated
    messages (docs: "Retrying a message"), and an ended round's results staying fixed."""
    ann, bob = DocClient("Ann"), DocClient("Bob")
    await ann.create_room({"round_seconds": None})
    assert ann.code is not None
    await bob.join(ann.code)
    try:
        for client in (ann, bob):
            assert (await client.connect())["type"] == "state"
        # In a run each character is a die: "q" the Qu die, then a U die of its own.
        ok = await ann.request({"type": "set_board", "board": "catsqiuxdogzwent"})
        assert ok["board"] == "cats qiux dogz went"
        # "qu" where letters alone make no board (17 characters): the Qu die.
        ok = await ann.request({"type": "set_board", "board": "CATS QUIUX DOGZ WENT"})
        assert ok["board"] == "cats qiux dogz went"
        assert (await ann.request({"type": "start_round"}))["type"] == "ok"
        again = await ann.request({"type": "start_round"})
        assert (again["type"], again["code"]) == ("error", "wrong_round_state")
        started = (await bob.wait_for("round.started"))["round"]
        assert started["grid"][1] == ["qu", "i", "u", "x"]
        await bob.sleep_until(started["starts_at"])

        quit_ = await bob.submit("quit", "b1")
        assert quit_["verdict"] == "accepted"
        assert (await bob.submit("qit"))["verdict"] == "not_on_board"  # a lone q: no die
        assert (await bob.submit("wego"))["verdict"] == "not_in_dictionary"  # on the board
        reused = await bob.submit("cats", "b1")
        assert (reused["type"], reused["code"]) == ("error", "invalid")
        assert "client_id 'b1' was already used for 'quit'" in reused["message"]
        assert (await bob.submit(" QUIT ", "b1"))["verdict"] == "accepted"  # a resend

        huge = await bob.request({"type": "submit", "word": "x" * 5000})
        assert (huge["type"], huge["code"], huge["request"]) == ("error", "invalid", None)

        assert (await ann.request({"type": "end_round"}))["type"] == "ok"
        again = await ann.request({"type": "end_round"})
        assert (again["type"], again["code"]) == ("error", "wrong_round_state")
        ended_event = await bob.wait_for("round.ended")
        asked = {"type": "results", "round_number": ended_event["scores"]["round"]["number"]}
        ended = (await bob.request(asked))["results"]
        assert {p["nickname"] for p in ended["players"]} == {"Ann", "Bob"}

        # Repeats of done messages, as the retry table says.
        assert (await bob.request({"type": "challenge", "word": "wego", "round_number": 1}))[
            "type"
        ] == "ok"
        again = await bob.request({"type": "challenge", "word": "wego", "round_number": 1})
        assert again["code"] == "invalid" and "already challenged" in again["message"]
        challenge_id = (await ann.wait_for("challenge.opened"))["challenge"]["id"]
        ruled = {"type": "rule_challenge", "challenge_id": challenge_id, "accept": False}
        assert (await ann.request(ruled))["type"] == "ok"
        again = await ann.request(ruled)
        assert again["code"] == "invalid" and "already declined" in again["message"]
        settings = {"type": "update_settings", "settings": {"min_length": 4}}
        assert (await ann.request(settings))["type"] == (await ann.request(settings))["type"]
        refused = await ann.request({"type": "update_settings", "settings": {"min_length": 2}})
        assert refused["code"] == "invalid" and "3 to 8" in refused["message"]
        handover = {"type": "transfer_host", "player_id": bob.player_id}
        assert (await ann.request(handover))["type"] == "ok"
        assert (await ann.request(handover))["code"] == "not_host"

        # A later joiner and later leavers change nothing in round 1's results.
        carl = DocClient("Carl")
        await carl.join(ann.code)
        kick = {"type": "kick", "player_id": carl.player_id}
        assert (await bob.request(kick))["type"] == "ok"
        assert (await bob.request(kick))["code"] == "invalid"
        status, fixed = await bob.call("GET", f"/api/rooms/{ann.code}/rounds/1")
        assert status == 200
        assert fixed["results"]["players"] == ended["players"]
    finally:
        await close_all(ann, bob)
