"""Where phones can reach this machine, and which Host names the embedded default answers.

``bin/start`` serves the local network: friends at the table open the join link on their
phones, so the link and its QR code must carry an address of this machine on the shared
network, never 127.0.0.1 or localhost (which, on a phone, is the phone). Detection sends
no traffic: interface addresses come from the operating system (psutil), and the interface
of the default route from the kernel's routing table (on Linux, read from /proc; elsewhere
a UDP socket's connect, which only asks the routing table and sends nothing).

No Django imports: settings and the middleware in ``web.hosts`` use this, and
tests and benches pick their servers' ports with ``free_ports``.
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket
from dataclasses import dataclass
from pathlib import Path

import psutil

# Where there is no /proc/net/route: addresses a UDP "connect" is aimed at to learn the
# outgoing address: the documentation network (follows the default route) and one in each
# private range (a LAN without a default route). Nothing is ever sent to them.
ROUTE_PROBES = ("192.0.2.1", "10.255.255.254", "172.31.255.254", "192.168.255.254")

# Names that can only resolve on the local network, so answering them cannot be abused by
# DNS rebinding (a public name an attacker points at a private address).
LOCAL_SUFFIXES = (".localhost", ".local", ".lan", ".home.arpa", ".internal")

# Interfaces that are not the Wi-Fi or wired network phones share: containers, VPN tunnels.
VIRTUAL_PREFIXES = (
    "docker",
    "br-",
    "veth",
    "virbr",
    "vmnet",
    "vboxnet",
    "tun",
    "tap",
    "utun",
    "zt",
    "tailscale",
    "wg",
)


@dataclass(frozen=True)
class LanAddress:
    interface: str
    address: str


def split_host(host: str) -> tuple[str, str]:
    """``"[::1]:8000"`` → ``("::1", "8000")``; ``"example.org"`` → ``("example.org", "")``."""
    host = host.strip().lower()
    if host.startswith("["):
        name, _, rest = host[1:].partition("]")
        return name, rest.removeprefix(":")
    if host.count(":") == 1:
        name, _, port = host.partition(":")
        return name, port
    return host, ""


def _ip(name: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(name.split("%", 1)[0])
    except ValueError:
        return None


def is_loopback(name: str) -> bool:
    """True for names a phone would take as itself: 127.0.0.0/8, ::1, localhost."""
    ip = _ip(name)
    if ip is not None:
        return ip.is_loopback or ip.is_unspecified
    name = name.rstrip(".")
    return name == "localhost" or name.endswith(".localhost")


def is_local_name(name: str, extra: tuple[str, ...] = ()) -> bool:
    """True when ``name`` (no port) is an IP address, a single-label name (``localhost``,
    ``laptop``), this machine's name, a name only the local network resolves, or one of
    ``extra``: the Host names the embedded default answers. Public names are refused, so a
    web page cannot use DNS rebinding to reach the server from a player's browser."""
    name = name.rstrip(".")
    if not name:
        return False
    # A name without a dot can only come from this network (hosts file, router, mDNS):
    # DNS rebinding needs a public domain name.
    if _ip(name) is not None or "." not in name or name in extra:
        return True
    if name.endswith(LOCAL_SUFFIXES):
        return True
    machine = socket.gethostname().lower()
    return name in {machine, machine.split(".", 1)[0]}


def _usable(address: str) -> bool:
    ip = _ip(address)
    return (
        ip is not None
        and ip.version == 4
        and not (ip.is_loopback or ip.is_link_local or ip.is_unspecified)
    )


# Linux's IPv4 routing table: one route a line, hexadecimal fields, a header line first.
PROC_ROUTES = Path("/proc/net/route")
RTF_UP = 0x1


def default_route_interface(table: str) -> str | None:
    """The interface of the default route with the lowest metric in a /proc/net/route text."""
    best: tuple[int, str] | None = None
    for line in table.splitlines()[1:]:
        fields = line.split()
        if len(fields) < 8:
            continue
        interface, destination, _gateway, flags, _refs, _use, metric, mask = fields[:8]
        try:
            up = int(flags, 16) & RTF_UP
            default = int(destination, 16) == 0 and int(mask, 16) == 0
            rank = int(metric)
        except ValueError:
            continue
        if up and default and (best is None or rank < best[0]):
            best = (rank, interface)
    return best[1] if best else None


def _interface_address(interface: str) -> str | None:
    try:
        addresses = psutil.net_if_addrs().get(interface, [])
    except (OSError, RuntimeError):
        return None
    for entry in addresses:
        if entry.family == socket.AF_INET and _usable(entry.address):
            return str(entry.address)
    return None


def routed_address() -> str | None:
    """The IPv4 address this machine would send from to reach its networks, or None."""
    try:
        table = PROC_ROUTES.read_text(encoding="ascii", errors="replace")
    except OSError:
        return _probed_address()
    interface = default_route_interface(table)
    return _interface_address(interface) if interface else None


def _probed_address() -> str | None:
    """Without /proc (macOS, BSD): ask the routing table through a UDP socket's connect."""
    for probe in ROUTE_PROBES:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
            try:
                udp.connect((probe, 9))  # UDP connect: a route lookup, no packet sent
                address = udp.getsockname()[0]
            except OSError:
                continue
        if _usable(address):
            return address
    return None


def lan_addresses() -> list[LanAddress]:
    """This machine's IPv4 addresses that phones on a shared network could use, best first:
    the routed one, then other real interfaces (private ranges first), virtual ones last."""
    found: list[LanAddress] = []
    try:
        interfaces = psutil.net_if_addrs()
        stats = psutil.net_if_stats()
    except (OSError, RuntimeError):
        interfaces, stats = {}, {}
    for interface, addresses in interfaces.items():
        if interface in stats and not stats[interface].isup:
            continue
        for entry in addresses:
            if entry.family == socket.AF_INET and _usable(entry.address):
                found.append(LanAddress(interface, entry.address))
    routed = routed_address()
    if routed and all(item.address != routed for item in found):
        found.append(LanAddress("", routed))

    def rank(item: LanAddress) -> tuple[int, int, int]:
        ip = ipaddress.ip_address(item.address)
        virtual = item.interface.lower().startswith(VIRTUAL_PREFIXES)
        return (item.address != routed, virtual, not ip.is_private)

    return sorted(found, key=rank)


def best_lan_address() -> str | None:
    """The address to put in join links when the host's browser uses a loopback address."""
    addresses = lan_addresses()
    return addresses[0].address if addresses else None


def free_ports(count: int) -> list[int]:
    """Distinct free TCP ports on 127.0.0.1, for tools that start servers of their own
    (tests, benches). All are held open together while picked: a port just let go of may be
    handed out again at once, and two servers would then try the same one."""
    with contextlib.ExitStack() as held:
        sockets = [held.enter_context(socket.socket()) for _ in range(count)]
        for sock in sockets:
            sock.bind(("127.0.0.1", 0))
        return [sock.getsockname()[1] for sock in sockets]


def free_port() -> int:
    return free_ports(1)[0]
