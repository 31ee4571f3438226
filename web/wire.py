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


class Encoded:
    """A value that is JSON text already (a round's results, kept encoded for every socket
    that asks): ``encode`` writes it into the frame as it is, without decoding it."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def encode(value: Any) -> str:
    """``value`` as JSON text."""
    return encode_bytes(value).decode()


def encode_bytes(value: Any) -> bytes:
    """``value`` as JSON, UTF-8 encoded: its length is the frame's size in bytes."""
    try:
        return orjson.dumps(value, default=_as_fragment, option=_OPTIONS)
    except TypeError:  # a lone surrogate, or a value orjson does not know
        return json.dumps(value, separators=(",", ":"), default=_as_value).encode()


def _as_fragment(value: Any) -> Any:
    if isinstance(value, Encoded):
        return orjson.Fragment(value.text)
    raise TypeError(f"{type(value).__name__} is not JSON")


def _as_value(value: Any) -> Any:
    if isinstance(value, Encoded):
        return json.loads(value.text)
    raise TypeError(f"{type(value).__name__} is not JSON")
