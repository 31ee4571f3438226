"""Production static files: collectstatic hashes every file and the imports inside ES modules,
so Daphne (through WhiteNoise) serves a consistent set of modules after each deploy."""

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
