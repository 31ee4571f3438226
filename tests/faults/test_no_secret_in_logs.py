"""No player's token in any log after a fault run of the production stack (issue 48, hole 5).

The production stack (``bin/start --production``: nginx in front of two Daphnes, a Celery
worker and beat under supervisord; tests/production/) with phones on a simulated Wi-Fi
playing through nginx. The fault: the Daphne holding most of the room's sockets is killed
(SIGKILL), so nginx sees its proxied sockets reset and logs each one in its error log with
the request line, and the phones' reconnections meet a dead upstream. nginx's error log
has no format to strip query strings from: a token in a socket's address lands there (the
access log drops query strings, deploy/nginx/boggle.conf). Afterwards every log file of the
run (nginx's access and error logs, each Daphne's, the worker's, beat's, supervisord's, the
start's) is searched for every token the site handed out: none may appear, raw or
percent-encoded.
"""

from __future__ import annotations

import os
import signal
import urllib.parse
from pathlib import Path

import pytest

from netlab import SimulatedWifi
from tests.production.test_stack_on_the_wifi import (
    WAIT,
    Phone,
    ProductionStack,
    answers,
    daphne_of_phones,
    production,
)
from tests.stack import poll_until

pytestmark = pytest.mark.integration

# The fixture is tests/production's (imported, so that pytest finds it here too).
__all__ = ["production"]

PHONES = ("Ann", "Bob", "Cid", "Dee")


def log_files(stack: ProductionStack) -> list[Path]:
    """Every log the run wrote: its logs/ directory (nginx, Daphnes, worker, beat,
    supervisord, and the phones' own stderr) and the start's output."""
    return sorted({*stack.run_dir.rglob("*.log"), stack.start_log})


def leaks(files: list[Path], tokens: set[str]) -> list[str]:
    """``file:line: token…`` for every line of ``files`` holding a token (as sent, or
    percent-encoded as a URL would carry it)."""
    forms = {form for token in tokens for form in (token, urllib.parse.quote(token, safe=""))}
    found = []
    for path in files:
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            for form in forms:
                if form in line:
                    found.append(f"{path.name}:{number}: {form[:8]}… in {line[:200]!r}")
    return found


def test_no_token_in_any_log_after_a_daphne_is_killed(
    production: ProductionStack, module_wifi: SimulatedWifi
) -> None:
    """Four phones join a room through nginx, open their sockets and read the room as
    players (Bearer token over HTTP); the Daphne holding most sockets is killed, its phones
    reconnect through nginx, and read the room again. nginx logged the resets (the search
    below reads a log that holds the room's socket requests), and no log holds a token."""
    stack = production
    phones = [Phone(module_wifi.add_host(f"leak{name.lower()}"), stack, name) for name in PHONES]
    tokens: set[str] = set()
    try:
        host = phones[0]
        created = host.wait_for("player", host.do("create", nickname=PHONES[0]))
        assert created["status"] == 201, created
        code = created["body"]["room"]["code"]
        tokens.add(created["body"]["player"]["token"])
        for phone in phones[1:]:
            joined = phone.wait_for("player", phone.do("join", code=code, nickname=phone.name))
            assert joined["status"] == 201, joined
            tokens.add(joined["body"]["player"]["token"])
        for phone in phones:
            state = phone.wait_for("state", phone.do("connect"))
            assert state["connects"] == 1
            got = phone.wait_for("got", phone.do("get", path=f"/api/rooms/{code}"))
            assert got["status"] == 200, got

        # The fault: the Daphne holding most of the room's sockets dies at once.
        holding = daphne_of_phones(stack, code, len(phones))
        victim_port = max(holding, key=lambda port: len(holding[port]))
        victims = [phone for phone in phones if phone.name in holding[victim_port]]
        killed_pid = stack.daphne_pid(victim_port)
        marks = {phone.name: phone.mark() for phone in victims}
        os.kill(killed_pid, signal.SIGKILL)
        for phone in victims:
            phone.wait_for("closed", marks[phone.name], timeout=WAIT)
            again = phone.wait_until(
                lambda event: event["ev"] == "state" and event["connects"] >= 2,
                "a state after reconnecting",
                marks[phone.name],
                timeout=WAIT * 2,
            )
            assert again["connects"] >= 2
        poll_until(
            lambda: (
                stack.daphne_pid(victim_port) not in (0, killed_pid)
                and answers(f"http://127.0.0.1:{victim_port}/api/dictionaries")
            ),
            f"daphne-{victim_port} restarted",
        )
        for phone in phones:
            got = phone.wait_for("got", phone.do("get", path=f"/api/rooms/{code}"))
            assert got["status"] == 200, got
    finally:
        for phone in phones:
            phone.close()

    files = log_files(stack)
    names = {path.name for path in files}
    assert {"nginx.log", "worker-1.log"} <= names, names
    assert any(name.startswith("daphne-") for name in names), names
    # The fault reached nginx's error log (its stderr, beside its access log on stdout):
    # an error line holds the room's socket request.
    nginx_log = (stack.run_dir / "logs" / "nginx.log").read_text(errors="replace")
    errors = [line for line in nginx_log.splitlines() if "[error]" in line]
    assert any(f"/ws/rooms/{code}/" in line for line in errors), nginx_log[-3000:]
    assert len(tokens) == len(PHONES)
    found = leaks(files, tokens)
    assert not found, "\n".join(found)
