"""Hold this process to loopback and to the simulated Wi-Fis it made.

Installed by the test run (tests/conftest.py) and the benches: every TCP or UDP connect,
every datagram sent to an address and every name lookup goes through Python's audit hooks
(``socket.connect``, ``socket.sendto``, ``socket.sendmsg``, ``socket.getaddrinfo``). One
aimed anywhere but 127.0.0.0/8, ::1, ``localhost`` or a subnet of an open
``netlab.SimulatedWifi`` is refused before it reaches the kernel (PermissionError naming
the destination) and recorded, so the test that tried it fails even where the code under
test swallows the error. Subprocesses (Daphne, Chromium) are not covered: they are checked
from outside with strace (``bench/netaudit.py``).
"""

from __future__ import annotations

import errno
import ipaddress
import socket
import sys
import threading
from dataclasses import dataclass
from typing import Any

from netlab.wifi import active_subnets

LOCAL_NAMES = ("localhost", "localhost.", "ip6-localhost", "ip6-loopback")
CHECKED_FAMILIES = (socket.AF_INET, socket.AF_INET6)


@dataclass(frozen=True)
class Violation:
    event: str
    destination: str

    def __str__(self) -> str:
        return f"{self.event} to {self.destination}"


class ForbiddenDestination(PermissionError):
    """Raised where the process tried to reach an address the guard does not allow."""


_lock = threading.Lock()
_violations: list[Violation] = []
_allowed: list[ipaddress.IPv4Network | ipaddress.IPv6Network] = []
_installed = False


def allow(network: str) -> None:
    """Also allow ``network`` (CIDR): a simulated Wi-Fi another process made, for a process
    that runs on one of its hosts."""
    with _lock:
        _allowed.append(ipaddress.ip_network(network))


def is_allowed_host(host: str) -> bool:
    """True for loopback (names and addresses) and for addresses on an open simulated
    Wi-Fi; False for every other address and for names a DNS server would answer."""
    name = host.strip().lower()
    if name in LOCAL_NAMES or name.endswith(".localhost"):
        return True
    try:
        ip = ipaddress.ip_address(name.split("%", 1)[0].strip("[]"))
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    # 0.0.0.0 and :: as a destination are this machine, delivered over loopback.
    if ip.is_loopback or ip.is_unspecified:
        return True
    with _lock:
        allowed = [*_allowed, *active_subnets()]
    return any(ip in net for net in allowed if net.version == ip.version)


def _is_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host.split("%", 1)[0].strip("[]"))
    except ValueError:
        return False
    return True


def _destination(address: Any) -> tuple[str, str] | None:
    """(host, "host:port") of an AF_INET/AF_INET6 address tuple, else None."""
    if not isinstance(address, tuple) or not address:
        return None
    host = address[0]
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    port = address[1] if len(address) > 1 else "?"
    return str(host), f"{host}:{port}"


def _refuse(event: str, destination: str) -> None:
    with _lock:
        _violations.append(Violation(event, destination))
    raise ForbiddenDestination(
        errno.EACCES,
        f"network guard: {event} to {destination} refused: tests and benches may reach only"
        " loopback and the simulated Wi-Fi hosts they made (netlab)",
    )


def _hook(event: str, args: tuple[Any, ...]) -> None:
    if not event.startswith("socket."):
        return
    if event == "socket.getaddrinfo":
        host = args[0]
        if isinstance(host, bytes):
            host = host.decode("ascii", "replace")
        # An address needs no look-up (its connect is checked); a name may ask a DNS server.
        if host not in (None, "") and not _is_address(str(host)) and not is_allowed_host(str(host)):
            _refuse("name lookup", str(host))
        return
    if event not in ("socket.connect", "socket.sendto", "socket.sendmsg"):
        return
    sock, address = args[0], args[1]
    if address is None or getattr(sock, "family", None) not in CHECKED_FAMILIES:
        return
    found = _destination(address)
    if found is not None and not is_allowed_host(found[0]):
        _refuse(event.removeprefix("socket."), found[1])


def install() -> None:
    """Start guarding this process (audit hooks cannot be removed: for good)."""
    global _installed
    if not _installed:
        sys.addaudithook(_hook)
        _installed = True


def take_violations() -> list[Violation]:
    """What was refused since the last call (and forget it)."""
    with _lock:
        found = list(_violations)
        _violations.clear()
    return found
