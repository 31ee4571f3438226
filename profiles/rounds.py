"""A profile's rounds as a client sends them (docs/api.md, "Profile"): each one checked and
reduced to the fields the profile keeps, or refused with the reason.

A round's record is the player's own account of it (the profile is theirs, not a
leaderboard): it is checked for shape and bounds, never against the server's games, so an
offline round or one from another server joins the profile as well.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime
from typing import Any

from web.errors import InvalidInput

# Rounds one request may carry, the rounds one account may keep, and the body that carries
# a full batch (some 200 bytes a round).
MAX_ROUNDS_PER_REQUEST = 500
MAX_ROUNDS_PER_ACCOUNT = 20_000
MAX_BODY_BYTES = 256 * 1024

# A record's id: the client's own, unique per round (room code, game, round, end time).
ID_PATTERN = re.compile(r"[A-Za-z0-9:/._-]{1,80}")
ROOM_PATTERN = re.compile(r"[A-Za-z0-9-]{1,16}")
# A word as the results give it: letters of any of the site's languages, lower case.
WORD_PATTERN = re.compile(r"[^\W\d_]{1,40}")
SIZES = range(3, 9)
# Rounds from before the site existed, or more than a day ahead of the server's clock.
EARLIEST = datetime(2020, 1, 1, tzinfo=UTC)


def _integer(record: dict, key: str, low: int, high: int) -> int:
    value = record.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidInput(f"{key}: a whole number from {low} to {high}")
    return value


def _word(value: Any, key: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not WORD_PATTERN.fullmatch(value):
        raise InvalidInput(f"{key}: a word of 1 to 40 letters, or null")
    return value.lower()


def _text(record: dict, key: str, pattern: re.Pattern[str]) -> str:
    value = record.get(key)
    if not isinstance(value, str) or not pattern.fullmatch(value):
        raise InvalidInput(f"{key}: missing or malformed")
    return value


def clean_round(record: Any, now: datetime) -> dict[str, Any]:
    """The fields of one round's record the profile keeps, checked; InvalidInput says which
    field is wrong."""
    if not isinstance(record, dict):
        raise InvalidInput("each round is a JSON object")
    ended_ms = _integer(record, "at", int(EARLIEST.timestamp() * 1000), 2**53)
    if ended_ms > (now.timestamp() + 86_400) * 1000:
        raise InvalidInput("at: in the future")
    best = record.get("best")
    if best is not None:
        if not isinstance(best, dict):
            raise InvalidInput("best: {word, points} or null")
        best = {
            "word": _word(best.get("word"), "best.word"),
            "points": _integer(best, "points", 0, 10_000),
        }
        if best["word"] is None:
            raise InvalidInput("best.word: a word")
    daily = record.get("daily")
    if daily is not None:
        try:
            daily = date.fromisoformat(daily).isoformat() if isinstance(daily, str) else None
        except ValueError:
            daily = None
        if daily is None:
            raise InvalidInput("daily: a date (YYYY-MM-DD) or null")
    offline = record.get("offline", False)
    if not isinstance(offline, bool):
        raise InvalidInput("offline: true or false")
    return {
        "id": _text(record, "id", ID_PATTERN),
        "at": ended_ms,
        "room": _text(record, "room", ROOM_PATTERN),
        "game": _integer(record, "game", 1, 1_000_000),
        "size": _integer(record, "size", SIZES.start, SIZES.stop - 1),
        "score": _integer(record, "score", 0, 1_000_000),
        "words": _integer(record, "words", 0, 100_000),
        "found": _integer(record, "found", 0, 100_000),
        "players": _integer(record, "players", 1, 10_000),
        "best": best,
        "longest": _word(record.get("longest"), "longest"),
        "daily": daily,
        "offline": offline,
    }


def clean_rounds(data: dict[str, Any], now: datetime) -> list[dict[str, Any]]:
    """The ``rounds`` of a request body, each cleaned (``clean_round``), the last of equal
    ids kept; InvalidInput names the first bad one."""
    rounds = data.get("rounds")
    if not isinstance(rounds, list):
        raise InvalidInput("rounds: a list of rounds")
    if len(rounds) > MAX_ROUNDS_PER_REQUEST:
        raise InvalidInput(f"at most {MAX_ROUNDS_PER_REQUEST} rounds per request")
    cleaned: dict[str, dict[str, Any]] = {}
    for index, record in enumerate(rounds):
        try:
            round_ = clean_round(record, now)
        except InvalidInput as error:
            raise InvalidInput(f"rounds[{index}]: {error.message}") from None
        cleaned[round_["id"]] = round_
    return list(cleaned.values())
