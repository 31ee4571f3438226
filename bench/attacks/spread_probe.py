"""One address's requests spread over every Daphne (issue 48, hole 3): room creations and
daily attempts from one Wi-Fi host, every other request to each web process, at once.
Per-address limits are one budget for the site (web.shared_buckets, in Redis in
production), so no more than the documented burst gets through however many Daphnes answer.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from bench.attacks.probes import CREATE_BURST, Bench

DAILY_BURST = 12  # daily.limits.DAILY_ADDRESS: daily attempts per address, at once
CREATIONS = 45
DAILY_ATTEMPTS = 25


async def _spread(bench: Bench, host: str, path: str, count: int) -> Counter[Any]:
    requests = [
        {"path": path, "body": {"nickname": f"Spread{index}"}, "daphne": index}
        for index in range(count)
    ]
    answers = (await bench.wifi.run(host, "http", requests=requests, at_once=True))["answers"]
    return Counter(answer["status"] for answer in answers)


async def probe_spread(bench: Bench) -> None:
    daphnes = len(bench.bases)
    creations = await _spread(bench, "spreader", "/api/rooms", CREATIONS)
    print(f"  {CREATIONS} room creations over {daphnes} Daphne(s): {dict(creations)}")
    bench.row(
        f"48.3 room creations from one address over {daphnes} Daphne(s)",
        f"{creations[201]} of {CREATIONS} created",
        f"<= {CREATE_BURST} created",
        creations[201] <= CREATE_BURST,
    )
    daily = await _spread(bench, "spreaddaily", "/api/daily", DAILY_ATTEMPTS)
    print(f"  {DAILY_ATTEMPTS} daily attempts over {daphnes} Daphne(s): {dict(daily)}")
    bench.row(
        f"48.3 daily attempts from one address over {daphnes} Daphne(s)",
        f"{daily[201]} of {DAILY_ATTEMPTS} accepted",
        f"<= {DAILY_BURST} accepted",
        daily[201] <= DAILY_BURST,
    )
