"""The site's own account for ``bin/start --production`` started as root (issue 49, item 8).

As root, the Daphnes (which decode untrusted images), the workers, beat and the stack's
Redis run as the system user ``boggle`` (``ensure``), never as root; nginx's master stays
root for its port and its workers are www-data. What those processes write (photos,
compiled dictionaries, definitions, beat's schedule, Redis's data) is handed to that user
(``hand_over``: 0750 folders, 0640 files); what they only read (the checkout, its .venv,
the static files) is shared with its group (``share_checkout``), never made writable.
``check`` tries, as that user, what the processes will do, and says what to change when it
cannot. Started as anyone else, everything runs as that user, as before.
"""

from __future__ import annotations

import contextlib
import grp
import json
import os
import pwd
import stat
import subprocess
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from production.render import REPO

SITE_USER = "boggle"
NO_HOME = "/nonexistent"  # Debian's home for system users that have none
# Left out of share_checkout: var/ holds secrets and the site's data (handled one by one),
# .git is not needed to run.
NOT_SHARED = {"var", ".git"}
# What each process must import (the check's last line, run with the site's Python).
IMPORTS = ("django", "daphne", "celery", "channels_redis", "psycopg", "redis")


class SiteUserError(RuntimeError):
    """The site's user cannot do what the stack needs; the message says what to change."""


@dataclass(frozen=True)
class Account:
    name: str
    uid: int
    gid: int


def as_root() -> bool:
    return os.geteuid() == 0


def ensure(name: str = SITE_USER) -> Account:
    """The system user and group ``name``, created when missing (idempotent): no home,
    no login shell."""
    if not _exists(name):
        has_group = _group_exists(name)
        command = [
            "useradd",
            "--system",
            "--no-create-home",
            "--home-dir",
            NO_HOME,
            "--shell",
            "/usr/sbin/nologin",
            *(["--gid", name] if has_group else ["--user-group"]),
            name,
        ]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        # Another start may have created it meanwhile: only its absence is a failure.
        if done.returncode != 0 and not _exists(name):
            raise SiteUserError(f"could not create the user {name}: {done.stderr.strip()}")
        print(f"System user {name} created: the site's processes run as it, not as root")
    entry = pwd.getpwnam(name)
    return Account(name, entry.pw_uid, entry.pw_gid)


def _exists(name: str) -> bool:
    try:
        pwd.getpwnam(name)
    except KeyError:
        return False
    return True


def _group_exists(name: str) -> bool:
    try:
        grp.getgrnam(name)
    except KeyError:
        return False
    return True


