"""The site's access to compiled dictionaries: loaded once per process and shared.

Loading maps the compiled file into memory, so every Daphne and Celery process shares the
same pages; the first use of a dictionary compiles it if needed (``python -m solver build``
does that ahead of time).
"""

from __future__ import annotations

import threading

from solver import dictionaries
from solver.lexicon import Lexicon

_loaded: dict[str, Lexicon] = {}
_lock = threading.Lock()


def available_dictionaries() -> dict[str, str]:
    """Names and titles of the dictionaries a room may choose."""
    result = {}
    for name, entry in dictionaries.NAMED_LISTS.items():
        if entry.source.exists():
            result[name] = entry.title
    return result


def get_lexicon(name: str) -> Lexicon:
    """The lexicon called ``name``; raises solver.LexiconError if there is none."""
    lexicon = _loaded.get(name)
    if lexicon is None:
        with _lock:
            lexicon = _loaded.get(name)
            if lexicon is None:
                lexicon = dictionaries.load(name)
                _loaded[name] = lexicon
    return lexicon
