"""Theme lists (``ThemeList``): checking an upload, which lists a room may choose, and a
list's words in a dictionary's form, loaded once per process and list version.

A list is stored as staff wrote it, one word per line; each word is put in the form of the
dictionary a round plays with (``solver.wordrules.normalise_word``: lower-case, accents
folded where the dictionary folds them) when a round uses it, so one list serves every
dictionary of its language.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from datetime import datetime
from typing import Any

from dictionaries.exceptions import UnusableWordList
from dictionaries.models import ThemeList
from solver.wordrules import WordRules, normalise_word

# An uploaded or pasted list may be this large (bytes as UTF-8) and hold this many words.
MAX_THEME_LIST_BYTES = 5 * 2**20
MAX_THEME_LIST_WORDS = 200_000
# Longer lines are no word any board spells (solver.judge.MAX_ENTRY_LENGTH).
MAX_THEME_WORD_CHARS = 72
# Lists kept in a dictionary's form per process (the ones rounds play with now).
MAX_LOADED = 8

_loaded: OrderedDict[tuple[int, datetime, tuple[Any, ...]], frozenset[str]] = OrderedDict()
_lock = threading.Lock()


def check_theme_words(data: bytes | str) -> str:
    """A theme list's text from an upload (bytes: UTF-8) or the admin's text box: one word
    per line, trimmed, blank lines dropped. UnusableWordList says what is wrong (a file
    that is not UTF-8 text, too large, too many words, none at all)."""
    size = len(data) if isinstance(data, bytes) else len(data.encode("utf-8", "surrogatepass"))
    if size > MAX_THEME_LIST_BYTES:
        raise UnusableWordList(
            f"the list is larger than {MAX_THEME_LIST_BYTES // 2**20} MiB: split it, or keep"
            " only the words a board can spell"
        )
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as error:
            raise UnusableWordList(
                f"the file is not UTF-8 text (byte {error.start + 1} cannot be read):"
                " save it as UTF-8 plain text, one word per line"
            ) from None
    else:
        text = data
    words = [line.strip() for line in text.splitlines()]
    words = [word for word in words if word]
    for number, word in enumerate(words, start=1):
        if not word.isprintable() or len(word) > MAX_THEME_WORD_CHARS:
            raise UnusableWordList(
                f"word {number} ({word[:20]!r}) is not a word: one word per line, at most"
                f" {MAX_THEME_WORD_CHARS} characters, no control characters"
            )
    if not words:
        raise UnusableWordList("the list has no words: one word per line")
    if len(words) > MAX_THEME_LIST_WORDS:
        raise UnusableWordList(
            f"the list has {len(words):,} words; at most {MAX_THEME_LIST_WORDS:,}"
        )
    return "\n".join(words)


def playable_theme_lists() -> dict[str, str]:
    """Name -> title of the theme lists a room may choose (enabled), by title."""
    return dict(ThemeList.objects.filter(enabled=True).values_list("name", "title"))


def theme_list_title(name: str) -> str | None:
    """The title of the enabled theme list ``name``; None when there is none (deleted,
    switched off)."""
    return ThemeList.objects.filter(name=name, enabled=True).values_list("title", flat=True).first()


def theme_list_words(name: str, rules: WordRules) -> frozenset[str] | None:
    """The words of the theme list ``name`` in the form of a dictionary with ``rules``
    (words that dictionary could never hold dropped); None when there is no such list
    (deleted; a list switched off during a round still serves it). Cached per list
    version: an edit in the admin is seen by the next round."""
    row = ThemeList.objects.filter(name=name).values_list("pk", "updated_at").first()
    if row is None:
        return None
    key = (row[0], row[1], tuple(sorted(rules.to_dict().items())))
    with _lock:
        words = _loaded.get(key)
        if words is not None:
            _loaded.move_to_end(key)
            return words
    text = ThemeList.objects.filter(pk=row[0]).values_list("words", flat=True).first() or ""
    words = frozenset(_normalised(text, rules))
    with _lock:
        _loaded[key] = words
        while len(_loaded) > MAX_LOADED:
            _loaded.popitem(last=False)
    return words


def _normalised(text: str, rules: WordRules) -> list[str]:
    found = []
    for line in text.splitlines():
        # Lower-cased first: a list of animals may well write "Lion", which the
        # dictionary's rules would drop as a proper noun.
        word, _reason = normalise_word(line.lower(), rules)
        if word is not None:
            found.append(word)
    return found
