"""bench/load.py --server: the option, the servers' own virtualenv (told how to create it when
missing or stale) and the web processes' command lines, under the name the costs look for."""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path
from typing import Any

import pytest

from bench.crowd import servers
from bench.crowd.site import Site
from bench.load import parse_args

PRODUCTION = ["--mode", "production", "--daphnes", "2"]


def test_daphne_unless_asked() -> None:
    assert parse_args([]).server == "daphne"
    assert parse_args(PRODUCTION).server == "daphne"
    for server in ("uvicorn", "granian"):
        args = parse_args([*PRODUCTION, "--server", server])
        assert (args.server, args.mode, args.daphnes) == (server, "production", 2)


@pytest.mark.parametrize(
    "extra",
    [
        [],  # embedded
        ["--mode", "embedded"],
        ["--url", "http://127.0.0.1:8000"],
        ["--faults", "redis"],
        ["--mode", "production", "--server", "hypercorn"],
    ],
)
def test_another_server_needs_a_production_site_of_the_run(extra: list[str]) -> None:
    with pytest.raises(SystemExit):
        parse_args(["--server", "uvicorn", *extra])


def _venv(venv: Path, requirements: bytes | None) -> Path:
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").write_text("")
    if requirements is not None:
        (venv / servers.STAMP).write_bytes(requirements)
    return venv


def test_a_missing_or_stale_virtualenv_says_how_to_create_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    current = (servers.REPO / "requirements.txt").read_bytes()
    missing = tmp_path / "missing"
    unstamped = _venv(tmp_path / "unstamped", None)
    stale = _venv(tmp_path / "stale", current + b"x==1\n")
    for venv in (missing, unstamped, stale):
        monkeypatch.setenv(servers.VENV_VARIABLE, str(venv))
        with pytest.raises(SystemExit) as raised:
            servers.venv_python()
        message = str(raised.value)
        assert f"python3 -m venv {venv} " in message
        assert "pip install -r requirements.txt 'uvicorn[standard]==" in message
        assert f"'{servers.GRANIAN}'" in message and "==" in servers.GRANIAN
    venv = _venv(tmp_path / "built", current)
    monkeypatch.setenv(servers.VENV_VARIABLE, str(venv))
    assert servers.venv_python() == venv / "bin" / "python"
    monkeypatch.delenv(servers.VENV_VARIABLE)
    assert servers.venv_dir() == servers.DEFAULT_VENV


def _spawned(server: str, python: Path) -> tuple[str, list[str]]:
    namespace = vars(parse_args([*PRODUCTION, "--server", server]))
    site = Site(argparse.Namespace(**namespace))
    calls: list[tuple[str, list[str]]] = []

    def spawn(name: str, command: list[str], env: dict[str, Any]) -> None:
        calls.append((name, command))

    try:
        site.server_python = python
        site._spawn = spawn  # type: ignore[method-assign]
        site.processes.append(None)  # type: ignore[arg-type]  # start_daphne returns the last
        site.start_daphne(41234)
    finally:
        shutil.rmtree(site.tmp, ignore_errors=True)
    [(name, command)] = calls
    return name, command


def test_uvicorn_serves_the_application_as_the_comparison_asks() -> None:
    python = Path("/venv/bin/python")
    name, command = _spawned("uvicorn", python)
    assert name == "daphne-41234"  # the costs' cpu.daphne, profiles and faults find it
    assert command[:4] == [str(python), "-m", "uvicorn", servers.APPLICATION]
    text = " ".join(command)
    for flags in (
        "--host 127.0.0.1 --port 41234",
        "--loop uvloop",
        "--http httptools",
        "--ws websockets",
        "--lifespan off",
        "--no-proxy-headers",
    ):
        assert flags in text


def test_granian_serves_the_application_with_one_asgi_worker() -> None:
    python = Path("/venv/bin/python")
    name, command = _spawned("granian", python)
    assert name == "daphne-41234"
    assert command[:3] == [str(python), "-m", "granian"] and command[-1] == servers.APPLICATION
    text = " ".join(command)
    for flags in ("--interface asginl", "--host 127.0.0.1 --port 41234", "--workers 1"):
        assert flags in text


def test_daphne_is_still_production_serve() -> None:
    namespace = vars(parse_args(PRODUCTION))
    site = Site(argparse.Namespace(**namespace))
    calls: list[list[str]] = []
    try:
        site._spawn = lambda name, command, env: calls.append([name, *command])  # type: ignore[method-assign]
        site.processes.append(None)  # type: ignore[arg-type]
        site.start_daphne(41234)
    finally:
        shutil.rmtree(site.tmp, ignore_errors=True)
    assert calls[0][0] == "daphne-41234" and calls[0][2:4] == ["-m", "production.serve"]
