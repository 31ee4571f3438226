"""The pages' ``<link rel="modulepreload">`` hints (offline/templatetags/modulepreload.py):
one in the head for every ES module a page loads, found by the service worker's walk of the
imports (offline.shell.module_graph), at the addresses the browser asks for, in development
(plain names) and in production (hashed names from collectstatic's manifest)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from django.templatetags.static import static
from django.test import Client, override_settings

from offline.shell import module_graph

pytestmark = pytest.mark.django_db

REPO = Path(__file__).resolve().parent.parent.parent
# base.html's modules, on every page.
BASE = ("js/language-menu.js", "js/keep-offline.js")
ROOM = ("js/room/main.js", "js/daily-room.js")
HINT = re.compile(r'<link rel="modulepreload" href="([^"]+)">')
SCRIPT = re.compile(r'<script type="module" src="([^"]+)">')


def new_room(client: Client) -> str:
    created = client.post(
        "/api/rooms", json.dumps({"nickname": "Ann"}), content_type="application/json"
    )
    assert created.status_code == 201, created.content
    return created.json()["room"]["code"]


def hints(html: str) -> list[str]:
    """The hinted addresses, which must all be in the head."""
    head, body = html.split("</head>", 1)
    assert not HINT.search(body), "a modulepreload link outside the head"
    return HINT.findall(head)


def expected(*entries: str) -> set[str]:
    return {static(path) for path in module_graph((*entries, *BASE))}


def test_the_room_page_hints_every_module_it_loads_once_each() -> None:
    client = Client()
    page = client.get(f"/r/{new_room(client)}/")
    assert page.status_code == 200
    html = page.content.decode()
    listed = hints(html)

    assert set(listed) == expected(*ROOM)
    assert len(listed) > 40
    assert not [url for url, times in Counter(listed).items() if times > 1]
    # The page's own script tags are among them, as the browser asks for them.
    assert set(SCRIPT.findall(html)) <= set(listed)
    for url in listed:
        answer = client.get(url)
        assert answer.status_code == 200, url
        assert "javascript" in answer["Content-Type"], (url, answer["Content-Type"])


@pytest.mark.parametrize(
    ("path", "entries"),
    [
        ("/", ("js/home.js",)),
        ("/offline/", ("js/offline/main.js",)),
        ("/profile/", ("js/profile/main.js",)),
        ("/solve/", ("js/solve/main.js",)),
        ("/r/{code}/table/", ("js/table/main.js",)),
    ],
)
def test_the_other_pages_hint_their_modules(path: str, entries: tuple[str, ...]) -> None:
    client = Client()
    page = client.get(path.format(code=new_room(client)) if "{code}" in path else path)
    assert page.status_code == 200
    listed = hints(page.content.decode())
    assert set(listed) == expected(*entries)
    assert len(listed) == len(set(listed))


@override_settings(BOGGLE_MODULEPRELOAD=False)
def test_no_hints_when_switched_off() -> None:
    client = Client()
    html = client.get(f"/r/{new_room(client)}/").content.decode()
    assert "modulepreload" not in html
    assert "js/room/main.js" in html


PRODUCTION = """
import json, os, sys
os.environ["DJANGO_SETTINGS_MODULE"] = "boggle_site.settings"
import django
from django.conf import settings
django.setup()
settings.STATIC_ROOT = sys.argv[1]
from django.core.management import call_command
call_command("collectstatic", interactive=False, verbosity=0)
call_command("migrate", interactive=False, verbosity=0)
from django.test import Client
client = Client()
created = client.post("/api/rooms", json.dumps({"nickname": "Ann"}), content_type="application/json")
page = client.get("/r/%s/" % created.json()["room"]["code"])
statuses = {}
html = page.content.decode()
import re
for url in re.findall(r'<link rel="modulepreload" href="([^"]+)">', html):
    statuses[url] = client.get(url).status_code
print(json.dumps({"status": page.status_code, "html": html, "statuses": statuses}))
"""


def test_in_production_the_hints_name_the_hashed_files_the_page_loads(tmp_path: Path) -> None:
    """DEBUG off, static files collected: each hint is a hashed file that exists and
    answers, and they are exactly the modules the page's hashed scripts load, followed
    through their hashed imports."""
    static_root = tmp_path / "static"
    env = {
        "DJANGO_SECRET_KEY": "test-only",
        "DJANGO_DEBUG": "0",
        "DJANGO_ALLOWED_HOSTS": "testserver",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "PATH": "/usr/bin:/bin",
    }
    run = subprocess.run(
        [sys.executable, "-c", PRODUCTION, str(static_root)],
        cwd=REPO, env=env, check=True, timeout=300, capture_output=True, text=True,
    )  # fmt: skip
    answer = json.loads(run.stdout.strip().splitlines()[-1])
    assert answer["status"] == 200
    listed = hints(answer["html"])
    assert len(listed) == len(set(listed)) > 40
    assert set(answer["statuses"].values()) == {200}, answer["statuses"]
    files = {url.removeprefix("/static/") for url in listed}
    assert all(url.startswith("/static/") for url in listed), listed
    assert all(re.search(r"\.[0-9a-f]{12}\.m?js$", name) for name in files), files
    assert all((static_root / name).is_file() for name in files)

    # What the browser loads: the page's (hashed) scripts and their (hashed) imports.
    scripts = SCRIPT.findall(answer["html"])
    assert len(scripts) == len(ROOM) + len(BASE)
    waiting = [(static_root / url.removeprefix("/static/")).resolve() for url in scripts]
    loaded: set[Path] = set()
    while waiting:
        module = waiting.pop()
        if module in loaded:
            continue
        loaded.add(module)
        for target in re.findall(r"""(?:from|import)\s*["'](\.[^"']+)["']""", module.read_text()):
            waiting.append((module.parent / target).resolve())
    assert {module.relative_to(static_root.resolve()).as_posix() for module in loaded} == files
