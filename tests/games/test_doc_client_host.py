"""docs/api.md's host tools, played by ``DocClient`` (tests/games/doc_client.py):
settings, a set board, hidden verdicts, a version gap healed by sync, host transfer, kick
and leave, with the document's close codes.
"""

from __future__ import annotations

import pytest

from tests.games.doc_client import RICH_BOARD, Closed, DocClient, close_all, words_on

pytestmark = pytest.mark.django_db(transaction=True)


async def test_doc_client_host_tools_hidden_verdicts_and_sync() -> None:
    """Settings, a set board, hidden verdicts, a version gap healed by sync, host transfer,
    kick and leave, with the close codes the document gives."""
    ann, bob, carl = DocClient("Ann"), DocClient("Bob"), DocClient("Carl")
    await ann.create_room()
    assert ann.code is not None
    await bob.join(ann.code)
    await carl.join(ann.code)
    try:
        for client in (ann, bob, carl):
            assert (await client.connect())["type"] == "state"
        bad = await ann.request({"type": "update_settings", "settings": {"round_seconds": 5}})
        assert (
            bad["type"] == "error"
            and bad["code"] == "invalid"
            and bad["request"] == "update_settings"
        )
        ok = await ann.request(
            {
                "type": "update_settings",
                "settings": {"round_seconds": None, "instant_verdicts": False},
            }
        )
        assert ok["settings"]["instant_verdicts"] is False
        ok = await ann.request({"type": "set_board", "board": "AEOLIEJMPDLSORKF"})
        assert ok["board"] == RICH_BOARD
        changed = await bob.wait_for("settings.changed")
        while changed["settings"]["next_board"] != RICH_BOARD:  # the earlier change first
            changed = await bob.wait_for("settings.changed")

        await ann.request({"type": "start_round"})
        started = (await bob.wait_for("round.started"))["round"]
        assert started["board"] == RICH_BOARD and started["instant_verdicts"] is False
        wrong = await ann.request({"type": "update_settings", "settings": {"min_length": 4}})
        assert wrong["code"] == "wrong_round_state"
        await bob.sleep_until(started["starts_at"])
        words = words_on(started)

        hidden = await bob.submit(words[0][0], "x1")
        assert (hidden["verdict"], hidden["accepted"], hidden["reason"]) == ("received", None, None)
        assert (await bob.submit("hello", "x2"))["verdict"] == "received"

        # Live counts (every entry counts while verdicts are hidden) carry no version.
        counts = {str(bob.player_id): 2, str(carl.player_id): 1}
        assert (await carl.submit(words[1][0]))["verdict"] == "received"
        assert "version" not in await carl.wait_for("round.counts", counts=counts)
        assert (await carl.submit(words[2][0]))["verdict"] == "received"

        # Bob loses one event; the next one shows a gap, his client syncs.
        bob.drop_next_event = True
        for host, to in ((ann, carl), (carl, ann)):
            moved = await host.request({"type": "transfer_host", "player_id": to.player_id})
            assert moved["type"] == "ok"
        state = (await bob.wait_for("state"))["state"]
        assert bob.version == state["version"]
        assert (await bob.request({"type": "sync"}))["state"]["version"] == state["version"]
        assert state["my_words"] == [
            {"word": words[0][0], "client_id": "x1", "verdict": "received"},
            {"word": "hello", "client_id": "x2", "verdict": "received"},
        ]
        assert state["counts"][str(carl.player_id)] == 2

        # Hosting passes to Bob; Ann can no longer end the round, Bob can.
        assert (await ann.request({"type": "transfer_host", "player_id": bob.player_id}))[
            "type"
        ] == "ok"
        await carl.wait_for("host.changed", host_id=bob.player_id)
        assert (await ann.request({"type": "end_round"}))["code"] == "not_host"
        assert (await bob.request({"type": "end_round"}))["type"] == "ok"
        number = (await carl.wait_for("round.ended"))["scores"]["round"]["number"]
        results = (await carl.request({"type": "results", "round_number": number}))["results"]
        bob_row = next(p for p in results["players"] if p["id"] == bob.player_id)
        assert [w["word"] for w in bob_row["words"]] == [words[0][0]]
        assert bob_row["rejected"] == [
            {"word": "hello", "verdict": "not_on_board", "reason": "not on the board"}
        ]
        status, room = await bob.call("GET", f"/api/rooms/{ann.code}")
        assert room["room"]["my_words"][0]["verdict"] == "accepted"  # told after the end

        # Bob kicks Carl: Carl hears it and is closed with 4001, his token stops working.
        assert (await bob.request({"type": "kick", "player_id": carl.player_id}))["type"] == "ok"
        assert (await carl.wait_for("kicked"))["message"]
        with pytest.raises(Closed) as closed:
            await carl.receive()
        assert closed.value.code == 4001
        left = await ann.wait_for("player.left")
        assert left["player_id"] == carl.player_id and left["kicked"] is True
        first = await carl.connect()
        assert first["type"] == "error" and first["code"] == "not_a_player"
        with pytest.raises(Closed) as closed:
            await carl.receive()
        assert closed.value.code == 4403
        status, error = await carl.call("GET", f"/api/rooms/{ann.code}")
        assert status == 403 and error["error"]["code"] == "not_a_player"

        # Ann leaves: ok, then a normal close.
        answer = await ann.request({"type": "leave"})
        assert answer["type"] == "ok" and answer["request"] == "leave"
        with pytest.raises(Closed) as closed:
            await ann.receive()
        assert closed.value.code in (None, 1000)
        await bob.wait_for("player.left", player_id=ann.player_id)
    finally:
        await close_all(ann, bob, carl)
