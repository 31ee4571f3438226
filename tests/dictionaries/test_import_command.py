"""``manage.py import_dictionary``: Dutch and French from Debian's word lists, compiled for
real, and clear errors when a list is missing or unknown."""

from __future__ import annotations

import dataclasses
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from dictionaries import files, services
from dictionaries.models import Dictionary
from solver import dictionaries as named_lists
from tests.dictionaries.helpers import current_version

pytestmark = pytest.mark.django_db


@pytest.fixture
def no_prebuilt(tmp_path: Path, monkeypatch) -> None:
    """Hide ``python -m solver build``'s files, so the command compiles for real."""
    monkeypatch.setenv("BOGGLE_DICTIONARY_DIR", str(tmp_path / "no-prebuilt"))


@pytest.mark.parametrize(
    ("name", "title", "accented", "folded"),
    [("dutch", "Nederlands", "één", "een"), ("french", "Français", "été", "ete")],
)
def test_import_compiles_a_debian_list(
    dictionary_dir: Path, no_prebuilt, name, title, accented, folded
):
    """One command registers the list (enabled, not the default, accents folded) and
    compiles it; rooms may then choose it, and a look-up finds a word typed with or
    without its accents."""
    if not named_lists.NAMED_LISTS[name].source.exists():
        pytest.fail(f"{named_lists.NAMED_LISTS[name].source} missing: apt-get install w{name}")
    out = StringIO()
    call_command("import_dictionary", name, stdout=out)
    dictionary = Dictionary.objects.get(name=name)
    assert (dictionary.title, dictionary.status) == (title, Dictionary.Status.READY)
    assert dictionary.enabled and not dictionary.is_default and dictionary.fold_accents
    version = current_version(dictionary)
    assert version.word_count > 300_000
    assert (dictionary_dir / version.path).exists()
    assert out.getvalue().startswith(f"{name}: {version.word_count:,} words")
    assert folded in files.load_version(version)
    assert services.playable()[name] == title
    assert services.lookup(dictionary, accented) == (True, f"{folded!r} is in the dictionary")
    assert services.lookup(dictionary, folded)[0] is True


def test_a_missing_debian_list_says_which_package_to_install(dictionary_dir: Path, monkeypatch):
    """No /usr/share/dict/dutch: CommandError naming apt-get install wdutch; nothing made."""
    missing = dataclasses.replace(
        named_lists.NAMED_LISTS["dutch"], source=dictionary_dir / "no" / "dutch"
    )
    monkeypatch.setitem(named_lists.NAMED_LISTS, "dutch", missing)
    with pytest.raises(CommandError, match="apt-get install wdutch"):
        call_command("import_dictionary", "dutch", stdout=StringIO())
    assert not Dictionary.objects.filter(name="dutch").exists()


def test_an_unknown_name_is_refused(dictionary_dir: Path):
    """The error lists the names the command knows."""
    with pytest.raises(CommandError, match="unknown dictionary 'klingon'; known: english"):
        call_command("import_dictionary", "klingon", stdout=StringIO())


def test_importing_again_keeps_the_version(dictionary_dir: Path):
    """A second import of an unchanged list reuses its file and version (here the English
    common list, adopted from ``python -m solver build`` when that file is current)."""
    call_command("import_dictionary", "english-common", stdout=StringIO())
    first = current_version(Dictionary.objects.get(name="english-common"))
    call_command("import_dictionary", "english-common", stdout=StringIO())
    assert Dictionary.objects.get(name="english-common").current_version == first
    assert first.word_count == 39_051
