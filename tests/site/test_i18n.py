"""The interface in English, Dutch and French: the catalogues are complete and compile, the
language follows the browser or the page's switch, API errors keep their code and speak
the request's language, and the scripts get their catalogue at /jsi18n/."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from django.test import Client
from django.urls import reverse
from django.utils import translation

from tests.games import ws_helpers
from web import compile_messages, i18n

LOCALE_DIR = Path(__file__).resolve().parents[2] / "locale"
CATALOGUES = sorted(LOCALE_DIR.glob("*/LC_MESSAGES/*.po"))
PLACEHOLDER = re.compile(r"%\(([a-z_]+)\)[sdr]")


@pytest.fixture(autouse=True)
def _english_afterwards() -> Iterator[None]:
    """LocaleMiddleware leaves the last request's language active in the thread: the tests
    after these ones must not run in French."""
    yield
    translation.deactivate()


def catalogue_id(path: Path) -> str:
    return f"{path.parents[1].name}/{path.stem}"


def test_every_language_has_both_catalogues() -> None:
    """Dutch and French, each for the templates and Python (django) and the scripts."""
    assert {catalogue_id(path) for path in CATALOGUES} >= {
        "nl/django",
        "nl/djangojs",
        "fr/django",
        "fr/djangojs",
    }


@pytest.mark.parametrize("path", CATALOGUES, ids=catalogue_id)
def test_catalogue_is_fully_translated(path: Path) -> None:
    """No entry is left untranslated or fuzzy (a fuzzy entry is not compiled: the page
    would show English), and the plural rule is the language's."""
    with path.open("rb") as source:
        catalogue = read_po(source)
    assert not catalogue.fuzzy, "the header is marked fuzzy"
    plural_rule = {"nl": "(n != 1)", "fr": "(n > 1)"}[path.parents[1].name]
    assert catalogue.plural_expr == plural_rule
    untranslated = [
        message.id
        for message in catalogue
        if message.id
        and not (
            (message.string is not None and all(message.string))
            if isinstance(message.id, tuple)
            else message.string
        )
    ]
    fuzzy = [message.id for message in catalogue if message.id and message.fuzzy]
    assert untranslated == []
    assert fuzzy == []


@pytest.mark.parametrize("path", CATALOGUES, ids=catalogue_id)
def test_translations_keep_every_placeholder(path: Path) -> None:
    """Each %(name)s of the English text is in its translation (else formatting fails or a
    number goes missing), and the translation brings no name of its own."""
    with path.open("rb") as source:
        catalogue = read_po(source)
    wrong = []
    for message in catalogue:
        if not message.id:
            continue
        # A plural's id and string are sequences (a tuple, or a list: babel takes both).
        ids = message.id if isinstance(message.id, (tuple, list)) else (message.id,)
        strings = (
            message.string if isinstance(message.string, (tuple, list)) else (message.string or "",)
        )
        wanted = set().union(*(PLACEHOLDER.findall(text) for text in ids))
        for text in strings:
            found = set(PLACEHOLDER.findall(text))
            # A singular may leave the count out ("one word"); nothing else may go.
            if found - wanted or (wanted - found) - {"count"}:
                wrong.append((message.id, text))
    assert wrong == []


# The French "tu" pronouns and possessives as whole words (so "tard", "toit" or "auteur" do
# not count); "ton" and "tes" are only ever "your" here (no "tone"), and "t'" (straight or
# curly apostrophe) is "you" in "l'hôte t'a retiré".
FRENCH_TU = re.compile(r"\b(?:tu|toi|ton|ta|tes|te)\b|\bt['\u2019]", re.IGNORECASE)
FRENCH_CATALOGUES = [path for path in CATALOGUES if path.parents[1].name == "fr"]


def french_tu_forms(path: Path) -> list[str]:
    """The translations in a French catalogue that say "tu" to the player."""
    with path.open("rb") as source:
        catalogue = read_po(source)
    found: list[str] = []
    for message in catalogue:
        if not message.id:  # the header
            continue
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        found += [text for text in strings if isinstance(text, str) and FRENCH_TU.search(text)]
    return found


@pytest.mark.parametrize("path", FRENCH_CATALOGUES, ids=catalogue_id)
def test_french_says_vous_everywhere(path: Path) -> None:
    """The start page says "vous"; every other French text does too, never "tu", "ton",
    "te"... (one voice for the whole site)."""
    assert french_tu_forms(path) == []


