"""GCIDE (Debian dict-gcide): its entries read into short clean senses, compiled into the
English later file, asked only when WordNet has nothing for a word."""

from __future__ import annotations

from pathlib import Path

import pytest

from meanings import cli, gcide
from meanings.build import Source, build, compile_gcide
from meanings.store import lookup, store_path, write_store
from tests.meanings.support import write_dictd_files
from tests.meanings.test_freedict_and_store import write_dictd

# Entries as the Debian package has them (dictd plain text, Webster's 1913 layout).
DOG = """Dog \\Dog\\ (d[add]g), n. [AS. docga; akin to D. dog
   mastiff.]
   1. (Zool.) A quadruped of the genus {Canis}, esp. the
      domestic dog ({Canis familiaris}).

   Note: The dog is distinguished above all others.
         [1913 Webster +PJC]

   2. A mean, worthless fellow; a wretch.
      [1913 Webster]

            What is thy servant, which is but a dog? -- 2 Kings
      [1913 Webster]

   3. A fellow; -- used humorously; as, a sly dog. [Colloq.]
      [1913 Webster]

   4. (Astron.) One of the two constellations.
      [1913 Webster]

   {Dog in the manger}, a churlish person.
      [1913 Webster]
"""
ENTRIES = [
    (
        "Aal",
        'Aal \\A"al\\, n. [Hind.] (Bot.)\n   An East Indian shrub ({Morinda}).\n   [1913 Webster]\n',
    ),
    ("Dog", DOG),
    # GCIDE indexes a word another entry mentions: not a meaning of "dog".
    (
        "dog",
        'Sundog \\Sun"dog`\\, n.\n   A luminous spot; -- called also {dog}.\n   [1913 Webster]\n',
    ),
    ("Abray", 'Abray \\A*bray"\\, v. i.\n   See {Abraid}. [Obs.]\n   [1913 Webster]\n'),
    (
        "Abraid",
        'Abraid \\A*braid"\\, v. t. [AS. abregdan.]\n   To awake; to arouse. [Obs.]\n   [1913 Webster]\n',
    ),
    (
        "Amid",
        'Amidst \\A*midst"\\, Amid \\A*mid"\\, prep.\n   In the midst of; among. "Unseen amid the throng."\n   [1913 Webster]\n',
    ),
    ("Man-of-war", 'Man-of-war \\Man"-of-war"\\, n.\n   A government vessel.\n   [1913 Webster]\n'),
]


def write_gcide(folder: Path) -> tuple[Path, Path]:
    return write_dictd_files(folder, gcide.DICTIONARY, ENTRIES, "00-database-short\tA\tB")


def gcide_source(folder: Path) -> Source:
    return Source("en-gcide", "en", "gcide", gcide.DEBIAN_PACKAGE, write_gcide(folder), "GPL")


def test_an_entry_gives_short_clean_senses_without_etymology_quotes_or_notes() -> None:
    entry = gcide.parse_entry(DOG)
    assert entry == gcide.GcideEntry(
        "Dog",
        "noun",
        (
            "A quadruped of the genus Canis, esp. the domestic dog (Canis familiaris).",
            "A mean, worthless fellow; a wretch.",
            "A fellow; -- used humorously.",
        ),
        ("Dog",),
    )
    aal = gcide.parse_entry(ENTRIES[0][1])
    assert aal is not None and aal.senses == ("An East Indian shrub (Morinda).",)
    assert gcide.parse_entry("Nothing here\n") is None


def test_accents_and_spellings_of_the_head_line() -> None:
    entry = gcide.parse_entry("Caf['e] \\Caf['e]\"\\, n.\n   A coffee house; Linn[ae]us saw one.\n")
    assert entry is not None and entry.senses == ("A coffee house; Linnæus saw one.",)
    amid = gcide.parse_entry(ENTRIES[5][1])
    assert amid is not None and amid.spellings == ("Amidst", "Amid")
    assert amid.part_of_speech == "preposition" and amid.senses == ("In the midst of; among.",)


def test_compiling_keeps_a_boards_words_and_follows_cross_references(tmp_path: Path) -> None:
    entries = compile_gcide(*write_gcide(tmp_path))
    assert [headword for headword, _ in entries["dog"]] == ["dog"]  # not "Sundog"
    assert len(entries["dog"][0][1]) == 3  # at most three senses
    assert entries["abray"] == entries["abraid"]  # "See Abraid." gives Abraid's meaning
    assert entries["amid"] == [("amid", [("preposition", "In the midst of; among.")])]
    assert "manofwar" not in entries and "man-of-war" not in entries


def test_gcide_answers_only_what_wordnet_has_nothing_for(tmp_path: Path) -> None:
    out = tmp_path / "out"
    write_store(
        store_path("en", out),
        {"dog": [("dog", [("noun", "a domesticated canine")])]},
        {"source": "wordnet", "language": "en", "morphy": True},
    )
    result = build(gcide_source(tmp_path), out)
    assert result.compiled and result.name == "en-gcide"
    dog = lookup("en", "dogs", out)  # WordNet first, for the word and its forms
    assert dog is not None and dog.source == "wordnet" and dog.lemma == "dog"
    aal = lookup("en", "aal", out)
    assert aal is not None and aal.source == "gcide"
    assert aal.senses[0].part_of_speech == "noun"
    assert aal.senses[0].text == "An East Indian shrub (Morinda)."
    aals = lookup("en", "aals", out)  # morphy finds GCIDE's lemma too
    assert aals is not None and aals.source == "gcide" and aals.lemma == "aal"
    amid = lookup("en", "amid", out)  # the word itself, a part of speech WordNet lacks
    assert amid is not None and amid.senses[0].part_of_speech == "preposition"
    abray = lookup("en", "abray", out)
    assert abray is not None and abray.lemma == "abraid"
    assert lookup("en", "zzz", out) is None


def test_without_wordnet_gcide_still_answers(tmp_path: Path) -> None:
    build(gcide_source(tmp_path), tmp_path / "out")
    dog = lookup("en", "dog", tmp_path / "out")
    assert dog is not None and dog.source == "gcide"


def test_a_missing_gcide_is_named_and_the_rest_still_builds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    present = gcide_source(tmp_path)
    absent = Source("en-gcide", "en", "gcide", "dict-gcide", (tmp_path / "none.index",), "GPL")
    other = Source("tst", "tst", "freedict", "dict-freedict-tst-eng", write_dictd(tmp_path), "GPL")
    monkeypatch.setattr(cli, "sources", lambda: {"en-gcide": absent, "tst": other})
    assert cli.main(["build", "--dir", str(tmp_path / "out")]) == 0
    output = capsys.readouterr()
    assert "en-gcide: no definitions (dict-gcide is not installed)" in output.out
    assert "apt-get install dict-gcide" in output.err
    assert "tst: compiled" in output.out
    assert not store_path("en-gcide", tmp_path / "out").exists()
    monkeypatch.setattr(cli, "sources", lambda: {"en-gcide": present})
    assert cli.main(["build", "en", "--dir", str(tmp_path / "out")]) == 0
    assert "en-gcide: compiled" in capsys.readouterr().out
