"""A simulated Wi-Fi: hosts (phones, a laptop, an attacker) in network namespaces of their
own, plugged into one bridge (the access point) in the namespace that made it.

    with SimulatedWifi() as wifi:             # bridge "bw<pid>-<token>", 10.77.X.1/24
        laptop = wifi.add_host("laptop")      # namespace boggle-<pid>-<token>-laptop, .2
        phone = wifi.add_host("phone")        # .3
        subprocess.run(phone.command(["curl", f"http://{laptop.address}:8000/"]))

Each host has only ``lo`` and ``wlan0`` (a veth whose other end is on the bridge), an
address on the Wi-Fi's private /24 and no default route: what it sends can reach the other
hosts and the bridge's own address (``gateway``, where the making namespace listens), and
nothing else. Names carry the maker's pid and a random token, so runs at once never
collide; ``close()`` (also on an exception or Ctrl-C) kills what runs in the namespaces and
deletes them with the bridge, and a later run deletes what a killed run left behind.

Needs root and iproute2's ``ip`` (Linux network namespaces, veth and bridge links).
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import random
import re
import secrets
import shutil
import signal
import subprocess
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil

# The simulated Wi-Fis' addresses: one /24 each, picked among those no interface here uses.
SUBNET_POOL = ipaddress.IPv4Network("10.77.0.0/16")
NAMESPACE_PREFIX = "boggle-"
# Linux interface names are at most 15 characters: "bw" + pid (hex) + "-" + 3-hex token.
BRIDGE_NAME = re.compile(r"^bw([0-9a-f]+)-[0-9a-f]{3}$")
NAMESPACE_NAME = re.compile(rf"^{NAMESPACE_PREFIX}(\d+)-[0-9a-f]{{3}}-")
HOST_INTERFACE = "wlan0"
IP_TIMEOUT_SECONDS = 30

_active_lock = threading.RLock()
_active_subnets: set[ipaddress.IPv4Network] = set()


class NetlabError(RuntimeError):
    """An ``ip`` command failed: this machine cannot make the simulated network."""


def unavailable_reason() -> str | None:
    """Why this machine cannot make a simulated Wi-Fi, or None when it can."""
    if not hasattr(os, "geteuid") or not Path("/proc/self/ns/net").exists():
        return "network namespaces need Linux"
    if os.geteuid() != 0:
        return "making network namespaces needs root (CI runs as root)"
    if shutil.which("ip") is None:
        return "iproute2's ip command is missing (apt-get install iproute2)"
    return None


def active_subnets() -> list[ipaddress.IPv4Network]:
    """The subnets of the Wi-Fis this process has open (the network guard allows them)."""
    with _active_lock:
        return list(_active_subnets)


def _ip(*args: str, namespace: str | None = None, check: bool = True) -> str:
    command = ["ip", *(["-n", namespace] if namespace else []), *args]
    result = subprocess.run(
        command, capture_output=True, text=True, timeout=IP_TIMEOUT_SECONDS, check=False
    )
    if check and result.returncode != 0:
        raise NetlabError(f"{' '.join(command)}: {result.stderr.strip() or result.returncode}")
    return result.stdout


def _namespace_pids(namespace: str) -> list[int]:
    return [int(pid) for pid in _ip("netns", "pids", namespace, check=False).split()]


def _kill_namespace(namespace: str) -> None:
    """Kill whatever still runs in ``namespace`` and delete it (its veth goes with it)."""
    for pid in _namespace_pids(namespace):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    _ip("netns", "delete", namespace, check=False)


def sweep_leftovers() -> None:
    """Delete the namespaces and bridges of runs whose process is gone (killed before they
    could tidy up)."""
    for line in _ip("netns", "list", check=False).splitlines():
        name = line.split(" ", 1)[0]
        match = NAMESPACE_NAME.match(name)
        if match and not psutil.pid_exists(int(match.group(1))):
            _kill_namespace(name)
    for line in _ip("-o", "link", "show", "type", "bridge", check=False).splitlines():
        name = line.split(":", 2)[1].strip().split("@", 1)[0] if ":" in line else ""
        match = BRIDGE_NAME.match(name)
        if match and not psutil.pid_exists(int(match.group(1), 16)):
            _ip("link", "delete", name, check=False)


def _used_subnets() -> set[ipaddress.IPv4Network]:
    used: set[ipaddress.IPv4Network] = set()
    for addresses in psutil.net_if_addrs().values():
        for entry in addresses:
            if entry.family.name == "AF_INET" and entry.netmask:
                used.add(ipaddress.IPv4Interface(f"{entry.address}/{entry.netmask}").network)
    return used


def _free_subnet() -> ipaddress.IPv4Network:
    used = _used_subnets() | set(active_subnets())
    candidates = [
        subnet
        for subnet in SUBNET_POOL.subnets(new_prefix=24)
        if not any(subnet.overlaps(other) for other in used)
    ]
    if not candidates:
        raise NetlabError(f"no free /24 left in {SUBNET_POOL}")
    return random.choice(candidates)


@dataclass(frozen=True)
class Host:
    """A machine on the simulated Wi-Fi: a network namespace with one interface."""

    name: str
    namespace: str
    address: str
    interface: str = HOST_INTERFACE

    def command(self, argv: Sequence[str]) -> list[str]:
        """``argv`` run inside this host (``ip netns exec`` keeps the pid and descriptors)."""
        return ["ip", "netns", "exec", self.namespace, *argv]

    def popen(self, argv: Sequence[str], **options: Any) -> subprocess.Popen[Any]:
        return subprocess.Popen(self.command(argv), **options)

    def run(self, argv: Sequence[str], **options: Any) -> subprocess.CompletedProcess[Any]:
        return subprocess.run(self.command(argv), **options)

    def wrapper(self, program: str, directory: Path) -> Path:
        """An executable script that runs ``program`` (with its arguments) on this host:
        for tools that take a program's path, such as Playwright's ``executable_path``."""
        path = directory / f"on-{self.name}-{Path(program).name}"
        path.write_text(
            f'#!/bin/sh\nexec ip netns exec {self.namespace} {program} "$@"\n', encoding="utf-8"
        )
        path.chmod(0o755)
        return path

    def pids(self) -> list[int]:
        return _namespace_pids(self.namespace)


class SimulatedWifi:
    """A private /24 in 10.77.0.0/16 with a bridge in this namespace at its first address
    (``gateway``); ``add_host`` plugs in a new namespace at the next one."""

    def __init__(self) -> None:
        reason = unavailable_reason()
        if reason:
            raise NetlabError(reason)
        self.token = secrets.token_hex(2)[:3]
        self.bridge = f"bw{os.getpid():x}-{self.token}"
        self.subnet: ipaddress.IPv4Network | None = None
        self.hosts: list[Host] = []
        self._made_bridge = False

    @property
    def gateway(self) -> str:
        """The bridge's address: this namespace as the hosts reach it."""
        assert self.subnet is not None, "open the Wi-Fi first"
        return str(self.subnet[1])

    def open(self) -> SimulatedWifi:
        sweep_leftovers()
        with _active_lock:
            subnet = _free_subnet()
            _active_subnets.add(subnet)
        self.subnet = subnet
        try:
            _ip("link", "add", self.bridge, "type", "bridge")
            self._made_bridge = True
            _ip("addr", "add", f"{self.gateway}/{subnet.prefixlen}", "dev", self.bridge)
            _ip("link", "set", self.bridge, "up")
        except BaseException:
            self.close()
            raise
        return self

    def add_host(self, name: str) -> Host:
        """A new machine on this Wi-Fi, named ``name`` (letters and digits)."""
        assert self.subnet is not None, "open the Wi-Fi first"
        if not re.fullmatch(r"[a-z][a-z0-9]{0,15}", name):
            raise ValueError(f"host name {name!r}: lower-case letters and digits, 16 at most")
        index = len(self.hosts)
        address = str(self.subnet[2 + index])
        namespace = f"{NAMESPACE_PREFIX}{os.getpid()}-{self.token}-{name}"
        veth = f"v{os.getpid():x}-{self.token}{index:x}"
        host = Host(name, namespace, address)
        _ip("netns", "add", namespace)
        self.hosts.append(host)  # from here on close() deletes it
        _ip("link", "add", veth, "type", "veth", "peer", "name", HOST_INTERFACE, "netns", namespace)
        _ip("link", "set", veth, "master", self.bridge)
        _ip("link", "set", veth, "up")
        prefix = f"{address}/{self.subnet.prefixlen}"
        _ip("addr", "add", prefix, "dev", HOST_INTERFACE, namespace=namespace)
        _ip("link", "set", HOST_INTERFACE, "up", namespace=namespace)
        _ip("link", "set", "lo", "up", namespace=namespace)
        return host

    def close(self) -> None:
        """Kill what runs on the hosts, delete them and the bridge. Safe to call twice."""
        for host in reversed(self.hosts):
            _kill_namespace(host.namespace)
        self.hosts.clear()
        if self._made_bridge:
            _ip("link", "delete", self.bridge, check=False)
            self._made_bridge = False
        if self.subnet is not None:
            with _active_lock:
                _active_subnets.discard(self.subnet)

    def __enter__(self) -> SimulatedWifi:
        return self.open()

    def __exit__(self, *exc: object) -> None:
        self.close()
