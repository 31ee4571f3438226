"""What ``bin/start`` prints before serving: the address phones open, with a QR code.

``python -m web.start_banner BIND PORT``. Plain Python (no Django): the address is
``BOGGLE_LAN_HOST`` or the one ``web.network`` detects, which sends no traffic.
"""

from __future__ import annotations

import os
import sys

import segno

from web import network


def banner(
    bind: str,
    port: str,
    lan_host: str = "",
    colour: bool = False,
    to_serve_the_wifi: str = "run bin/start without --local",
) -> str:
    """The text to print for a server listening on ``bind:port``."""
    local = f"http://127.0.0.1:{port}/"
    wildcard = bind in {"0.0.0.0", "::"}
    if not wildcard and network.is_loopback(bind):
        return (
            f"\nServing this machine only: open {local}\n"
            f"(Phones cannot reach it; {to_serve_the_wifi} to play on your Wi-Fi.)\n"
        )
    if not wildcard:
        addresses = [bind]
    elif lan_host:
        addresses = [lan_host]
    else:
        addresses = [item.address for item in network.lan_addresses()]
    lines = [f"\nOn this computer open {local}"]
    if not addresses:
        lines.append("No network address found: connect this computer to the Wi-Fi, then restart.")
        return "\n".join(lines) + "\n"
    url = f"http://{addresses[0]}:{port}/"
    lines.append(f"Phones on the same Wi-Fi open {url} (or scan this):\n")
    lines.append(qr_text(url, colour))
    if len(addresses) > 1:
        others = ", ".join(f"http://{address}:{port}/" for address in addresses[1:])
        lines.append(f"On another of this computer's networks: {others}")
    lines.append(
        "A phone that cannot open it: allow incoming connections for Python in the firewall,"
        "\nand keep phones off a guest network (see docs/running.md, 'Play on your Wi-Fi').\n"
    )
    return "\n".join(lines)


def qr_modules(url: str) -> list[list[bool]]:
    """The QR code of ``url`` as rows of modules (True = dark), with a 2-module quiet zone."""
    qr = segno.make(url, error="m")
    return [[bool(cell) for cell in row] for row in qr.matrix_iter(scale=1, border=2)]


def qr_text(url: str, colour: bool) -> str:
    """The QR code drawn with half blocks, two module rows per line of text.

    ``colour``: paint it black on white with ANSI codes, so it scans on a dark or a light
    terminal; without (a log file), light modules are drawn as blocks, which suits the
    usual light-on-dark terminal.
    """
    rows = qr_modules(url)
    if len(rows) % 2:
        rows.append([False] * len(rows[0]))
    if colour:  # the block is the dark part, in black on a white background
        chars = {(False, False): " ", (True, False): "▀", (False, True): "▄", (True, True): "█"}
        start, end = "\033[30;107m", "\033[0m"
    else:  # the block is the light part, in the terminal's (light) text colour
        chars = {(False, False): "█", (True, False): "▄", (False, True): "▀", (True, True): " "}
        start = end = ""
    return "\n".join(
        start + "".join(chars[top, bottom] for top, bottom in zip(upper, lower, strict=True)) + end
        for upper, lower in zip(rows[::2], rows[1::2], strict=True)
    )


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python -m web.start_banner BIND PORT", file=sys.stderr)
        return 2
    lan_host = os.environ.get("BOGGLE_LAN_HOST", "").strip()
    print(banner(argv[0], argv[1], lan_host, colour=sys.stdout.isatty()), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
