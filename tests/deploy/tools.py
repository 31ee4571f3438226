"""The system tools deploy/'s tests run (systemd's, nginx, logrotate): without one a test
skips, saying which, except under CI=true, where it fails (bin/test installs them)."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.photo_data import missing


def require_tool(name: str) -> str:
    """The path of the command ``name`` (also looked for in /usr/sbin, which a root-less
    PATH leaves out), or skip."""
    found = shutil.which(name) or next(
        (str(path) for path in (Path("/usr/sbin") / name, Path("/sbin") / name) if path.exists()),
        None,
    )
    if found is None:
        missing(f"{name} is not installed (Debian: bin/test installs it as root)")
    return found
