"""The dictionary admin: staff only, uploads checked on the form, the change page (status,
report, versions, rounds), the look-up box with its add and remove buttons, "recompile"."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from django.contrib.auth.models import Permission, User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from dictionaries.models import Dictionary
from tests.dictionaries.helpers import TINY_LIST, TINY_WORDS, current_version

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/dictionaries/dictionary/"
ADD = "/admin/dictionaries/dictionary/add/"


def change_url(dictionary: Dictionary) -> str:
    return f"/admin/dictionaries/dictionary/{dictionary.pk}/change/"


def words_url(dictionary: Dictionary) -> str:
    return f"/admin/dictionaries/dictionary/{dictionary.pk}/words/"


def form_data(dictionary: Dictionary | None = None, **changes) -> dict:
    """The change form's fields as the browser posts them (no edits inline rows)."""
    data = {
        "name": "tiny",
        "title": "Tiny",
        "language": "en",
        "description": "",
        "source": "tests",
        "licence": "",
        "enabled": "on",
        "named_list": "",
        "min_length": 3,
        "max_length": 36,
        "qu_rule": "on",
        "alphabet": "abcdefghijklmnopqrstuvwxyz",
        "edits-TOTAL_FORMS": 0,
        "edits-INITIAL_FORMS": 0,
        "edits-MIN_NUM_FORMS": 0,
        "edits-MAX_NUM_FORMS": 1000,
    }
    if dictionary is not None:
        data.update(name=dictionary.name, title=dictionary.title)
        if dictionary.is_default:
            data["is_default"] = "on"
        if dictionary.fold_accents:
            data["fold_accents"] = "on"
    data.update(changes)
    return {key: value for key, value in data.items() if value is not None}


def upload(content: bytes, name: str = "words.txt") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, content, content_type="text/plain")


def add_tiny(staff: Client, django_capture_on_commit_callbacks, **changes) -> Dictionary:
    with django_capture_on_commit_callbacks(execute=True):
        response = staff.post(ADD, form_data(word_list=upload(TINY_LIST.encode()), **changes))
    assert response.status_code == 302, response.content.decode()[:3000]
    return Dictionary.objects.get(name=changes.get("name", "tiny"))


# ---------------------------------------------------------------- who gets in


@pytest.mark.parametrize("path", [CHANGELIST, ADD, "/admin/games/challenge/"])
def test_anonymous_and_non_staff_users_are_sent_to_the_login(path):
    """Not logged in, or logged in without staff status: 302 to the admin login."""
    anonymous = Client()
    member = Client()
    member.force_login(User.objects.create_user("bob", password="pw"))
    for client in (anonymous, member):
        response = client.get(path)
        assert response.status_code == 302
        assert response["Location"].startswith("/admin/login/")


def test_the_look_up_box_is_staff_only(dictionary_dir: Path, tiny):
    """Posting to a dictionary's words view without staff status goes to the login."""
    member = Client()
    member.force_login(User.objects.create_user("bob", password="pw"))
    response = member.post(words_url(tiny), {"word": "zorb", "do": "add"})
    assert response.status_code == 302 and response["Location"].startswith("/admin/login/")
    assert not tiny.edits.exists()


def test_staff_need_the_dictionary_permissions(dictionary_dir: Path, tiny):
    """Staff without permissions get 403; with "view" they may look words up, not edit."""
    user = User.objects.create_user("clerk", password="pw", is_staff=True)
    client = Client()
    client.force_login(user)
    assert client.get(CHANGELIST).status_code == 403
    user.user_permissions.add(Permission.objects.get(codename="view_dictionary"))
    assert client.get(change_url(tiny)).status_code == 200
    response = client.post(words_url(tiny), {"word": "cats", "do": "lookup"}, follow=True)
    assert "&#x27;cats&#x27; is in tiny" in response.content.decode()
    assert client.post(words_url(tiny), {"word": "zorb", "do": "add"}).status_code == 403
    assert not tiny.edits.exists()


# ---------------------------------------------------------------- uploading through the form


def test_adding_a_dictionary_with_an_upload_compiles_it(
    dictionary_dir: Path, staff, django_capture_on_commit_callbacks
):
    """The add form stores the upload and compiles it (eager task after commit); the
    change page then shows the status, the report with examples, and the version."""
    tiny = add_tiny(staff, django_capture_on_commit_callbacks)
    assert tiny.status == Dictionary.Status.READY
    assert current_version(tiny).word_count == len(TINY_WORDS)
    page = staff.get(change_url(tiny)).content.decode()
    assert "ready" in page
    assert "dropped: proper noun (capitalised)" in page and "Paris" in page
    assert "dropped: q not followed by u" in page and "qat" in page
    assert current_version(tiny).digest[:16] in page
    assert "Look a word up" in page
    assert 'http-equiv="refresh"' not in page  # only while compiling


