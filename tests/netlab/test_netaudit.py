"""bench/netaudit.py's reading of strace: what counts as traffic, and where it went."""

from __future__ import annotations

import ipaddress

from bench import netaudit

FAKE = ipaddress.IPv4Interface("192.168.50.10/24")
TRACE = """\
101 connect(5<TCP:[11]>, {sa_family=AF_INET, sin_port=htons(8000), sin_addr=inet_addr("192.168.50.10")}, 16) = 0
102 connect(6<TCP:[12]>, {sa_family=AF_INET, sin_port=htons(8000), sin_addr=inet_addr("127.0.0.1")}, 16) = 0
103 connect(7<TCP:[13]>, {sa_family=AF_INET, sin_port=htons(8000), sin_addr=inet_addr("10.77.4.2")}, 16) = -1 EINPROGRESS
104 connect(8<UDPv6:[14]>, {sa_family=AF_INET6, sin6_port=htons(443), sin6_flowinfo=htonl(0), inet_pton(AF_INET6, "2001:4860:4860::8888", &sin6_addr), sin6_scope_id=0}, 28) = -1 ENETUNREACH
105 sendto(9<UDP:[192.168.50.10:4000->8.8.8.8:53]>, "\\1\\2", 2, 0, NULL, 0) = 2
106 sendto(10<UNIX-STREAM:[15]>, "x", 1, MSG_NOSIGNAL, NULL, 0) = 1
107 sendmmsg(11<UDP:[16]>, [{msg_hdr={msg_name={sa_family=AF_INET, sin_port=htons(53), sin_addr=inet_addr("192.168.50.1")}, msg_namelen=16}}], 1, 0) = 1
"""


def test_traffic_is_counted_by_destination_and_kind() -> None:
    counts, examples = netaudit.parse(TRACE, FAKE)
    assert counts == {
        ("FAKE LAN ADDRESS", "TCP", "connect"): 1,
        ("loopback", "TCP", "connect"): 1,
        ("simulated Wi-Fi", "TCP", "connect"): 1,
        ("PUBLIC", "UDP", "connect"): 1,
        ("PUBLIC", "UDP", "sendto"): 1,
        ("FAKE LAN", "UDP", "sendmmsg"): 1,
    }
    # A UDP connect sends nothing; the TCP connect and the two datagrams do.
    assert [line.split()[0] for line in examples] == ["101", "105", "107"]


def test_only_connects_and_sends_outside_loopback_and_the_wifi_fail_a_run() -> None:
    assert netaudit.carries_traffic("FAKE LAN ADDRESS", "TCP", "connect")
    assert netaudit.carries_traffic("PUBLIC", "UDP", "sendto")
    assert not netaudit.carries_traffic("PUBLIC", "UDP", "connect")
    assert not netaudit.carries_traffic("simulated Wi-Fi", "TCP", "connect")
    assert not netaudit.carries_traffic("loopback", "UDP", "sendto")
