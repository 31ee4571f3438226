"""Where a command's processes send traffic: every connect and send, by destination.

    python bench/netaudit.py -- python -m pytest tests/browser/test_join_link.py
    python bench/netaudit.py -- python bench/abuse.py --attack deep-json --attack join-many

The command runs under ``strace -f`` inside a network namespace made for the audit, whose
only interfaces are ``lo`` and a fake LAN interface (``eth0``, ``--address``, a veth to an
empty router namespace, with the default route through it): the machine a test run would be on, minus everything real.
Every ``connect``, ``sendto``, ``sendmsg`` and ``sendmmsg`` of every process with an IPv4
or IPv6 destination is counted by protocol (TCP, UDP) and by kind of destination: loopback,
the simulated Wi-Fis (netlab, 10.77.0.0/16), the fake LAN interface's own address, another
address of its LAN, other private addresses, public ones. The run passes when no TCP
connect and no datagram went to the fake interface's address, to its LAN or to a public
address (a UDP connect sends nothing: it is listed apart). Needs root and strace.
"""

from __future__ import annotations

import argparse
import ipaddress
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from netlab.wifi import SUBNET_POOL

SYSCALLS = "connect,sendto,sendmsg,sendmmsg"
# strace -yy prints a descriptor as 5<TCP:[...]> or 5<UDP:[...]>; the address as
# sin_addr=inet_addr("1.2.3.4") or inet_pton(AF_INET6, "::1", &sin6_addr).
CALL = re.compile(r"^\s*(?:\[pid\s+)?(\d+)\]?\s+(\w+)\((\d+)<(\w+)")
IPV4 = re.compile(r'sin_port=htons\((\d+)\), sin_addr=inet_addr\("([0-9.]+)"\)')
CONNECTED = re.compile(r"<(?:TCP|UDP)(?:v6)?:\[[^\]]*->\[?([0-9a-fA-F:.]+?)\]?:\d+\]>")
IPV6 = re.compile(r'sin6_port=htons\((\d+)\).*?inet_pton\(AF_INET6, "([0-9a-fA-F:.]+)"')


def classify(address: str, fake: ipaddress.IPv4Interface) -> str:
    ip = ipaddress.ip_address(address)
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip.is_loopback or ip.is_unspecified:
        return "loopback"
    if ip == fake.ip:
        return "FAKE LAN ADDRESS"
    if ip in fake.network:
        return "FAKE LAN"
    if ip in SUBNET_POOL:
        return "simulated Wi-Fi"
    if ip.is_global:
        return "PUBLIC"
    return "other private"


def parse(
    trace: str, fake: ipaddress.IPv4Interface
) -> tuple[Counter[tuple[str, str, str]], list[str]]:
    """Counts by (kind of destination, protocol, call), and the first lines that carried
    traffic where none may go."""
    counts: Counter[tuple[str, str, str]] = Counter()
    examples: list[str] = []
    for line in trace.splitlines():
        call = CALL.match(line)
        if not call:
            continue
        found = IPV4.search(line) or IPV6.search(line)
        # A send on a connected socket names no address: -yy shows it on the descriptor.
        peer = None if found else CONNECTED.search(line)
        address = found.group(2) if found else peer.group(1) if peer else None
        if address is None:
            continue
        kind = classify(address, fake)
        protocol = call.group(4) if call.group(4) in ("TCP", "UDP", "TCPv6", "UDPv6") else "other"
        key = (kind, protocol.removesuffix("v6"), call.group(2))
        counts[key] += 1
        if carries_traffic(*key) and len(examples) < 20:
            examples.append(line.strip()[:200])
    return counts, examples


def run(command: list[str], fake: ipaddress.IPv4Interface, trace_path: Path) -> int:
    namespace = f"netaudit-{os.getpid()}"
    gateway = str(next(host for host in fake.network.hosts() if host != fake.ip))

    def ip(*args: str) -> None:
        subprocess.run(["ip", "-n", namespace, *args], check=True)

    # The LAN: a namespace of its own holding the router's end of eth0, where nothing
    # listens (the kernel has no dummy interfaces everywhere; a veth pair works on all).
    lan = f"{namespace}-lan"
    for name in (namespace, lan):
        subprocess.run(["ip", "netns", "add", name], check=True)
    try:
        ip("link", "set", "lo", "up")
        ip("link", "add", "eth0", "type", "veth", "peer", "name", "router", "netns", lan)
        ip("addr", "add", str(fake), "dev", "eth0")
        ip("link", "set", "eth0", "up")
        subprocess.run(["ip", "-n", lan, "link", "set", "router", "up"], check=True)
        subprocess.run(
            [
                "ip",
                "-n",
                lan,
                "addr",
                "add",
                f"{gateway}/{fake.network.prefixlen}",
                "dev",
                "router",
            ],
            check=True,
        )
        ip("route", "add", "default", "via", gateway)
        traced = ["strace", "-f", "-qq", "-yy", "-e", f"trace={SYSCALLS}", "-o", str(trace_path)]
        return subprocess.run(
            ["ip", "netns", "exec", namespace, *traced, *command], check=False
        ).returncode
    finally:
        pids = subprocess.run(
            ["ip", "netns", "pids", namespace], capture_output=True, text=True, check=False
        ).stdout.split()
        for pid in pids:
            subprocess.run(["kill", "-9", pid], check=False)
        for name in (namespace, lan):
            subprocess.run(["ip", "netns", "delete", name], check=False)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--address",
        default="192.168.50.10/24",
        type=ipaddress.IPv4Interface,
        help="the fake LAN interface's address (192.168.50.10/24)",
    )
    parser.add_argument("--keep-trace", metavar="FILE", help="keep strace's output there")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- the command to audit")
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command to audit after --")
    if os.geteuid() != 0 or not shutil.which("strace") or not shutil.which("ip"):
        raise SystemExit("netaudit: needs root, strace and iproute2's ip")
    with tempfile.TemporaryDirectory(prefix="netaudit-") as tmp:
        trace_path = Path(args.keep_trace or Path(tmp) / "trace.txt")
        status = run(command, args.address, trace_path)
        counts, examples = parse(trace_path.read_text(errors="replace"), args.address)
    print()
    print(f"netaudit: {' '.join(command)}")
    print(f"  exit status {status}; fake LAN interface eth0 {args.address}")
    print(f"  {'destination':<18} {'protocol':<8} {'call':<9} {'count':>7}")
    for (kind, protocol, call), count in sorted(counts.items()):
        print(f"  {kind:<18} {protocol:<8} {call:<9} {count:>7,}")
    bad = sum(count for key, count in counts.items() if carries_traffic(*key))
    lookups = sum(
        count
        for (kind, protocol, call), count in counts.items()
        if kind.isupper() and protocol == "UDP" and call == "connect"
    )
    for line in examples:
        print(f"    {line}")
    print(
        f"  TCP connects and UDP sends to the fake LAN address, its LAN or public addresses:"
        f" {bad} ({'ok' if not bad else 'FAIL'})"
    )
    if lookups:
        print(
            f"  UDP connects to them: {lookups} (a route lookup: no packet leaves; Chromium's"
            " IPv6 reachability probe makes one per host name resolution)"
        )
    raise SystemExit(1 if bad else status)


def carries_traffic(kind: str, protocol: str, call: str) -> bool:
    """A TCP connect (a SYN) or any send, to a destination outside loopback and the
    simulated Wi-Fis. A UDP connect only asks the routing table."""
    if not kind.isupper():
        return False
    return call != "connect" or protocol != "UDP"


if __name__ == "__main__":
    main()