@pytest.mark.parametrize(
    ("content", "name", "error"),
    [
        (b"\x00\x01binary\x00", "words.bin", "this is a binary file, not a word list"),
        (b"\x1f\x8b\x08\x00 broken", "words.gz", "the gzip file is corrupt"),
        (b"", "empty.txt", "The submitted file is empty."),
        (b"# nothing\nParis\nqat\n", "junk.txt", "no usable words under these rules"),
    ],
)
def test_a_broken_upload_is_a_form_error_and_changes_nothing(
    dictionary_dir: Path, staff, tiny, content, name, error
):
    """The form says what is wrong; the dictionary keeps its upload and version."""
    version, stored = tiny.current_version, tiny.upload
    response = staff.post(change_url(tiny), form_data(tiny, word_list=upload(content, name)))
    assert response.status_code == 200
    assert error in response.content.decode()
    tiny.refresh_from_db()
    assert (tiny.current_version, tiny.upload, tiny.status) == (version, stored, "ready")


def test_an_oversize_upload_is_a_form_error(dictionary_dir: Path, staff, tiny, monkeypatch):
    """Larger than the limit (20 MiB, lowered here): refused before reading; the form's
    help text says the limit."""
    from dictionaries import services

    assert "At most 20 MiB uploaded" in staff.get(change_url(tiny)).content.decode()
    monkeypatch.setattr(services, "MAX_UPLOAD_BYTES", 100)
    version, stored = tiny.current_version, tiny.upload
    response = staff.post(change_url(tiny), form_data(tiny, word_list=upload(b"word\n" * 50)))
    assert "the file is larger than 0 MiB" in response.content.decode()
    tiny.refresh_from_db()
    assert (tiny.current_version, tiny.upload) == (version, stored)


def random_bytes_without_nul(size: int, seed: int = 3) -> bytes:
    import random

    rng = random.Random(seed)
    return bytes(rng.randrange(1, 256) for _ in range(size))


@pytest.mark.parametrize(
    ("content", "error"),
    [
        (random_bytes_without_nul(50_000), "not a text word list"),
        (gzip.compress(random_bytes_without_nul(50_000)), "not a text word list"),
        (b"cat\ndog\n" + b"x" * 200 + b"\n", "line 3 is 200 characters long"),
        (b"cat\n12\n$$\n%%\n", "only 1 of 4 lines (25%) look like words"),
    ],
)
def test_an_upload_that_is_not_a_word_list_is_a_form_error(
    dictionary_dir: Path, staff, tiny, content, error, django_capture_on_commit_callbacks
):
    """Random binary without NUL bytes (once "ready" with one word), long lines, junk."""
    version, stored = tiny.current_version, tiny.upload
    with django_capture_on_commit_callbacks(execute=True):
        response = staff.post(change_url(tiny), form_data(tiny, word_list=upload(content)))
    assert response.status_code == 200
    assert error in response.content.decode()
    tiny.refresh_from_db()
    assert (tiny.current_version, tiny.upload, tiny.status) == (version, stored, "ready")


def test_the_request_does_not_wait_for_the_compile(
    dictionary_dir: Path,
    staff,
    tiny,
    compile_at_once,
    monkeypatch,
    django_capture_on_commit_callbacks,
):
    """With tasks run eagerly (no broker), saving an upload answers at once: the compile
    runs in the background, and the old version is played until it is done."""
    from dictionaries import services

    queued: list = []
    monkeypatch.setattr(services, "run_in_background", queued.append)
    old = tiny.current_version
    with django_capture_on_commit_callbacks(execute=True):
        response = staff.post(
            change_url(tiny), form_data(tiny, word_list=upload(b"zebra\nzebras\nquiet\n"))
        )
    assert response.status_code == 302
    tiny.refresh_from_db()
    assert tiny.status == Dictionary.Status.COMPILING and tiny.current_version == old
    assert services.current_version("tiny") == old
    assert "compiling…" in staff.get(change_url(tiny)).content.decode()
    (work,) = queued
    work()
    tiny.refresh_from_db()
    assert tiny.status == Dictionary.Status.READY
    assert tiny.current_version.word_count == 3


