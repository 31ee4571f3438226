"""A whole action (a ``do_*`` function that a socket message, a page or a task runs on its
own) opens its own transaction with ``transaction.atomic(durable=True)``, as Zulip's
actions do: run inside another transaction it fails at once instead of committing (and
sending its events) only when some outer caller commits. The ``do_*`` functions that other
actions compose stay plain ``atomic`` and are listed here with who nests them."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from django.db import transaction

from games import rooms

ROOT = Path(__file__).resolve().parents[2]
APPS = ("games", "photos", "dicesets", "daily", "quickplay", "dictionaries", "solve")

# do_* run inside another transaction on purpose: (module, function) -> who nests them.
COMPOSED = {
    ("games.rooms", "do_create_room"): "replays, daily, quickplay; the idempotency record",
    ("games.rooms", "do_join_room"): "waiting_room.do_admit, quickplay; the idempotency record",
    ("games.rooms", "do_rejoin"): "POST /api/rooms/<code>/join under its idempotency record",
    ("games.waiting_room", "do_ask_to_join"): "POST .../join under its idempotency record",
    ("games.waiting_room", "do_expire"): "do_ask_to_join",
    ("daily.attempts", "do_start_attempt"): "POST /api/daily under its idempotency record",
    ("daily.practice", "do_start_practice"): "POST /api/practice under its idempotency record",
}


def atomic_actions() -> dict[tuple[str, str], bool]:
    """Every ``do_*`` decorated with ``transaction.atomic``: whether it is durable."""
    found: dict[tuple[str, str], bool] = {}
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            for node in ast.walk(ast.parse(path.read_text())):
                if not isinstance(node, ast.FunctionDef) or not node.name.startswith("do_"):
                    continue
                for decorator in node.decorator_list:
                    target = decorator.func if isinstance(decorator, ast.Call) else decorator
                    if ast.unparse(target) != "transaction.atomic":
                        continue
                    durable = isinstance(decorator, ast.Call) and any(
                        keyword.arg == "durable" and ast.unparse(keyword.value) == "True"
                        for keyword in decorator.keywords
                    )
                    found[(module, node.name)] = durable
    return found


def test_every_atomic_action_is_durable_unless_other_actions_compose_it() -> None:
    actions = atomic_actions()
    assert len(actions) > 20  # the scan sees the apps' actions
    plain = {action for action, durable in actions.items() if not durable}
    assert plain == set(COMPOSED)


@pytest.mark.django_db
def test_a_whole_action_inside_another_transaction_fails_loudly() -> None:
    room, host = rooms.do_create_room("Ann")
    guest = rooms.do_join_room(room, "Bob")
    with pytest.raises(RuntimeError, match="durable"), transaction.atomic():
        rooms.do_kick(host, guest.pk)
    guest.refresh_from_db()
    assert not guest.kicked
    rooms.do_kick(host, guest.pk)  # on its own it runs
    guest.refresh_from_db()
    assert guest.kicked
