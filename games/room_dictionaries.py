"""The site's access to dictionaries: which ones a room may choose, and the compiled word
list a round is played with, loaded once per process and shared.

Dictionaries are rows of the ``dictionaries`` app (staff manage them in the admin). A round
stores the ``DictionaryVersion`` it started with; a version's file is content-addressed and
never rewritten, so a word list loaded for a path stays right for the life of the process.
Loading maps the file into memory, so every Daphne and Celery process shares its pages.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

from dictionaries import files, services
from dictionaries.models import Dictionary, DictionaryVersion
from games.models import Challenge
from solver.dictionaries import NAMED_LISTS
from solver.wordlist import WordList, load_word_list

# Word lists kept loaded per process (least recently used dropped first): the current
# versions of the dictionaries in play, plus a few older ones that running rounds still use.
MAX_LOADED = 16

_loaded: OrderedDict[Path, WordList] = OrderedDict()
_lock = threading.Lock()


def available_dictionaries() -> dict[str, str]:
    """Names and titles of the dictionaries a room may choose: enabled, with a compiled
    version; the default first."""
    return services.playable()


def default_dictionary() -> str:
    """The name of the dictionary new rooms play with."""
    return services.default_name()


def current_version(name: str) -> DictionaryVersion:
    """The version a round starting now plays with; raises
    dictionaries.exceptions.DictionaryUnavailable saying why there is none."""
    return services.current_version(name)


def word_list_for_version(version: DictionaryVersion) -> WordList:
    """The word list of a dictionary version (cached per file); raises solver.WordListError if
    its file is missing or corrupt."""
    path = files.version_path(version)
    with _lock:
        word_list = _loaded.get(path)
        if word_list is not None:
            _loaded.move_to_end(path)
            return word_list
    word_list = load_word_list(path)  # outside the lock: other threads keep reading
    with _lock:
        _loaded[path] = word_list
        _loaded.move_to_end(path)
        while len(_loaded) > MAX_LOADED:
            _loaded.popitem(last=False)
    return word_list


def default_word_list() -> WordList:
    """The default dictionary's current word list, loaded (a web process's readiness,
    ``web.health``: rooms are created with it)."""
    return word_list_for_version(current_version(default_dictionary()))


def word_list_for_round(round_) -> WordList:
    """The word list a round is judged, solved and scored with: the version it started with
    (rounds from before versions existed use their dictionary's current version)."""
    version = round_.dictionary_version
    if version is None:
        version = current_version(round_.dictionary)
    return word_list_for_version(version)


@dataclass(frozen=True)
class DictionaryFacts:
    """What a room shows and rolls by, of its dictionary."""

    # The shortest word it keeps (its rules' ``min_length``; 1 when there is no such
    # dictionary): a room's shortest word is never below it, or the hints would promise
    # words no round can accept.
    min_length: int
    # Its language code ("en", "fr"; "" when unknown): which dice a room rolls by default
    # and which frequency list tells its common words.
    language: str


def dictionary_facts(name: str) -> DictionaryFacts:
    """The facts of the dictionary ``name``, in one query (its admin row, else the named
    list it is built from)."""
    row = Dictionary.objects.filter(name=name).values_list("min_length", "language").first()
    min_length, language = row if row is not None else (1, "")
    if not language and name in NAMED_LISTS:
        language = NAMED_LISTS[name].language
    return DictionaryFacts(min_length or 1, base_language(language))


def base_language(code: str | None) -> str:
    """A language code without its region, lower case: "fr-BE" -> "fr"; "" for none."""
    return (code or "").split("-")[0].lower()


def dictionary_language(name: str) -> str:
    return dictionary_facts(name).language


def house_words(room_id: int, dictionary: str) -> frozenset[str]:
    """Words the room's host accepted on a challenge; they count in the room's rounds played
    with ``dictionary`` (a word accepted in English says nothing about French)."""
    return frozenset(
        Challenge.objects.filter(
            room_id=room_id, dictionary=dictionary, status=Challenge.Status.ACCEPTED
        ).values_list("word", flat=True)
    )


def dictionary_for_language(language: str) -> str:
    """The dictionary a page in ``language`` ("nl", "fr-be") offers first: the default when
    it is in that language, else the first a room may choose in it, else the default (a
    language nobody installed a dictionary for)."""
    wanted = base_language(language)
    default = default_dictionary()
    playable = list(available_dictionaries())
    if dictionary_language(default) == wanted:
        return default
    rows = Dictionary.objects.filter(name__in=playable).values_list("name", "language")
    languages = {name: base_language(code) for name, code in rows}
    for name in playable:  # the default first, then by title
        language_of = languages.get(name) or (
            NAMED_LISTS[name].language if name in NAMED_LISTS else ""
        )
        if language_of == wanted:
            return name
    return default


def dictionary_title(name: str) -> str:
    """What a page calls the dictionary ``name``: its title where a room may choose it,
    else the named list's, else its name."""
    title = available_dictionaries().get(name)
    if title is None and name in NAMED_LISTS:
        title = NAMED_LISTS[name].title
    return title or name


def dictionary_choices(language: str) -> dict[str, object]:
    """What a page in ``language`` offers in its dictionary fields (the start page's "Start
    a game" and "Practice alone"): ``dictionaries``, every one a room may choose as
    ``{name, title}`` (the default first), and ``dictionary``, the one chosen first
    (``dictionary_for_language``). Before any is playable (a fresh installation compiling
    its lists) the default alone, which a room then names in its clear error."""
    choices = [{"name": n, "title": t} for n, t in available_dictionaries().items()]
    chosen = dictionary_for_language(language)
    if not any(choice["name"] == chosen for choice in choices):
        choices.insert(0, {"name": chosen, "title": dictionary_title(chosen)})
    return {"dictionaries": choices, "dictionary": chosen}
