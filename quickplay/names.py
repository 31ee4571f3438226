"""Public nicknames: what strangers see must pass a maintained profanity list
(glin-profanity's English, Dutch and French words, leetspeak and look-alike letters too).

A nickname is checked whole and as its words (``BigShit`` and ``klootzak99`` hide theirs),
never by substrings: "Cassandra" and "Titus" are names. A few names its lists flag are let
through (``NAMES``).
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

LANGUAGES = ["english", "dutch", "french"]
# Names people go by that the lists count as words.
NAMES = ["griet", "dick"]


@cache
def _filter() -> Any:
    from glin_profanity import Filter  # type: ignore[import-untyped]  # no py.typed

    return Filter(
        {
            "languages": LANGUAGES,
            "detect_leetspeak": True,
            "normalize_unicode": True,
            "ignore_words": NAMES,
        }
    )


def _words(nickname: str) -> str:
    spaced = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", nickname)  # camelCase
    return re.sub(r"[\W\d_]+", " ", spaced).strip()


def is_offensive(nickname: str) -> bool:
    profanity = _filter()
    return bool(profanity.is_profane(nickname) or profanity.is_profane(_words(nickname)))
