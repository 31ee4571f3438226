"""Compile the translation catalogues: locale/<lang>/LC_MESSAGES/*.po to .mo files.

    python -m web.compile_messages [--check]

Uses Babel (pure Python), so neither GNU gettext nor Django settings are needed. A .mo file
newer than its .po is left alone. --check only reports whether any .mo is missing or stale
(exit status 1), for callers that compile on demand. The .mo files are build products and
are not in git: bin/start, bin/test and the test suite's setup call this.
"""

from __future__ import annotations

import sys
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

LOCALE_DIR = Path(__file__).resolve().parent.parent / "locale"


def catalogues(locale_dir: Path = LOCALE_DIR) -> list[Path]:
    """Every .po file under locale_dir."""
    return sorted(locale_dir.glob("*/LC_MESSAGES/*.po"))


def stale(po_path: Path) -> bool:
    mo_path = po_path.with_suffix(".mo")
    return not mo_path.exists() or mo_path.stat().st_mtime < po_path.stat().st_mtime


def compile_catalogue(po_path: Path) -> Path:
    """Write po_path's .mo next to it (fuzzy entries are left out, as msgfmt does)."""
    with po_path.open("rb") as source:
        catalogue = read_po(source, locale=po_path.parent.parent.name)
    mo_path = po_path.with_suffix(".mo")
    temporary = mo_path.with_suffix(".mo.tmp")
    with temporary.open("wb") as target:
        write_mo(target, catalogue, use_fuzzy=False)
    # Atomic: a running server never reads half a file.
    temporary.replace(mo_path)
    return mo_path


def compile_all(locale_dir: Path = LOCALE_DIR, force: bool = False) -> list[Path]:
    """Compile the stale catalogues (all with force); returns the .mo files written."""
    return [compile_catalogue(po) for po in catalogues(locale_dir) if force or stale(po)]


def main(argv: list[str]) -> int:
    if "--check" in argv:
        missing = [po for po in catalogues() if stale(po)]
        for po in missing:
            print(f"stale: {po.relative_to(LOCALE_DIR.parent)}")
        return 1 if missing else 0
    for mo in compile_all(force="--force" in argv):
        print(f"compiled {mo.relative_to(LOCALE_DIR.parent)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
