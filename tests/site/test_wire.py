"""web.wire: the JSON every socket frame is encoded with."""

from __future__ import annotations

import json

from web import wire


def test_events_encode_as_the_standard_library_reads_them():
    event = {
        "type": "round.ended",
        "version": 3,
        "results": {"players": [{"id": 7, "nickname": "Zoë"}]},
    }
    assert json.loads(wire.encode(event)) == event


def test_keys_that_are_not_text_are_written_as_text():
    assert json.loads(wire.encode({"counts": {12: 3}})) == {"counts": {"12": 3}}


def test_a_lone_surrogate_from_a_hostile_client_is_escaped_not_refused():
    """A client can send "\\ud800" inside a JSON string; an error reply that echoes it
    back must still go out (orjson alone raises on it)."""
    reply = {"type": "error", "request": "\ud800x", "request_id": "\udfff"}
    encoded = wire.encode(reply)
    assert json.loads(encoded) == reply
    assert len(wire.encode_bytes(reply)) == len(encoded.encode())


def test_the_size_in_bytes_counts_utf8_bytes_not_characters():
    assert len(wire.encode_bytes({"word": "été"})) == len('{"word":"été"}'.encode())


def test_text_encoded_already_goes_in_as_it_is():
    """A round's results kept encoded are written into the reply without decoding them,
    also when a lone surrogate in the reply sends it through the standard library."""
    kept = wire.encode({"players": [{"id": 1, "words": ["été"]}]})
    reply = {"type": "results", "results": wire.Encoded(kept), "request_id": "r1"}
    assert json.loads(wire.encode(reply)) == {**reply, "results": json.loads(kept)}
    hostile = {**reply, "request_id": "\ud800"}
    assert json.loads(wire.encode(hostile)) == {**hostile, "results": json.loads(kept)}
