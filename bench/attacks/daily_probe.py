"""bench/hostile.py's probe 7, the daily board: today's board computed offline without the
server's secret, a scripted solution kept off the leaderboard, names owned by devices,
and the entries one address may make at once."""

from __future__ import annotations

import asyncio
import hmac
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import Any

from bench.attacks.client import ws_url
from bench.attacks.honest import solve_words
from bench.attacks.probe_client import Answer, Socket, call, end_round, running_round, sync
from bench.attacks.probes import Bench

DAILY_BURST = 12  # daily attempts per address, at once


def offline_boards(day: Any) -> dict[str, str]:
    """``day``'s board as someone with only the repository could compute it."""
    from boggle_site.env import DAILY_SECRET_PURPOSE, DEV_SECRET_KEY
    from solver import daily as solver_daily
    from solver import dictionaries, solve
    from solver.dice import roll

    word_list = dictionaries.load("english")

    def public_seed() -> str:  # the seed before issue 27: date, salt, roll number
        for number in range(solver_daily.MAX_ROLLS):
            board = roll(
                solver_daily.CLASSIC_1992, f"{day.isoformat()}:{solver_daily.DAILY_SALT}:{number}"
            )
            if solver_daily.is_rich(solve(board, word_list)):
                return board.to_text()
        return ""

    dev_secret = hmac.new(DEV_SECRET_KEY.encode(), DAILY_SECRET_PURPOSE, "sha256").hexdigest()
    guesses = {"public seed (before the fix)": public_seed()}
    for name, secret in (
        ("secret derived from the development key", dev_secret),
        ("the development key itself", DEV_SECRET_KEY),
        ("the salt as the secret", solver_daily.DAILY_SALT),
    ):
        guesses[name] = solver_daily.daily_board(day, word_list, secret).board.to_text()
    return guesses


async def daily_attempt(base: str, nickname: str) -> tuple[Answer, Socket | None]:
    answer = await asyncio.to_thread(call, f"{base}/api/daily", "POST", {"nickname": nickname})
    if answer.status != 201:
        return answer, None
    room, token = answer.body["room"]["code"], answer.body["player"]["token"]
    return answer, await Socket.open(ws_url(base, room, token))


async def listed(base: str, nickname: str) -> tuple[bool, dict[str, Any]]:
    board = (await asyncio.to_thread(call, f"{base}/api/daily?nickname={nickname}")).body or {}
    names = [entry["nickname"] for entry in board.get("leaderboard", [])]
    return nickname in names, board


async def probe_daily(bench: Bench) -> None:
    """Item 7: the daily board: secret seed, plausibility, names owned by devices, limits."""
    from solver import parse_board

    base = bench.bases[0]
    today = datetime.now(UTC).date()
    first, fake = await daily_attempt(base, "Victim")
    if fake is None:
        raise RuntimeError(f"POST /api/daily: {first.status} {first.text}")
    round_ = await running_round(fake)
    server_board = parse_board(round_["board"]).to_text()
    guesses = await asyncio.to_thread(offline_boards, today)
    matches = [name for name, board in guesses.items() if board == server_board]
    print(f"  today's board {server_board!r}; offline guesses: {guesses}")
    tomorrow = await asyncio.to_thread(offline_boards, today + timedelta(days=1))
    print(
        f"  tomorrow's offline guesses (cannot be checked: the server shows today's only): {tomorrow}"
    )
    bench.row(
        "7a today's board computed offline",
        f"{len(matches)} of {len(guesses)} guesses match",
        "0",
        not matches,
    )

    # (c) a 0-point "Victim" first, from one device
    await end_round(fake)
    await fake.close()

    # (b) a script enters the solution as fast as the socket allows
    speedy_answer, speedy = await daily_attempt(base, "Speedy")
    if speedy is None:
        raise RuntimeError(f"POST /api/daily: {speedy_answer.status} {speedy_answer.text}")
    words = solve_words(await running_round(speedy))
    began, pending = time.monotonic(), list(words[:60])
    accepted = 0
    while pending and time.monotonic() - began < 20:
        ids = {await speedy.send({"type": "submit", "word": w, "client_id": w}): w for w in pending}
        pending = []
        for request_id, word in ids.items():
            reply = await speedy.reply(request_id) or {}
            if reply.get("code") == "rate_limited":
                pending.append(word)
            accepted += bool(reply.get("accepted"))
        if pending:
            await asyncio.sleep(1.0)
    seconds = time.monotonic() - began
    await end_round(speedy)
    await asyncio.sleep(2.0)  # the result is recorded as the round ends
    daily = (await sync(speedy)).get("daily") or {}
    await speedy.close()
    speedy_listed, _ = await listed(base, "Speedy")
    print(
        f"  script: {accepted} words accepted in {seconds:.1f} s; its attempt: status"
        f" {daily.get('status')}, entry {daily.get('entry')}; on the leaderboard: {speedy_listed}"
    )
    finished = daily.get("status") not in (None, "playing")
    bench.row(
        "7b scripted solution on the public leaderboard",
        f"{speedy_listed} ({len(words[:60])} of {len(words)} words, attempt {daily.get('status')})",
        "False, attempt finished",
        finished and not speedy_listed,
    )

    # (c) the real "victim" from another device, at a human pace
    real_answer, real = await daily_attempt(base, "victim")
    real_listed = False
    if real is not None:
        found = solve_words(await running_round(real))
        for word, gap in zip(
            sorted(found, key=len, reverse=True)[:3], (2.3, 3.9, 0.0), strict=False
        ):
            await real.ask({"type": "submit", "word": word, "client_id": word})
            await asyncio.sleep(gap)
        await end_round(real)
        await real.close()
        await asyncio.sleep(1.0)
        real_listed, board = await listed(base, "victim")
        print(
            f"  real victim: POST {real_answer.status}; played {board.get('played')}; listed: {real_listed}"
        )
    else:
        print(f"  real victim: POST /api/daily {real_answer.status} {real_answer.error}")
    bench.row(
        "7c real 'victim' listed after a 0-point 'Victim'", str(real_listed), "True", real_listed
    )

    # (d) 25 entries at once from one address
    requests = [{"path": "/api/daily", "body": {"nickname": f"Burst{i}"}} for i in range(25)]
    answers = (await bench.wifi.run("burster", "http", requests=requests, at_once=True))["answers"]
    statuses = Counter(answer["status"] for answer in answers)
    print(f"  25 entries at once: {dict(statuses)}")
    bench.row(
        "7d daily entries in a burst of 25",
        f"{statuses[201]} accepted, {statuses[429]} limited",
        f"<= {DAILY_BURST} accepted",
        statuses[201] <= DAILY_BURST,
    )
