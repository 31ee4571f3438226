"""bench/hostile.py's probe 7, the daily board: today's board computed offline without the
server's secret, a scripted solution kept off the leaderboard, names owned by devices,
and the entries one address may make at once; and its probe "paced-daily": issue 48's bot
that enters the whole solution at a person's pace."""

from __future__ import annotations

import asyncio
import hmac
import random
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import Any

from bench.attacks.client import ws_url
from bench.attacks.honest import solve_words
from bench.attacks.probe_client import Answer, Socket, call, end_round, running_round, sync
from bench.attacks.probes import Bench

DAILY_BURST = 12  # daily attempts per address, at once

# Issue 48's paced bot: gaps like a person's (0.8 to 4 s, irregular), so that no 15 words
# fall within 10 s (14 gaps of 0.8 s are 11.2 s), within the 180 s round.
PACED_GAPS = (0.8, 0.85, 0.9, 1.2, 1.6, 2.4, 4.0)
PACED_MIN_GAP = PACED_GAPS[0]
PACED_SECONDS = 165.0


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
    return answer, await Socket.open(ws_url(base, room), token)


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


def paced_times(count: int, seed: int = 48) -> list[float]:
    """When the paced bot sends each of ``count`` words (seconds after it starts): the gaps
    of ``PACED_GAPS`` in a random order, their part above ``PACED_MIN_GAP`` shrunk (at most
    by half: the gaps must stay irregular, or the pace rules catch it) when the words would
    not fit in ``PACED_SECONDS``; the words that still do not fit are left out."""
    rng = random.Random(seed)
    gaps = [rng.choice(PACED_GAPS) * rng.uniform(1.0, 1.05) for _ in range(count)]
    slack = sum(gap - PACED_MIN_GAP for gap in gaps)
    room = PACED_SECONDS - count * PACED_MIN_GAP
    shrink = max(0.5, min(1.0, room / slack)) if slack > 0 else 1.0
    times, now = [], 0.0
    for gap in gaps:
        now += PACED_MIN_GAP + (gap - PACED_MIN_GAP) * shrink
        if now > PACED_SECONDS:
            break
        times.append(now)
    return times


def most_within(times: list[float], window: float = 10.0) -> int:
    """The most of ``times`` (sorted) that fall within any ``window`` seconds."""
    start, most = 0, 0
    for end, at in enumerate(times):
        while at - times[start] > window:
            start += 1
        most = max(most, end - start + 1)
    return most


async def probe_paced_daily(bench: Bench) -> None:
    """Issue 48, hole 2: a bot takes the daily board from its round, solves it with the
    project's solver and enters every word (the solver's order) with irregular, human-looking
    gaps, never more than 14 within 10 s. Held: its result is flagged, not on the public
    leaderboard. About three minutes (the round is played out at that pace)."""
    from daily.plausibility import pace_reason

    base = bench.bases[-1]  # production: the second Daphne, not the one probe 7 used
    answer, bot = await daily_attempt(base, "Pacer")
    if bot is None:
        raise RuntimeError(f"POST /api/daily: {answer.status} {answer.text}")
    round_ = await running_round(bot)
    words = solve_words(round_)
    plan = paced_times(len(words))
    began = time.monotonic()
    sent: list[float] = []
    accepted = points = 0
    for word, at in zip(words, plan, strict=False):
        await asyncio.sleep(max(0.0, began + at - time.monotonic()))
        sent.append(time.monotonic() - began)
        reply = await bot.ask({"type": "submit", "word": word, "client_id": word}) or {}
        accepted += bool(reply.get("accepted"))
        points += int(reply.get("points") or 0) if reply.get("accepted") else 0
    seconds = time.monotonic() - began
    await end_round(bot)
    await asyncio.sleep(2.0)  # the result is recorded as the round ends
    daily = (await sync(bot)).get("daily") or {}
    await bot.close()
    on_board, _ = await listed(base, "Pacer")
    entry = daily.get("entry") or {}
    held = daily.get("status") not in (None, "playing") and not on_board
    pace = pace_reason(sent) or "none"
    print(
        f"  paced bot: {accepted} of {len(words)} words accepted ({entry.get('points')} points)"
        f" in {seconds:.0f} s, at most {most_within(sent)} within 10 s (pace rule broken:"
        f" {pace}); attempt"
        f" {daily.get('status')}, unlisted: {entry.get('unlisted')}; on the leaderboard:"
        f" {on_board} -> {'held' if held else 'broken'}"
    )
    bench.row(
        "paced daily bot on the public leaderboard",
        f"{on_board} ({accepted}/{len(words)} words, {entry.get('unlisted')})",
        "False, flagged",
        held,
    )
