"""GET /api/definitions/<language>/<word>: compiled meanings, staff ones, and errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.test import Client

from definitions.models import Definition
from dictionaries.models import Dictionary
from tests.meanings.support import require_definitions

pytestmark = pytest.mark.django_db


@pytest.fixture
def english() -> Path:
    return require_definitions("en")


def get(client: Client, language: str, word: str, **headers: str):
    return client.get(f"/api/definitions/{language}/{word}", headers=headers)


def test_a_word_in_wordnet_has_senses_and_a_wiktionary_link(client: Client, english: Path) -> None:
    response = get(client, "english", "dog")
    assert response.status_code == 200
    body = response.json()
    assert (body["word"], body["lemma"], body["language"], body["source"]) == (
        "dog",
        "dog",
        "en",
        "wordnet",
    )
    assert body["senses"][0]["part_of_speech"] == "noun"
    assert "Canis" in body["senses"][0]["text"]
    assert body["wiktionary_url"] == "https://en.wiktionary.org/wiki/dog"


def test_answers_may_be_cached_and_revalidated(client: Client, english: Path) -> None:
    response = get(client, "en", "dog")
    assert "max-age=600" in response["Cache-Control"]
    again = get(client, "en", "dog", if_none_match=response["ETag"])
    assert again.status_code == 304


def test_an_inflected_form_gives_its_lemma(client: Client, english: Path) -> None:
    body = get(client, "english-common", "wolves").json()
    assert body["lemma"] == "wolf" and body["source"] == "wordnet"
    assert body["wiktionary_url"] == "https://en.wiktionary.org/wiki/wolf"
    assert get(client, "en", "Running").json()["lemma"] == "run"  # any case


def test_a_staff_definition_wins_and_serves_the_lemmas_forms(client: Client, english: Path) -> None:
    Definition.objects.create(
        language="en", word="wolf", part_of_speech="noun", text="Our house meaning."
    )
    body = get(client, "english", "wolves").json()
    assert body["source"] == "staff"
    assert body["senses"] == [
        {"part_of_speech": "noun", "text": "Our house meaning.", "lemma": "wolf"}
    ]
    # Other languages are not touched.
    assert get(client, "en", "dog").json()["source"] == "wordnet"


def test_a_staff_definition_of_a_word_no_source_knows(client: Client) -> None:
    Definition.objects.create(language="fr", word="Élève", text="Quelqu'un qui apprend.")
    body = get(client, "french", "eleve").json()
    assert (body["source"], body["lemma"]) == ("staff", "Élève")
    assert body["wiktionary_url"] == "https://fr.wiktionary.org/wiki/%C3%89l%C3%A8ve"


def test_a_word_only_gcide_has_is_answered_from_gcide(client: Client, english: Path) -> None:
    require_definitions("en-gcide")
    # "zax" (a slater's tool) is in word-game lists and Webster's, not in WordNet.
    body = get(client, "english", "zaxes").json()
    assert (body["word"], body["lemma"], body["source"]) == ("zaxes", "zax", "gcide")
    assert body["senses"][0]["part_of_speech"] == "noun"
    assert "slates" in body["senses"][0]["text"]
    assert body["wiktionary_url"] == "https://en.wiktionary.org/wiki/zax"
    # WordNet still answers first for a word it has.
    assert get(client, "en", "dogs").json()["source"] == "wordnet"


def test_a_word_without_definition_gets_a_wiktionary_search(client: Client, english: Path) -> None:
    body = get(client, "english", "qzxv").json()
    assert (body["lemma"], body["source"], body["senses"]) == (None, None, [])
    assert body["wiktionary_url"] == "https://en.wiktionary.org/w/index.php?search=qzxv"


def test_a_dutch_word_gets_freedicts_english_translation(client: Client) -> None:
    require_definitions("nl")
    body = get(client, "dutch", "huis").json()
    assert (body["language"], body["source"], body["lemma"]) == ("nl", "freedict", "huis")
    assert "house" in [sense["text"] for sense in body["senses"]]
    assert body["wiktionary_url"] == "https://nl.wiktionary.org/wiki/huis"


def test_a_folded_french_word_finds_its_accented_headword(client: Client) -> None:
    require_definitions("fr")
    body = get(client, "fr", "eleve").json()
    assert body["source"] == "freedict" and body["lemma"] in {"élève", "élevé"}
    assert "pupil" in [sense["text"] for sense in body["senses"]]


def test_a_staff_dictionary_is_read_in_its_language(client: Client) -> None:
    Dictionary.objects.create(name="maison", title="Maison", language="fr")
    Dictionary.objects.create(name="mystery", title="Mystery")
    Definition.objects.create(language="fr", word="chat", text="cat")
    assert get(client, "maison", "chat").json()["senses"][0]["text"] == "cat"
    response = get(client, "mystery", "chat")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "language_not_found"


@pytest.mark.parametrize("language", ["klingon", "xx", "en%20gb", "a" * 70])
def test_an_unknown_language_is_404(client: Client, language: str) -> None:
    response = get(client, language, "dog")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "language_not_found"


@pytest.mark.parametrize("word", ["d0g", "dog-house", "a" * 41, "%20", "dog%27s"])
def test_a_word_that_is_not_letters_is_400(client: Client, word: str) -> None:
    response = get(client, "english", word)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid" and error["message"]
