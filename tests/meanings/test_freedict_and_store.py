"""FreeDict's dictd files, the compiled file format, and building with sources missing."""

from __future__ import annotations

from pathlib import Path

import pytest

from meanings import cli, dictd, freedict
from meanings.build import Source, SourceMissing, build, compile_freedict
from meanings.store import BLOCK_BYTES, DefinitionStore, lookup, store_path, write_store
from tests.meanings.support import encode, write_dictd_files

ENTRIES = [
    ("élève", "élève /elɛv/ <n, masc>\n1. pupil\n2. student\n"),
    ("élevé", "élevé /elve/ <adj>\nnoble\n"),
    ("paris", "Paris /paʀi/ <n>\nParis\n"),
    ("paris", "paris /paʀi/ <n, masc>\nbets\n"),
    ("a prima vista", "a prima vista\nat first sight\n"),
    ("huis", "huis\u2010 /hœys/\ndomestic\n"),  # an affix, with a Unicode hyphen
]


def write_dictd(folder: Path, name: str = "freedict-tst-eng") -> tuple[Path, Path]:
    return write_dictd_files(folder, name, ENTRIES, "00databaseshort\tA\tB")


def test_dictd_numbers_are_base_64() -> None:
    assert dictd.decode_number("8m") == 60 * 64 + 38
    assert dictd.decode_number(encode(123456)) == 123456


def test_an_entry_gives_headword_part_of_speech_and_translations() -> None:
    entry = freedict.parse_entry(
        "abattis /abati/ <n, masc>\n1. debris, rubble\n2.  [cul] giblets\n"
    )
    assert entry == freedict.FreeDictEntry(
        "abattis", "noun, masculine", ("debris, rubble", "[cul] giblets")
    )
    assert freedict.parse_entry("lonely headword\n") is None


def test_a_small_dictionary_compiles_by_folded_spelling(tmp_path: Path) -> None:
    index, data = write_dictd(tmp_path)
    entries = compile_freedict(index, data)
    # Both accented headwords fold to "eleve"; the name Paris gives way to the word.
    assert [headword for headword, _ in entries["eleve"]] == ["élève", "élevé"]
    assert entries["paris"] == [("paris", [("noun, masculine", "bets")])]
    # Phrases and affixes cannot be spelled on a board.
    assert "aprimavista" not in entries and "huis" not in entries


def test_the_store_round_trips_through_a_file(tmp_path: Path) -> None:
    index, data = write_dictd(tmp_path)
    path = tmp_path / "out" / "tst.defs"
    write_store(path, compile_freedict(index, data), {"source": "freedict", "language": "tst"})
    store = DefinitionStore(path)
    entry = store.lookup("ÉLÈVE")
    assert entry is not None and entry.source == "freedict" and entry.lemma == "élève"
    assert [sense.text for sense in entry.senses][:2] == ["pupil", "noble"]  # each headword's first
    assert store.lookup("nothing") is None


def test_many_entries_spread_over_blocks_are_each_found(tmp_path: Path) -> None:
    entries = {
        f"word{chr(97 + i % 26)}{i:05d}": [(f"w{i}", [("noun", f"sense {i} " + "x" * 80)])]
        for i in range(3000)
    }
    path = tmp_path / "big.defs"
    write_store(path, entries, {"source": "test"})
    store = DefinitionStore(path)
    assert len(entries) * 80 > 4 * BLOCK_BYTES  # several blocks
    for key in ("worda00000", "wordz00025", "worda02990"):
        found = store.lookup(key)
        assert found is not None and found.senses[0].text.startswith(f"sense {int(key[5:])} ")


def test_morphy_files_resolve_irregular_forms(tmp_path: Path) -> None:
    path = tmp_path / "en.defs"
    entries = {
        "wolf": [("wolf", [("noun", "a wild dog")])],
        "run": [("run", [("verb", "move fast")])],
    }
    write_store(
        path, entries, {"source": "wordnet", "morphy": True}, {"wolves": {"noun": ["wolf"]}}
    )
    assert lookup("en", "wolves", tmp_path).lemma == "wolf"  # type: ignore[union-attr]
    assert lookup("en", "runs", tmp_path).lemma == "run"  # type: ignore[union-attr]
    assert lookup("en", "runner", tmp_path) is None
    assert lookup("xx", "wolf", tmp_path) is None  # no file for that language


def test_a_missing_package_is_named_and_the_other_languages_still_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    index, data = write_dictd(tmp_path)
    present = Source("tst", "tst", "freedict", "dict-freedict-tst-eng", (index, data), "GPL")
    absent = Source(
        "nl", "nl", "freedict", "dict-freedict-nld-eng", (tmp_path / "none.index",), "GPL"
    )
    with pytest.raises(SourceMissing, match="apt-get install dict-freedict-nld-eng"):
        build(absent, tmp_path)
    monkeypatch.setattr(cli, "sources", lambda: {"nl": absent, "tst": present})
    assert cli.main(["build", "--dir", str(tmp_path / "out")]) == 0
    output = capsys.readouterr()
    assert "nl: no definitions (dict-freedict-nld-eng is not installed)" in output.out
    assert "apt-get install dict-freedict-nld-eng" in output.err
    assert "tst: compiled" in output.out
    assert store_path("tst", tmp_path / "out").is_file()
    assert not store_path("nl", tmp_path / "out").exists()
    # Built again from the same source: nothing to do.
    assert not build(present, tmp_path / "out").compiled
