"""A word's meaning for the results: staff definitions first, then the compiled files.

``check_language`` and ``check_word`` validate and resolve what a client sent; ``define``
reads (the compiled file of the language, memory-mapped once per process, and the staff
definitions). Nothing is fetched from the network: the Wiktionary link is for the player.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote, urlencode

from definitions.exceptions import InvalidWord, LanguageNotFound
from definitions.models import Definition
from dictionaries.models import Dictionary
from meanings import lookup
from meanings.build import sources
from meanings.store import MAX_SENSES, fold
from solver.dictionaries import NAMED_LISTS

# Longest word looked up (a 6x6 board's longest path with two-letter faces is 72 letters,
# but no dictionary keeps words over 36).
MAX_WORD_LENGTH = 40
# A language code (en, nl, pt-br) or a dictionary's name (a slug).
_LANGUAGE_OR_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")
_LANGUAGE_CODE = re.compile(r"[a-z]{2,3}(?:-[a-z0-9]{2,8})*")
# Languages the build compiles a source for.
COMPILED_LANGUAGES = frozenset(source.language for source in sources().values())


def check_language(name: str) -> str:
    """The language code of a dictionary's name or of a language code; raises
    LanguageNotFound when it is neither."""
    text = name.strip().lower()
    if not _LANGUAGE_OR_NAME.fullmatch(text):
        raise LanguageNotFound(f"no dictionary or language {name[:64]!r}")
    row = Dictionary.objects.filter(name=text).values_list("language", "named_list").first()
    if row is not None:
        language, named_list = row
        if not language and named_list in NAMED_LISTS:
            language = NAMED_LISTS[named_list].language
        if not language or not _LANGUAGE_CODE.fullmatch(language.lower()):
            raise LanguageNotFound(f"the dictionary {text!r} has no language set")
        return language.lower()
    if text in NAMED_LISTS:
        return NAMED_LISTS[text].language
    if _LANGUAGE_CODE.fullmatch(text) and (
        text in COMPILED_LANGUAGES
        or Dictionary.objects.filter(language__iexact=text).exists()
        or Definition.objects.filter(language=text).exists()
    ):
        return text
    raise LanguageNotFound(f"no dictionary or language {text!r}")


def check_word(word: str) -> str:
    """The word as written (lower case), or InvalidWord: letters only, at most
    MAX_WORD_LENGTH of them."""
    text = word.strip().lower()
    if not text or len(text) > MAX_WORD_LENGTH:
        raise InvalidWord(f"a word is 1 to {MAX_WORD_LENGTH} letters")
    if not fold(text).isalpha() or not text.isalpha():
        raise InvalidWord("a word has letters only")
    return text


def wiktionary_url(language: str, title: str, exact: bool) -> str:
    """A link to the language's Wiktionary: the page of ``title`` when it is a known
    spelling, else a search (which opens the page when one has that title: a folded
    "eleve" finds "élève")."""
    host = f"https://{language.split('-')[0]}.wiktionary.org"
    if exact:
        return f"{host}/wiki/{quote(title)}"
    return f"{host}/w/index.php?{urlencode({'search': title})}"


def define(language: str, word: str) -> dict[str, Any]:
    """The meaning of a checked ``word`` in a checked ``language``, as the API sends it."""
    key = fold(word)
    entry = lookup(language, word)
    keys = [key, *(fold(lemma) for lemma in (entry.lemmas if entry else ()))]
    staff = sorted(
        Definition.objects.filter(language=language, key__in=set(keys)),
        key=lambda row: (keys.index(row.key), row.id),
    )
    if staff:
        senses = [
            {"part_of_speech": row.part_of_speech, "text": row.text, "lemma": row.word}
            for row in staff[:MAX_SENSES]
        ]
        lemma, source = staff[0].word, "staff"
    elif entry is not None:
        senses = [
            {"part_of_speech": sense.part_of_speech, "text": sense.text, "lemma": sense.lemma}
            for sense in entry.senses
        ]
        lemma, source = entry.lemma, entry.source
    else:
        return {
            "word": key,
            "lemma": None,
            "language": language,
            "senses": [],
            "source": None,
            "wiktionary_url": wiktionary_url(language, word, exact=False),
        }
    return {
        "word": key,
        "lemma": lemma,
        "language": language,
        "senses": senses,
        "source": source,
        "wiktionary_url": wiktionary_url(language, lemma, exact=True),
    }