@pytest.mark.parametrize("path", CATALOGUES, ids=catalogue_id)
def test_catalogue_compiles(path: Path, tmp_path: Path) -> None:
    """Babel writes a .mo that GNU gettext (Python's reader) loads, with translations."""
    import gettext

    copy = tmp_path / path.parents[1].name / "LC_MESSAGES" / path.name
    copy.parent.mkdir(parents=True)
    copy.write_bytes(path.read_bytes())
    mo_path = compile_messages.compile_catalogue(copy)
    with mo_path.open("rb") as source:
        compiled = gettext.GNUTranslations(source)
    assert compiled.info()["language"] == path.parents[1].name
    # Something in it reads differently from the English.
    with path.open("rb") as source:
        first_id, first_string = next(
            (m.id, m.string) for m in read_po(source) if m.id and isinstance(m.id, str)
        )
    assert compiled.gettext(first_id) == first_string


def test_stale_catalogues_are_compiled_again(tmp_path: Path) -> None:
    """compile_all writes missing or older .mo files and leaves current ones alone."""
    target = tmp_path / "nl" / "LC_MESSAGES"
    target.mkdir(parents=True)
    source = LOCALE_DIR / "nl" / "LC_MESSAGES" / "django.po"
    (target / "django.po").write_bytes(source.read_bytes())

    assert compile_messages.compile_all(tmp_path) == [target / "django.mo"]
    assert compile_messages.compile_all(tmp_path) == []


@pytest.mark.django_db  # the start page lists the dictionaries
def test_browser_language_picks_dutch() -> None:
    """Accept-Language nl: the start page in Dutch, <html lang="nl">, rules text included."""
    response = Client().get(reverse("games:home"), HTTP_ACCEPT_LANGUAGE="nl-NL,nl;q=0.9,en;q=0.5")

    content = response.content.decode()
    assert response.status_code == 200
    assert '<html lang="nl">' in content
    assert "Begin een spel" in content and "Start a game" not in content
    assert "Zo speel je" in content  # How to play
    assert "telt als twee letters" in content  # Qu counts as two letters
    assert "Accept-Language" in response.headers["Vary"]


@pytest.mark.django_db  # the start page lists the dictionaries
def test_an_unknown_language_falls_back_to_english() -> None:
    response = Client().get(reverse("games:home"), HTTP_ACCEPT_LANGUAGE="de-DE,de;q=0.9")

    content = response.content.decode()
    assert '<html lang="en">' in content and "Start a game" in content


@pytest.mark.django_db  # the start page lists the dictionaries
def test_the_switch_sets_the_language_for_the_next_pages() -> None:
    """The page's switch posts to set_language: a cookie, then French whatever the browser
    asks for, and back to the page it came from."""
    client = Client(enforce_csrf_checks=True)
    page = client.get(reverse("games:home"), HTTP_ACCEPT_LANGUAGE="nl")
    form = re.search(
        r'<form class="language-options" action="([^"]+)" method="post">', page.content.decode()
    )
    assert form is not None and form.group(1) == "/i18n/setlang/"
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.content.decode())
    assert token is not None

    response = client.post(
        form.group(1),
        {"language": "fr", "next": "/", "csrfmiddlewaretoken": token.group(1)},
        HTTP_ACCEPT_LANGUAGE="nl",
    )

    assert response.status_code == 302 and response.headers["Location"] == "/"
    assert client.cookies["django_language"].value == "fr"
    content = client.get("/", HTTP_ACCEPT_LANGUAGE="nl").content.decode()
    assert '<html lang="fr">' in content and "Lancer une partie" in content


@pytest.mark.django_db  # the start page lists the dictionaries
@pytest.mark.parametrize("page_language", ["en", "nl", "fr"])
def test_the_switch_offers_each_language_in_its_own_name(page_language: str) -> None:
    """Whatever the page's language: English, Nederlands, Français (not "Anglais")."""
    content = Client().get("/", HTTP_ACCEPT_LANGUAGE=page_language).content.decode()

    for code, name in (("en", "English"), ("nl", "Nederlands"), ("fr", "Français")):
        assert f'value="{code}" lang="{code}"' in content and f">{name}</button>" in content
    assert f'value="{page_language}" lang="{page_language}" aria-current="true"' in content


@pytest.mark.django_db
def test_an_api_error_speaks_the_request_language_and_keeps_its_code() -> None:
    """The same refusal in English and in French: the code is the same, the message not."""
    body = json.dumps({"nickname": "   "})

    english = Client().post("/api/rooms", body, content_type="application/json")
    french = Client().post(
        "/api/rooms", body, content_type="application/json", HTTP_ACCEPT_LANGUAGE="fr-FR,fr"
    )

    assert english.status_code == french.status_code == 400
    assert english.json()["error"] == {"code": "invalid", "message": "pick a nickname"}
    assert french.json()["error"] == {"code": "invalid", "message": "choisissez un pseudo"}


