"""JSON as it goes out on a socket: one encoder for every event and reply.

orjson encodes the large frames (a round's results to every player of a room ending
together) several times faster than the standard library, which holds the GIL while it
works and so delays every other room's verdicts. Its output is compact UTF-8 JSON; dict
keys that are not text (player ids) are written as text, as ``json.dumps`` does.

orjson refuses text that is not valid Unicode (a lone surrogate, which a hostile client
can send as ``"\\ud800"`` and an error reply echoes back): such a value goes through the
standard library, which escapes it, so a reply is never lost to it.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

_OPTIONS = orjson.OPT_NON_STR_KEYS


def encode(value: Any) -> str:
    """``value`` as JSON text."""
    return encode_bytes(value).decode()


def encode_bytes(value: Any) -> bytes:
    """``value`` as JSON, UTF-8 encoded: its length is the frame's size in bytes."""
    try:
        return orjson.dumps(value, option=_OPTIONS)
    except TypeError:  # a lone surrogate, or a value orjson does not know
        return json.dumps(value, separators=(",", ":")).encode()
