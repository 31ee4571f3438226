"""Helpers for tests that need dictionaries of their own: a small word list, compiled for
real into the test's dictionary directory (see the ``dictionary_dir`` fixture)."""

from __future__ import annotations

from dictionaries import compiling, services
from dictionaries.models import Dictionary, DictionaryVersion

# A small English-like list: comments, blanks, a proper noun, a q without u, a too-short
# word, a duplicate and a possessive, next to words that BOARD ("cats qiex dogz went")
# spells.
TINY_LIST = """# a tiny list for tests
cat
cats
dog
went
quiet
diet
zebra

Paris
qat
ox
cats
dog's
"""
TINY_WORDS = {"cat", "cats", "dog", "went", "quiet", "diet", "zebra"}


def make_dictionary(
    name: str = "tiny", text: str = TINY_LIST, encoding: str = "utf-8", **fields
) -> Dictionary:
    """A dictionary with ``text`` uploaded and compiled (in this process)."""
    dictionary = Dictionary.objects.create(name=name, title=name.title(), **fields)
    services.set_upload(dictionary, text.encode(encoding), f"{name}.txt")
    compile_now(dictionary)
    return dictionary


def current_version(dictionary: Dictionary) -> DictionaryVersion:
    """The dictionary's current compiled version, which the test needs it to have."""
    version = dictionary.current_version
    assert version is not None, f"{dictionary.name} has no compiled version"
    return version


def compile_now(dictionary: Dictionary) -> Dictionary:
    """Request a compile and run it at once, as the eager task would after commit."""
    revision = services.request_compile(dictionary, enqueue=False)
    compiling.compile_dictionary(dictionary.pk, revision)
    dictionary.refresh_from_db()
    return dictionary
