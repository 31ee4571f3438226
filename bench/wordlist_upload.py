"""Measure what uploading a big word list through the admin costs: how long the request is
held and the peak memory (RSS) of the process, including the compile. Not a test.

    .venv/bin/python bench/wordlist_upload.py [--mb 50] [--root .] [--direct]

``--root`` is the checkout whose code is measured (e.g. an export of an older commit).
Each measurement runs in a fresh process with its own database and dictionary folder, so
the peak RSS is the upload's and compile's, not earlier work's.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

LETTERS = "abcdefghijklmnopqrstuvwxyz"


def make_list(path: Path, megabytes: float, seed: int = 1) -> int:
    """Lower-case random words, 3-15 letters, one a line, up to ``megabytes``."""
    rng = random.Random(seed)
    target = int(megabytes * 2**20)
    size = lines = 0
    with path.open("w", encoding="ascii") as out:
        while size < target:
            word = "".join(rng.choices(LETTERS, k=rng.randint(3, 15))) + "\n"
            out.write(word)
            size += len(word)
            lines += 1
    return lines


def child_direct(words: Path) -> None:
    """Compile the list as the task does (no web request): the compile's own peak RSS."""
    import hashlib
    import shutil

    import django

    django.setup()
    from django.core.management import call_command

    from dictionaries import compiling, files
    from dictionaries.models import Dictionary

    call_command("migrate", verbosity=0)
    relative = f"uploads/{hashlib.sha256(words.read_bytes()).hexdigest()}.txt"
    (files.dictionary_dir() / "uploads").mkdir(parents=True, exist_ok=True)
    shutil.copyfile(words, files.dictionary_dir() / relative)
    dictionary = Dictionary.objects.create(name="big", title="Big", upload=relative)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.monotonic()
    compiling.compile_dictionary(dictionary.pk)
    dictionary.refresh_from_db()
    print(
        json.dumps(
            {
                "compile_seconds": round(time.monotonic() - started, 2),
                "final_status": dictionary.status,
                "message": dictionary.status_message[:200],
                "words": dictionary.current_version.word_count
                if dictionary.current_version
                else None,
                "peak_rss_mb_before_compile": round(before / 1024),
                "peak_rss_mb_total": round(
                    resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
                ),
            }
        )
    )


def child(words: Path) -> None:
    import django

    django.setup()
    from django.contrib.auth.models import User
    from django.core.management import call_command
    from django.test import Client

    from dictionaries.models import Dictionary

    call_command("migrate", verbosity=0)
    dictionary = Dictionary.objects.create(name="big", title="Big", named_list="english")
    client = Client()
    client.force_login(User.objects.create_superuser("root", "root@example.org", "pw"))
    data = {
        "name": "big",
        "title": "Big",
        "language": "en",
        "source": "measure",
        "enabled": "on",
        "min_length": 3,
        "max_length": 36,
        "qu_rule": "on",
        "alphabet": LETTERS,
        "edits-TOTAL_FORMS": 0,
        "edits-INITIAL_FORMS": 0,
        "edits-MIN_NUM_FORMS": 0,
        "edits-MAX_NUM_FORMS": 1000,
    }
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with words.open("rb") as upload:
        started = time.monotonic()
        response = client.post(
            f"/admin/dictionaries/dictionary/{dictionary.pk}/change/",
            {**data, "word_list": upload},
        )
        held = time.monotonic() - started
    request_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    dictionary.refresh_from_db()
    status_after_request = dictionary.status
    while dictionary.status == Dictionary.Status.COMPILING:
        time.sleep(0.5)
        dictionary.refresh_from_db()
    total = time.monotonic() - started
    print(
        json.dumps(
            {
                "status_code": response.status_code,
                "request_seconds": round(held, 2),
                "status_after_request": status_after_request,
                "final_status": dictionary.status,
                "message": dictionary.status_message[:200],
                "words": dictionary.current_version.word_count
                if dictionary.current_version
                else None,
                "seconds_until_compiled": round(total, 2),
                "peak_rss_mb_before_upload": round(before / 1024),
                "peak_rss_mb_request": round(request_rss / 1024),
                "peak_rss_mb_total": round(
                    resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
                ),
            }
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mb", type=float, default=50)
    parser.add_argument("--root", type=Path, default=None, help="default: this checkout")
    parser.add_argument(
        "--direct", action="store_true", help="compile as the task does, without the admin"
    )
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        (child_direct if args.direct else child)(args.child)
        return
    args.root = (args.root or Path(__file__).resolve().parents[1]).resolve()
    with tempfile.TemporaryDirectory() as folder:
        words = Path(folder) / "words.txt"
        lines = make_list(words, args.mb)
        print(f"{words.stat().st_size / 2**20:.1f} MiB, {lines:,} lines", file=sys.stderr)
        # The shipped lists' compiled files, so that migrating adopts them without compiling.
        (Path(folder) / "dictionaries").mkdir()
        for name in ("english", "english-common"):
            prebuilt = args.root / "var" / "dictionaries" / f"{name}.lex"
            if prebuilt.exists():
                (Path(folder) / "dictionaries" / prebuilt.name).write_bytes(prebuilt.read_bytes())
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "boggle_site.settings",
            "DATABASE_URL": f"sqlite:///{folder}/db.sqlite3",
            "BOGGLE_DICTIONARY_DIR": f"{folder}/dictionaries",
            "BOGGLE_MEDIA_DIR": f"{folder}/media",
            "PYTHONPATH": str(args.root.resolve()),
            "DJANGO_LOG_LEVEL": "ERROR",
        }
        subprocess.run(
            [sys.executable, __file__, "--child", str(words)] + ["--direct"] * args.direct,
            cwd=args.root,
            env=env,
            check=True,
        )


if __name__ == "__main__":
    main()