def test_a_problem_past_the_quick_check_fails_the_compile_and_keeps_the_version(
    dictionary_dir: Path, staff, tiny, monkeypatch, django_capture_on_commit_callbacks
):
    """The form checks the first lines; the background compile checks them all and the
    page says why it failed, with the previous version still in use."""
    from solver import compiler

    monkeypatch.setattr(compiler, "SAMPLE_LINES", 3)
    old = tiny.current_version
    content = b"cat\ndog\nwent\nzebra\n" + b"\x01\x02junk\n"
    with django_capture_on_commit_callbacks(execute=True):
        response = staff.post(change_url(tiny), form_data(tiny, word_list=upload(content)))
    assert response.status_code == 302
    tiny.refresh_from_db()
    assert tiny.status == Dictionary.Status.FAILED and tiny.current_version == old
    page = staff.get(change_url(tiny)).content.decode()
    assert "failed: the uploaded list words.txt was not used: line 5 has a control" in page
    assert "the previous version stays in use" in page
    assert tiny.upload_name == "tiny.txt"  # the list in use is still the old one
    assert services_current("tiny") == old


def services_current(name: str):
    from dictionaries import services

    return services.current_version(name)


def test_a_new_gzip_upload_replaces_the_list(
    dictionary_dir: Path, staff, tiny, django_capture_on_commit_callbacks
):
    """Uploading a gzip list on the change page compiles a new version and switches."""
    old = tiny.current_version
    with django_capture_on_commit_callbacks(execute=True):
        response = staff.post(
            change_url(tiny),
            form_data(tiny, word_list=upload(gzip.compress(b"gode\nwego\n"), "new.txt.gz")),
        )
    assert response.status_code == 302
    tiny.refresh_from_db()
    assert tiny.current_version != old and tiny.current_version.word_count == 2
    assert tiny.upload_name == "new.txt.gz"


def test_a_dictionary_keeps_its_name(dictionary_dir: Path, staff, tiny):
    """Rooms refer to a dictionary by name, so the change page shows it read-only and
    ignores a posted one."""
    assert 'name="name"' not in staff.get(change_url(tiny)).content.decode()
    response = staff.post(change_url(tiny), form_data(tiny, name="renamed", title="Tiny 2"))
    assert response.status_code == 302
    tiny.refresh_from_db()
    assert (tiny.name, tiny.title) == ("tiny", "Tiny 2")


def test_a_dictionary_needs_a_word_list(dictionary_dir: Path, staff):
    """Neither an upload nor a named list: a form error."""
    response = staff.post(ADD, form_data(name="nothing"))
    assert "upload a word list (or choose a named list)" in response.content.decode()
    assert not Dictionary.objects.filter(name="nothing").exists()


def test_bad_rules_are_form_errors(dictionary_dir: Path, staff, tiny):
    """An upper-case alphabet or a minimum above the maximum is refused by the form."""
    page = staff.post(change_url(tiny), form_data(tiny, alphabet="ABC")).content.decode()
    assert "the alphabet must be lower-case" in page
    page = staff.post(change_url(tiny), form_data(tiny, min_length=9, max_length=4)).content
    assert b"need 1 &lt;= min_length &lt;= max_length" in page


def test_the_default_cannot_be_unset_or_deleted(staff):
    """Unticking "default" on the default is refused (make another the default instead),
    and the default has no delete button."""
    english = Dictionary.objects.get(name="english")
    data = form_data(english, named_list="english", is_default=None)
    response = staff.post(change_url(english), data)
    assert "make another one the default instead" in response.content.decode()
    assert Dictionary.objects.get(name="english").is_default
    assert staff.get(f"/admin/dictionaries/dictionary/{english.pk}/delete/").status_code == 403


def test_making_another_dictionary_the_default(
    dictionary_dir: Path, staff, tiny, django_capture_on_commit_callbacks
):
    """Ticking "default" on another dictionary moves the default there: still exactly one."""
    with django_capture_on_commit_callbacks(execute=True):
        response = staff.post(change_url(tiny), form_data(tiny, is_default="on"))
    assert response.status_code == 302
    assert list(Dictionary.objects.filter(is_default=True).values_list("name", flat=True)) == [
        "tiny"
    ]


# ---------------------------------------------------------------- the look-up box and edits


