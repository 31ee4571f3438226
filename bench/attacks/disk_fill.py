"""bench/hostile.py's disk-fill probe (issue 48, hole 4): one machine on the simulated Wi-Fi
sends big photos (some 10 MB each, JPEG of noise, so that nothing compresses them away) as
fast as the site takes them, to rooms of its own and to the Solve page, spread over the
Daphnes, for ``--disk-fill-seconds``. It prints the bytes the site accepted from that one
address and the bytes its photo folder grew by, against the hourly byte budget per address
(``BOGGLE_PHOTO_MB_PER_ADDRESS_HOUR``, 200 MB): held when the accepted bytes stay within the
budget and the site said so (429 ``rate_limited`` naming the MB of photos). Before the
budget: 10 uploads of 10 MB in 6.5 s, some 55 GB an hour by the other limits.

The photos' folder is the site's ``BOGGLE_MEDIA_DIR`` (bench/hostile.py puts it in the run's
temporary directory, never the checkout's var/media)."""

from __future__ import annotations

import asyncio
import atexit
import io
import os
import random
import secrets
import shutil
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from bench.attacks.probe_client import call
from bench.attacks.probes import Bench

MB = 1_000_000
# Photos sent at most (a backstop: the time or the budget's refusals end it first).
MAX_UPLOADS = 200
# Budget refusals in a row (rooms and the Solve page, every Daphne) that end the attack.
REFUSALS_TO_STOP = 6


def big_jpeg(megabytes: float) -> bytes:
    """A JPEG of noise of about ``megabytes``: as large as a phone's photo, and random."""
    from PIL import Image

    side = int((megabytes * MB / 1.2) ** 0.5)  # noise at quality 95: some 1.2 bytes a pixel
    pixels = random.Random(48).randbytes(side * side * 3)
    buffer = io.BytesIO()
    Image.frombytes("RGB", (side, side), pixels).save(buffer, format="JPEG", quality=95)
    return buffer.getvalue()


def multipart(data: bytes, name: str) -> tuple[bytes, str]:
    boundary = "boggle" + secrets.token_hex(12)
    head = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="photo"; filename="{name}"\r\n'
        "Content-Type: image/jpeg\r\n\r\n"
    ).encode()
    return head + data + f"\r\n--{boundary}--\r\n".encode(), boundary


async def side_disk_fill(
    bases: list[str], seconds: float, megabytes: float, rooms: int
) -> dict[str, Any]:
    """On the attacker's machine: make ``rooms`` rooms, then send the photo to them and to
    the Solve page in turn, over every Daphne, until ``seconds`` are over or the budget's
    refusals come ``REFUSALS_TO_STOP`` times in a row. A 429 for photos still waiting to be
    read is waited out (half a second) and sent again."""
    photo = big_jpeg(megabytes)
    tokens: list[tuple[str, str]] = []
    for index in range(rooms):
        made = await asyncio.to_thread(
            call, bases[index % len(bases)] + "/api/rooms", "POST", {"nickname": f"Filler{index}"}
        )
        if made.status == 201:
            tokens.append((made.body["room"]["code"], made.body["player"]["token"]))
    targets: list[tuple[str, dict[str, str]]] = [
        (f"/api/rooms/{code}/photos", {"Authorization": f"Bearer {token}"})
        for code, token in tokens
    ]
    targets.append(("/api/solve/photos", {}))
    statuses: Counter[str] = Counter()
    accepted = accepted_bytes = 0
    refusals_in_a_row = 0
    first_refusal: dict[str, Any] | None = None
    started = time.monotonic()
    sent = 0
    while time.monotonic() - started < seconds and sent < MAX_UPLOADS:
        path, headers = targets[sent % len(targets)]
        base = bases[sent % len(bases)]
        body, boundary = multipart(photo, "board.jpg")
        answer = await asyncio.to_thread(
            call, base + path, "POST", None,
            {**headers, "Content-Type": f"multipart/form-data; boundary={boundary}"},
            body, 120.0,
        )  # fmt: skip
        error = answer.body.get("error") if isinstance(answer.body, dict) else None
        message = str(error.get("message", "")) if isinstance(error, dict) else ""
        budget = answer.status == 429 and "MB of photos" in message
        pending = answer.status == 429 and not budget
        statuses[
            f"{answer.status} {answer.error or ''}{' (budget)' if budget else ''}".strip()
        ] += 1
        if pending:
            await asyncio.sleep(0.5)  # photos still being read: the same photo again
            continue
        sent += 1
        if answer.status == 202:
            accepted += 1
            accepted_bytes += len(photo)
            refusals_in_a_row = 0
        elif budget:
            refusals_in_a_row += 1
            if first_refusal is None:
                first_refusal = {
                    "after_seconds": round(time.monotonic() - started, 1),
                    "accepted_before": accepted,
                    "message": message[:160],
                }
            if refusals_in_a_row >= REFUSALS_TO_STOP:
                break
    return {
        "photo_bytes": len(photo),
        "rooms": len(tokens),
        "accepted": accepted,
        "accepted_bytes": accepted_bytes,
        "seconds": round(time.monotonic() - started, 1),
        "statuses": dict(statuses),
        "first_refusal": first_refusal,
    }


