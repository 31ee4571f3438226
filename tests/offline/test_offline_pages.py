"""Offline practice's server side (docs/api.md, "Offline practice"): the page names every
dictionary rooms may choose with its word list's address and the rules a round plays by;
the word list is the dictionary's own words, kept for good, any version still on file; the
service worker keeps the page and every file it loads. Bad addresses get a clear 404."""

from __future__ import annotations

import gzip
import json
import re
from datetime import timedelta
from pathlib import Path

import pytest
from django.test import Client
from django.utils import timezone

from dictionaries import files, retention
from dictionaries.compact import version_tag
from dictionaries.models import Dictionary, DictionaryVersion
from offline import shell, words
from solver import compact
from solver.rulebook import rulebook
from tests.dictionaries.helpers import TINY_WORDS, compile_now, current_version, make_dictionary
from web import throttle

pytestmark = pytest.mark.django_db


@pytest.fixture
def tiny(tmp_path: Path, settings) -> Dictionary:
    settings.BOGGLE_DICTIONARY_DIR = tmp_path / "dictionaries"
    return make_dictionary(language="fr")


@pytest.fixture(autouse=True)
def fresh_limits():
    throttle.reset()
    yield
    throttle.reset()


def page_data(client: Client | None = None) -> dict:
    response = (client or Client()).get("/offline/")
    assert response.status_code == 200
    found = re.search(
        r'<script id="offline-data" type="application/json">(.*?)</script>', response.text, re.S
    )
    assert found, "the page embeds its data"
    return json.loads(found[1])


def download(url: str, gzipped: bool = True, address: str = "127.0.0.1"):
    client = Client(REMOTE_ADDR=address)
    return client.get(url, HTTP_ACCEPT_ENCODING="gzip, deflate") if gzipped else client.get(url)


def test_the_page_names_each_playable_dictionary_and_its_rules(tiny: Dictionary) -> None:
    data = page_data()
    entry = next(item for item in data["dictionaries"] if item["name"] == "tiny")
    assert entry == {
        "name": "tiny",
        "title": "Tiny",
        "language": "fr",
        "words": len(TINY_WORDS),
        "url": f"/offline/words/tiny/{version_tag(current_version(tiny))}.txt",
    }
    assert data["rules"]["fr"] == json.loads(json.dumps(rulebook("fr")))


def test_a_switched_off_dictionary_is_not_offered_nor_served(tiny: Dictionary) -> None:
    url = page_data()["dictionaries"][-1]["url"]
    Dictionary.objects.filter(pk=tiny.pk).update(enabled=False)
    assert all(item["name"] != "tiny" for item in page_data()["dictionaries"])
    assert_not_found(download(url))


def test_the_word_list_is_the_dictionarys_words_kept_for_good(tiny: Dictionary) -> None:
    version = current_version(tiny)
    url = f"/offline/words/tiny/{version_tag(version)}.txt"
    response = download(url)
    assert response.status_code == 200
    assert response["Content-Encoding"] == "gzip"
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    assert response["Cache-Control"] == words.KEEP_FOR_GOOD
    header, listed = compact.decode(gzip.decompress(response.content).decode())
    assert set(listed) == TINY_WORDS
    assert header["words"] == len(TINY_WORDS) and header["dictionary"] == "tiny"
    assert header["version"] == version_tag(version)
    # Without gzip, the same text plainly; the file made once is reused.
    plain = download(url, gzipped=False)
    assert "Content-Encoding" not in plain
    assert plain.content == gzip.decompress(response.content)
    assert files.compact_path(version.path).exists()


def test_a_version_replaced_by_a_recompile_is_served_while_it_is_kept(tiny: Dictionary) -> None:
    old = current_version(tiny)
    tiny.edits.create(word="gnu", action="add")
    compile_now(tiny)
    new = current_version(tiny)
    assert new != old
    old_words = compact.decode(
        gzip.decompress(download(f"/offline/words/tiny/{version_tag(old)}.txt").content).decode()
    )[1]
    new_words = compact.decode(
        gzip.decompress(download(f"/offline/words/tiny/{version_tag(new)}.txt").content).decode()
    )[1]
    assert set(new_words) - set(old_words) == {"gnu"}


