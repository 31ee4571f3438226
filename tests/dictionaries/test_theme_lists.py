"""Theme lists (dictionaries.themes, the admin's ThemeList pages): a plain-text upload or
the text box, checked before anything is stored; the words in a dictionary's form."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from dictionaries import themes
from dictionaries.models import ThemeList
from solver.wordrules import WordRules

pytestmark = pytest.mark.django_db

ADD = "/admin/dictionaries/themelist/add/"


def form(**changes) -> dict:
    data = {"name": "animals", "title": "Animals", "language": "en", "enabled": "on", "words": ""}
    data.update(changes)
    return data


def text_file(content: bytes, name: str = "animals.txt") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, content, content_type="text/plain")


def test_an_uploaded_file_becomes_the_list(staff: Client) -> None:
    content = "\ufeffLion\r\ncat\n\n  gnu  \nélan\n".encode()  # a BOM, CRLF, blanks
    response = staff.post(ADD, form(upload=text_file(content)))
    assert response.status_code == 302, response.content.decode()[:2000]
    animals = ThemeList.objects.get(name="animals")
    assert animals.words == "Lion\ncat\ngnu\nélan"
    # Used in a dictionary's form: lower-case (no proper-noun rule), accents as it keeps them.
    assert themes.theme_list_words("animals", WordRules()) == {"lion", "cat", "gnu"}
    assert themes.theme_list_words("animals", WordRules(fold_accents=True)) == {
        "lion",
        "cat",
        "gnu",
        "elan",
    }
    assert themes.playable_theme_lists() == {"animals": "Animals"}


def test_the_text_box_makes_a_list_too(staff: Client) -> None:
    response = staff.post(ADD, form(words="emu\r\n\r\nyak\n"))
    assert response.status_code == 302, response.content.decode()[:2000]
    assert ThemeList.objects.get(name="animals").words == "emu\nyak"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"lion\n\xe9l\xe9phant\n", "the file is not UTF-8 text (byte 6 cannot be read)"),
        (b"\x89PNG\r\n\x1a\n\x00\x00", "the file is not UTF-8 text"),
        (b"lion\nti\x00ger\n", "word 2 (&#x27;ti\\x00ger&#x27;) is not a word"),
        (b"\n\n  \n", "the list has no words"),
    ],
)
def test_a_broken_file_is_a_form_error_and_stores_nothing(
    staff: Client, content: bytes, message: str
) -> None:
    response = staff.post(ADD, form(upload=text_file(content)))
    assert response.status_code == 200
    assert message in response.content.decode()
    assert not ThemeList.objects.exists()


def test_a_file_over_the_limits_is_refused(staff: Client, monkeypatch) -> None:
    monkeypatch.setattr(themes, "MAX_THEME_LIST_BYTES", 100)
    response = staff.post(ADD, form(upload=text_file(b"gnu\n" * 30)))
    assert "the file is larger than 0 MiB" in response.content.decode()
    monkeypatch.setattr(themes, "MAX_THEME_LIST_BYTES", 5 * 2**20)
    monkeypatch.setattr(themes, "MAX_THEME_LIST_WORDS", 3)
    response = staff.post(ADD, form(upload=text_file(b"gnu\nemu\nyak\nox\n")))
    assert "the list has 4 words; at most 3" in response.content.decode()
    assert not ThemeList.objects.exists()


def test_a_long_list_is_shown_not_edited_and_kept_on_save(staff: Client, monkeypatch) -> None:
    from dictionaries import admin

    monkeypatch.setattr(admin, "THEME_TEXT_BOX_MAX_CHARS", 10)
    animals = ThemeList.objects.create(name="animals", title="Animals", words="lion\ncat\ngnu\nyak")
    url = f"/admin/dictionaries/themelist/{animals.pk}/change/"
    page = staff.get(url).content.decode()
    assert "4 words, too many to edit here" in page
    assert 'name="words"' not in page
    response = staff.post(url, {"title": "Big animals", "language": "en", "enabled": "on"})
    assert response.status_code == 302, response.content.decode()[:2000]
    animals.refresh_from_db()
    assert (animals.title, animals.words) == ("Big animals", "lion\ncat\ngnu\nyak")


def test_an_edited_list_is_seen_by_the_next_use() -> None:
    animals = ThemeList.objects.create(name="animals", title="Animals", words="cat")
    assert themes.theme_list_words("animals", WordRules()) == {"cat"}
    animals.words = "cat\ndog"
    animals.save()
    assert themes.theme_list_words("animals", WordRules()) == {"cat", "dog"}
    animals.delete()
    assert themes.theme_list_words("animals", WordRules()) is None


def test_only_enabled_lists_are_offered() -> None:
    ThemeList.objects.create(name="birds", title="Birds", words="emu", enabled=False)
    assert themes.playable_theme_lists() == {}
    assert themes.theme_list_title("birds") is None
