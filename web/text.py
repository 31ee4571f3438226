"""The one check every piece of text from a client passes at the edge, before it is
stored, looked up or logged (docs/api.md, "Text from clients"): words, ``client_id``s,
nicknames, room codes, tokens, query-string values, challenged words.

Text is refused, never repaired. What is refused, and why:

- lone surrogates (``"\\ud800"`` in JSON, or bytes that are not UTF-8): not Unicode text;
  no database stores them, and one in a batched INSERT fails the whole batch;
- NUL and the other control characters (Cc): PostgreSQL refuses NUL in text, and the
  others garble logs and pages;
- format characters (Cf): invisible, and the bidirectional ones reorder what is shown
  around them; a field may allow a few (nicknames: the joiners of emoji and of Persian
  or Indic spelling);
- anything longer than the field's bound.

Pure functions, no Django import but the error class.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from web.errors import InvalidInput

# Categories refused in any text: controls (NUL included), lone surrogates, format chars.
REFUSED_CATEGORIES = frozenset({"Cc", "Cs", "Cf"})
# Format characters a nickname may hold: ZERO WIDTH JOINER (emoji sequences such as
# "🏳️‍🌈") and ZERO WIDTH NON-JOINER (Persian, Indic spelling). Nickname keys ignore them.
JOINERS = frozenset("\u200c\u200d")
# Room codes as the routes take them (games.routing, games.models.ROOM_CODE_ALPHABET);
# longer ones are no room's (Room.code holds 16).
ROOM_CODE = re.compile(r"[a-z0-9]{1,16}")
# Player tokens (games.models.new_player_token) fit Player.token's 64 characters.
MAX_TOKEN_CHARS = 64


def text_problem(value: str, max_length: int, allowed: frozenset[str] = frozenset()) -> str | None:
    """Why ``value`` cannot be taken ("too long", "control", "not text"), or None."""
    if len(value) > max_length:
        return "too long"
    if value.isascii():  # the usual case: only controls to look for
        return "control" if any(ch < " " or ch == "\x7f" for ch in value) else None
    for ch in value:
        category = unicodedata.category(ch)
        if category == "Cs":
            return "not text"
        if category in REFUSED_CATEGORIES and ch not in allowed:
            return "control"
    return None


def is_clean(value: Any, max_length: int, allowed: frozenset[str] = frozenset()) -> bool:
    """Whether ``value`` is text that passes ``text_problem``."""
    return isinstance(value, str) and text_problem(value, max_length, allowed) is None


def check_text(
    value: Any, name: str, max_length: int, allowed: frozenset[str] = frozenset()
) -> str:
    """``value`` if it is clean text of at most ``max_length`` characters, else
    InvalidInput (code ``invalid``) naming the field ``name`` and what is wrong."""
    if not isinstance(value, str):
        raise InvalidInput(f"{name} is text")
    problem = text_problem(value, max_length, allowed)
    if problem == "too long":
        raise InvalidInput(f"{name} is text of at most {max_length} characters")
    if problem is not None:
        raise InvalidInput(f"{name} must be Unicode text without control or invisible characters")
    return value


def looks_like_room_code(code: Any) -> bool:
    """Whether ``code`` (trimmed, any case) could be a room's: anything else is no room."""
    return isinstance(code, str) and ROOM_CODE.fullmatch(code.strip().lower()) is not None


def looks_like_token(token: Any) -> bool:
    """Whether ``token`` could be a player's: anything else is no player's."""
    return is_clean(token, MAX_TOKEN_CHARS) and bool(token)
