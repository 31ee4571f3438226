"""Production static files: collectstatic hashes every file and the imports inside ES modules,
so Daphne (through WhiteNoise) serves a consistent set of modules after each deploy."""

import json
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent

COLLECT = """
import os, sys
os.environ["DJANGO_SETTINGS_MODULE"] = "boggle_site.settings"
import django
from django.conf import settings
django.setup()
settings.STATIC_ROOT = sys.argv[1]
from django.core.management import call_command
call_command("collectstatic", interactive=False, verbosity=0)
"""


def test_collectstatic_hashes_module_imports(tmp_path: Path) -> None:
    """Every relative import in the collected room script names a hashed file that exists."""
    env = {"DJANGO_SECRET_KEY": "test-only", "DJANGO_DEBUG": "0", "PATH": "/usr/bin:/bin"}
    subprocess.run(
        [sys.executable, "-c", COLLECT, str(tmp_path)], cwd=REPO, env=env, check=True, timeout=120
    )
    mains = list((tmp_path / "js" / "room").glob("main.*.js"))
    assert len(mains) == 1, mains
    imports = re.findall(r'from "(\.[^"]+)"', mains[0].read_text())
    assert imports
    for target in imports:
        assert re.search(r"\.[0-9a-f]{12}\.m?js$", target), target
        assert (mains[0].parent / target).resolve().exists(), target


SHELL = (
    COLLECT
    + """
import json
from offline import shell
print(json.dumps(shell.shell()[0]))
"""
)


def test_the_service_worker_keeps_the_hashed_files_the_pages_load(tmp_path: Path) -> None:
    """In production the worker's list (offline.shell) names the hashed files, and every
    module offline practice loads, followed through its hashed imports, is on it."""
    env = {"DJANGO_SECRET_KEY": "test-only", "DJANGO_DEBUG": "0", "PATH": "/usr/bin:/bin"}
    listed = subprocess.run(
        [sys.executable, "-c", SHELL, str(tmp_path)],
        cwd=REPO, env=env, check=True, timeout=120, capture_output=True, text=True,
    )  # fmt: skip
    kept = set(json.loads(listed.stdout.strip().splitlines()[-1]))
    files = {url.removeprefix("/static/") for url in kept if url.startswith("/static/")}
    assert all(re.search(r"\.[0-9a-f]{12}\.", name) for name in files), files
    assert all((tmp_path / name).exists() for name in files)
    mains = [name for name in files if re.fullmatch(r"js/offline/main\.[0-9a-f]{12}\.js", name)]
    assert len(mains) == 1, mains
    waiting, seen = [tmp_path / mains[0]], set()
    while waiting:
        module = waiting.pop()
        if module in seen:
            continue
        seen.add(module)
        relative = module.relative_to(tmp_path).as_posix()
        assert relative in files, f"{relative} is loaded but not kept"
        for target in re.findall(r'from "(\.[^"]+)"', module.read_text()):
            waiting.append((module.parent / target).resolve())
    assert len(seen) > 10