def test_retention_deletes_a_versions_word_list_with_it(tiny: Dictionary) -> None:
    old = current_version(tiny)
    assert download(f"/offline/words/tiny/{version_tag(old)}.txt").status_code == 200
    tiny.edits.create(word="gnu", action="add")
    compile_now(tiny)
    DictionaryVersion.objects.filter(pk=old.pk).update(
        created_at=timezone.now() - timedelta(days=400)
    )
    retention.delete_unused()
    assert not files.compact_path(old.path).exists()
    assert_not_found(download(f"/offline/words/tiny/{version_tag(old)}.txt"))


def assert_not_found(response) -> None:
    assert response.status_code == 404, response.content
    error = response.json()["error"]
    assert error["code"] == "unknown_word_list" and "reload" in error["message"]


@pytest.mark.parametrize(
    "url",
    [
        "/offline/words/nothing/0123456789abcdef.txt",
        "/offline/words/tiny/0000000000000000.txt",
    ],
)
def test_an_unknown_list_is_a_clear_404(tiny: Dictionary, url: str) -> None:
    assert_not_found(download(url))


@pytest.mark.parametrize(
    "url",
    [
        "/offline/words/tiny/0123.txt",
        "/offline/words/tiny/0123456789ABCDEF.txt",
        "/offline/words/ti%20ny/0123456789abcdef.txt",
        "/offline/words/tiny/0123456789abcdef.txt/..",
    ],
)
def test_malformed_addresses_match_nothing(tiny: Dictionary, url: str) -> None:
    assert Client().get(url).status_code == 404


def test_only_reading_is_allowed(tiny: Dictionary) -> None:
    url = page_data()["dictionaries"][-1]["url"]
    assert Client().post(url).status_code == 405
    assert Client().head(url).status_code == 200


def test_downloads_from_one_address_are_limited(tiny: Dictionary) -> None:
    url = page_data()["dictionaries"][-1]["url"]
    phone = "192.0.2.7"  # loopback is never limited
    answers = [download(url, address=phone).status_code for _ in range(words.DOWNLOAD.burst + 1)]
    assert answers[:-1] == [200] * words.DOWNLOAD.burst
    assert answers[-1] == 429
    assert download(url, address="192.0.2.8").status_code == 200  # another address


def test_the_service_worker_keeps_the_pages_and_every_file_they_load(tiny: Dictionary) -> None:
    response = Client().get("/sw.js")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/javascript")
    assert "no-cache" in response["Cache-Control"] or "max-age=0" in response["Cache-Control"]
    shell_line = re.search(r"^const SHELL = (.*);$", response.text, re.M)
    assert shell_line
    kept = json.loads(shell_line[1])
    urls, tag = shell.shell()
    assert kept == urls and f'const TAG = "{tag}";' in response.text
    assert {"/offline/", "/profile/"} <= set(kept)
    # The offline page's module and what it imports, down to the room's board.
    for module in (
        "offline/main.js",
        "offline/solver.js",
        "offline/wordlist.js",
        "room/board.js",
        "lib/dom.js",
        "profile/sync.js",
    ):
        assert f"/static/js/{module}" in kept
    for url in kept:
        assert Client().get(url).status_code == 200, url


def test_the_module_graph_follows_every_relative_import() -> None:
    graph = shell.module_graph(("js/offline/main.js",))
    assert "js/offline/main.js" in graph and "js/room/format.js" in graph
    assert all(path.startswith("js/") and path.endswith(".js") for path in graph)
    assert "js/room/main.js" not in graph  # the room page's own modules are not kept


def test_every_page_registers_the_service_worker(tiny: Dictionary) -> None:
    for url in ("/", "/offline/", "/solve/", "/profile/"):
        assert "js/keep-offline.js" in Client().get(url).text, url