def share_checkout(account: Account) -> None:
    """The checkout, its .venv and var/static readable by ``account``'s group: their group
    becomes its (modes unchanged, so a 0600 file such as var/secret_key stays root's;
    nothing becomes writable). var/ itself only lets it through to its own folders."""
    shared = [REPO / "var" / "static"] + [
        path for path in REPO.iterdir() if path.name not in NOT_SHARED
    ]
    for path in (REPO, REPO / "var"):
        if path.exists():
            os.chown(path, -1, account.gid, follow_symlinks=False)
    existing = [str(path) for path in shared if path.exists() or path.is_symlink()]
    # chgrp's own walk: some 50,000 files (the .venv) in a quarter of a second. A file
    # that vanished meanwhile is no failure: ``check`` finds what the site cannot read.
    done = subprocess.run(
        ["chgrp", "-R", "-h", "--", str(account.gid), *existing],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        print(f"chgrp {account.name}: {done.stderr.strip()[:500]}", file=sys.stderr)


def hand_over(folder: Path, account: Account, *, ours: bool) -> None:
    """``folder`` the site's own (created if missing, 0750): a folder bin/start keeps
    (``ours``: under var/) is given to ``account`` with all it holds, made private (0750
    folders, 0640 files); an operator's folder that exists is left as it is (``check``
    says when the site cannot write there)."""
    if not folder.exists():
        folder.mkdir(parents=True, mode=0o750)
        os.chown(folder, account.uid, account.gid)
    elif ours:
        for path in _walk(folder):
            with contextlib.suppress(FileNotFoundError):  # removed meanwhile: nothing to give
                os.chown(path, account.uid, account.gid, follow_symlinks=False)
                mode = path.lstat().st_mode
                if not stat.S_ISLNK(mode):
                    path.chmod(stat.S_IMODE(mode) & ~0o027)


def _walk(folder: Path) -> Iterable[Path]:
    yield folder
    for root, folders, files in os.walk(folder):
        for name in (*folders, *files):
            yield Path(root) / name


def private_file(path: Path, account: Account | None) -> None:
    """A file of secrets: 0640 root:<the site's group> as root, else 0600 the user's own."""
    if account is None:
        path.chmod(0o600)
    else:
        os.chown(path, 0, account.gid)
        path.chmod(0o640)


CHECK_SCRIPT = """
import json, os, sys
wanted = json.loads(sys.argv[1])
problems = [f"cannot read {path}" for path in wanted["read"] if not os.access(path, os.R_OK)]
problems += [
    f"cannot write in {path}" for path in wanted["write"] if not os.access(path, os.W_OK | os.X_OK)
]
for name in wanted["import"]:
    try:
        __import__(name)
    except Exception as error:
        problems.append(f"cannot import {name} from {sys.prefix}: {error}")
print("\\n".join(problems))
sys.exit(1 if problems else 0)
"""


def check(account: Account, readable: Iterable[Path], writable: Iterable[Path]) -> None:
    """Try, as ``account``, to read ``readable`` and the checkout, write in ``writable``
    and import the site's packages with its Python. Raises SiteUserError naming what to
    change."""
    wanted = {
        "read": [str(REPO / "manage.py"), *map(str, readable)],
        "write": [str(path) for path in writable],
        "import": list(IMPORTS),
    }
    try:
        done = subprocess.run(
            [sys.executable, "-c", CHECK_SCRIPT, json.dumps(wanted)],
            cwd="/",
            capture_output=True,
            text=True,
            check=False,
            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": NO_HOME},
            user=account.uid,
            group=account.gid,
            extra_groups=[],
        )
    except PermissionError as error:  # the interpreter itself is out of its reach
        said = f"cannot run {sys.executable}: {error.strerror}"
    else:
        if done.returncode == 0:
            return
        said = (done.stdout + done.stderr).strip() or f"exit status {done.returncode}"
    hints = []
    closed = closed_folders(account)
    if closed:
        opened = " && ".join(f"chgrp {account.name} {f} && chmod g+x {f}" for f in closed)
        hints.append(
            "it can pass through the folders above the checkout and the site's Python"
            f" ({opened}: it passes, lists nothing), or the site's Python is elsewhere"
        )
    if "cannot write" in said:
        hints.append(f"a folder the site writes in its own: chown -R {account.name}: FOLDER")
    if "cannot read" in said or "cannot import" in said:
        hints.append(
            f"the checkout and the environment file readable by the group {account.name}:"
            f" chgrp -R {account.name} PATH && chmod -R g+rX PATH"
        )
    raise SiteUserError(
        f"the site's user {account.name} cannot run the stack:\n  "
        + said.replace("\n", "\n  ")
        + "\nMake sure that "
        + "; ".join(hints or ["it can read the checkout and the environment file"])
    )


def closed_folders(account: Account) -> list[Path]:
    """The folders above the checkout and the site's Python (a .venv's interpreter and
    standard library may live in root's home, 0700) that ``account`` cannot pass."""
    python = Path(os.path.realpath(sys.executable))
    above = {*REPO.parents, *python.parents, *Path(sys.base_prefix).parents}
    return [folder for folder in sorted(above) if not _passable(folder, account)]


def _passable(folder: Path, account: Account) -> bool:
    info = folder.stat()
    if info.st_uid == account.uid:
        return bool(info.st_mode & stat.S_IXUSR)
    if info.st_gid == account.gid:
        return bool(info.st_mode & stat.S_IXGRP)
    return bool(info.st_mode & stat.S_IXOTH)