@pytest.mark.django_db
def test_a_missing_room_is_refused_in_dutch() -> None:
    response = Client().get("/api/rooms/zzzzzzzz", HTTP_ACCEPT_LANGUAGE="nl")

    assert response.status_code == 404
    error = response.json()["error"]
    assert error["code"] == "room_not_found"
    assert error["message"].startswith("er is geen kamer 'zzzzzzzz'")


@pytest.mark.django_db(transaction=True)
async def test_websocket_errors_follow_the_page_language() -> None:
    """A socket opened from a French page gets its refusals in French, same code."""
    try:
        host = await ws_helpers.create_room("Ann")
        comm = await ws_helpers.open_socket(
            host.code, host.token, headers=[(b"accept-language", b"fr-FR,fr;q=0.9")]
        )
        assert (await ws_helpers.receive(comm))["type"] == "state"

        error = await ws_helpers.submit(comm, "word")
    finally:
        await ws_helpers.tear_down()

    assert error["type"] == "error" and error["code"] == "wrong_round_state"
    assert error["message"] == "aucune manche n'est en cours ; attendez que l'hôte en lance une"


def test_the_cookie_wins_over_accept_language_on_websockets() -> None:
    headers = {"cookie": "sessionid=x; django_language=nl", "accept-language": "fr"}

    assert i18n.language_from_headers(headers) == "nl"
    assert i18n.language_from_headers({"accept-language": "fr-CA,en;q=0.5"}) == "fr"
    assert i18n.language_from_headers({"accept-language": "de", "cookie": "bad=\x00"}) == "en"


def test_the_script_catalogue_answers_in_dutch() -> None:
    """/jsi18n/ gives the scripts' strings in the page's language, allowed by the policy
    (a script from the site itself), cacheable by the browser."""
    response = Client().get("/jsi18n/?l=nl", HTTP_ACCEPT_LANGUAGE="nl")

    text = response.content.decode()
    assert response.status_code == 200
    assert response.headers["Content-Type"].startswith("text/javascript")
    assert "script-src 'self'" in response.headers["Content-Security-Policy"]
    assert "max-age=" in response.headers["Cache-Control"]
    assert '"Start round %(number)s": "Start ronde %(number)s"' in text
    assert '"Time left": "Resterende tijd"' in text
    assert "(n != 1)" in text  # the Dutch plural rule


@pytest.mark.django_db  # the start page lists the dictionaries
def test_every_page_loads_the_catalogue_before_its_modules() -> None:
    """base.html: the classic catalogue script comes before the module scripts, and its
    address names the language (a switch must not reuse the other language's copy)."""
    with translation.override("fr"):
        content = Client().get("/", HTTP_ACCEPT_LANGUAGE="fr").content.decode()

    catalogue = content.index('<script src="/jsi18n/?l=fr"></script>')
    assert catalogue < content.index('type="module"')


def test_verdict_reasons_are_translated_at_the_adapter() -> None:
    """solver/ stays Django-free with its English reasons; games.messages says them in the
    active language, and in English exactly as the solver does."""
    from games.messages import verdict_text
    from solver.judge import Verdict

    with translation.override("en"):
        for verdict in Verdict:
            assert verdict_text(verdict) == verdict.message
    with translation.override("nl"):
        assert verdict_text(Verdict.NOT_IN_DICTIONARY) == "niet in het woordenboek"
    with translation.override("fr"):
        assert verdict_text(Verdict.TOO_SHORT) == "trop court"


def test_photo_failures_carry_a_code_for_the_pages() -> None:
    """board.unreadable goes to the whole room in English; its code (and numbers) let each
    page say it in its own language (static/js/room/photo.js)."""
    from photos.reading import failure_details
    from vision.errors import ClutteredPhotoError, DiceCountError, DiceTooSmallError, ModelError

    assert failure_details(DiceCountError(14, (16, 25, 36))) == {
        "code": "dice_count",
        "found": 14,
        "expected": [16, 25, 36],
    }
    assert failure_details(ClutteredPhotoError("many dice"))["code"] == "cluttered"
    assert failure_details(DiceTooSmallError(9.0))["code"] == "dice_too_small"
    assert failure_details(ModelError("missing"))["code"] == "unavailable"


def test_the_photo_page_knows_every_failure_code() -> None:
    """Each code photos.reading can send has its translated text in photo.js."""
    from photos import reading

    script = (LOCALE_DIR.parent / "static" / "js" / "room" / "photo.js").read_text()
    codes = {code for _kind, code in reading._FAILURE_CODES} | {"lost", "failed"}
    for code in codes:
        assert re.search(rf"\b{code}: ", script), code