def test_looking_words_up(dictionary_dir: Path, staff, tiny):
    """In, and not in with the reason."""
    for word, expected in (
        ("Cats", "&#x27;Cats&#x27; is in tiny: &#x27;cats&#x27; is in the dictionary"),
        ("zorb", "&#x27;zorb&#x27; is not in tiny: &#x27;zorb&#x27; is not in the word list"),
        ("qat", "&#x27;qat&#x27; is not in tiny: q not followed by u"),
    ):
        response = staff.post(words_url(tiny), {"word": word, "do": "lookup"}, follow=True)
        assert expected in response.content.decode()


def test_adding_and_removing_a_word_from_the_box(
    dictionary_dir: Path, staff, tiny, django_capture_on_commit_callbacks
):
    """Add: an edit row and a recompiled version with the word; remove: without it."""
    with django_capture_on_commit_callbacks(execute=True):
        response = staff.post(
            words_url(tiny), {"word": "Zorb", "do": "add", "note": "house rule"}, follow=True
        )
    # The message says "recompiled" when the eager task has run by then, as in a real
    # request; this test runs the task at the end of the block, so it says "compiling…".
    assert "&#x27;zorb&#x27; added to tiny" in response.content.decode()
    edit = tiny.edits.get()
    assert (edit.word, edit.action, edit.note, edit.created_by.username) == (
        "zorb",
        "add",
        "house rule",
        "root",
    )
    tiny.refresh_from_db()
    assert tiny.current_version.word_count == len(TINY_WORDS) + 1
    with django_capture_on_commit_callbacks(execute=True):
        staff.post(words_url(tiny), {"word": "zebra", "do": "remove"})
    tiny.refresh_from_db()
    assert tiny.current_version.word_count == len(TINY_WORDS)
    page = staff.get(change_url(tiny)).content.decode()
    assert "edits: added" in page and "edits: removed" in page


def test_a_word_the_rules_refuse_is_not_added(dictionary_dir: Path, staff, tiny):
    """A word too short for this dictionary ("ox"): an error message, no edit."""
    response = staff.post(words_url(tiny), {"word": "ox", "do": "add"}, follow=True)
    assert "cannot be a word of tiny: too short" in response.content.decode()
    assert not tiny.edits.exists()


def test_edits_through_the_inline_are_normalised_and_recompile(
    dictionary_dir: Path, staff, tiny, django_capture_on_commit_callbacks
):
    """A row added in the edits table is stored lower-case and triggers a compile."""
    data = form_data(
        tiny,
        **{
            "edits-TOTAL_FORMS": 1,
            "edits-0-word": "WEGO",
            "edits-0-action": "add",
            "edits-0-note": "",
        },
    )
    with django_capture_on_commit_callbacks(execute=True):
        response = staff.post(change_url(tiny), data)
    assert response.status_code == 302, response.content.decode()[:2000]
    assert list(tiny.edits.values_list("word", flat=True)) == ["wego"]
    tiny.refresh_from_db()
    assert tiny.current_version.word_count == len(TINY_WORDS) + 1


def test_the_recompile_action(
    dictionary_dir: Path, staff, tiny, django_capture_on_commit_callbacks
):
    """The changelist action queues a compile per selected dictionary."""
    revision = tiny.revision
    with django_capture_on_commit_callbacks(execute=True):
        response = staff.post(
            CHANGELIST, {"action": "recompile", "_selected_action": [tiny.pk]}, follow=True
        )
    assert "Compiling: tiny." in response.content.decode()
    tiny.refresh_from_db()
    assert tiny.revision == revision + 1 and tiny.status == Dictionary.Status.READY


def test_a_compiling_dictionary_page_reloads_and_says_so(dictionary_dir: Path, staff, tiny):
    """While a compile runs the page shows "compiling…" and refreshes itself."""
    Dictionary.objects.filter(pk=tiny.pk).update(status=Dictionary.Status.COMPILING)
    page = staff.get(change_url(tiny)).content.decode()
    assert "compiling…" in page and 'http-equiv="refresh"' in page


def test_a_failed_compile_shows_its_reason(dictionary_dir: Path, staff, tiny):
    """The status line says why, and that the previous version stays in use."""
    Dictionary.objects.filter(pk=tiny.pk).update(
        status=Dictionary.Status.FAILED, status_message="this is a binary file"
    )
    page = staff.get(change_url(tiny)).content.decode()
    assert "failed: this is a binary file; the previous version stays in use" in page
    listing = staff.get(CHANGELIST + "?status__exact=failed").content.decode()
    assert "tiny" in listing