def folder_bytes(folder: Path) -> int:
    if not folder.exists():
        return 0
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


def address_budget() -> int:
    """The site's bytes an address may send an hour (as it reads its environment)."""
    from boggle_site import env

    return env.photo_megabytes(os.environ, "BOGGLE_PHOTO_MB_PER_ADDRESS_HOUR")


async def probe_disk_fill(bench: Bench) -> None:
    """Hole 4: one address sends big photos; bytes accepted and stored vs the budget."""
    media = Path(os.environ.get("BOGGLE_MEDIA_DIR", "var/media"))  # private_media_dir
    budget = address_budget()
    before = folder_bytes(media)
    found = await bench.wifi.run(
        "diskfill", "disk-fill", seconds=bench_seconds(), megabytes=10.0, rooms=4
    )
    grown = folder_bytes(media) - before
    accepted, seconds = found["accepted_bytes"], max(found["seconds"], 0.1)
    per_hour = accepted / seconds * 3600
    print(
        f"  one Wi-Fi address, {found['rooms']} rooms and the Solve page, photos of "
        f"{found['photo_bytes'] / MB:.1f} MB: {found['accepted']} accepted, "
        f"{accepted / MB:.0f} MB in {seconds:.0f} s (a pace of {per_hour / 1e9:.2f} GB an hour until refused)"
    )
    print(f"  answers: {found['statuses']}")
    print(f"  first budget refusal: {found['first_refusal']}")
    print(
        f"  photo folder grew by {grown / MB:.0f} MB (rooms keep their 3 latest photos; "
        f"the Solve page's stay an hour); budget {budget / MB:.0f} MB an hour per address"
    )
    held = accepted <= budget and found["first_refusal"] is not None
    bench.row(
        "disk fill: bytes stored from one address",
        f"{accepted / MB:.0f} MB in {seconds:.0f} s",
        f"<= {budget / MB:.0f} MB/hour",
        held,
    )
    print(f"  disk fill: {'held' if held else 'broken'}")


def bench_seconds() -> float:
    """How long the attacker sends at most: 120 s (the budget's 200 MB takes some 20
    photos), or BOGGLE_BENCH_DISK_FILL_SECONDS."""
    return float(os.environ.get("BOGGLE_BENCH_DISK_FILL_SECONDS", "120"))


def private_media_dir() -> Path:
    """A photo folder of the run's own for the site it starts (``BOGGLE_MEDIA_DIR``, read
    when the site starts), deleted when the bench exits: the attack's photos never land in
    the checkout's var/media."""
    folder = Path(tempfile.mkdtemp(prefix="boggle-hostile-media-"))
    os.environ["BOGGLE_MEDIA_DIR"] = str(folder)
    atexit.register(shutil.rmtree, folder, True)
    return folder
