"""The server under attack, watched from outside: the RSS of its process tree (sampled in a
thread, with its peak over a moment), the process listening on a URL's port, and the
errors and tracebacks its Daphne logged; ``MB`` and ``mb`` for the figures."""

from __future__ import annotations

import asyncio
import contextlib
import re
import threading
import time
import urllib.parse
from collections import Counter

import psutil

from bench.crowd.figures import log
from bench.crowd.site import Site

MB = 1024 * 1024


SAMPLE_SECONDS = 0.2  # the server's RSS is read this often
TRACEBACK_END = r"Traceback \(most recent call last\):\n(?:[ \t].*\n)+(.*)"


# --------------------------------------------------------------------------- the server


class RssSampler:
    """RSS of the server's process tree, sampled every ``SAMPLE_SECONDS`` in a thread."""

    def __init__(self, pid: int | None) -> None:
        self.pid = pid
        self.samples: list[tuple[float, int]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="rss", daemon=True)

    def read(self) -> int | None:
        if self.pid is None:
            return None
        try:
            root = psutil.Process(self.pid)
            tree = [root, *root.children(recursive=True)]
        except psutil.Error:
            return None
        total = 0
        for process in tree:
            with contextlib.suppress(psutil.Error):
                total += process.memory_info().rss
        return total

    async def settle(self, steady_seconds: float = 3.0, limit: float = 90.0) -> None:
        """Wait until the server's RSS holds within 5 MB for ``steady_seconds`` (the
        site loads the photo reader in the background as it starts: the idle figures and
        each attack's "before" are taken after that)."""
        started = time.monotonic()
        steady_since, last = started, self.read()
        while last is not None and time.monotonic() - started < limit:
            await asyncio.sleep(0.5)
            now = self.read()
            if now is None or abs(now - last) > 5 * MB:
                steady_since, last = time.monotonic(), now
            elif time.monotonic() - steady_since >= steady_seconds:
                log(f"server RSS steady at {mb(now)} MB after {time.monotonic() - started:.0f} s")
                return

    def _loop(self) -> None:
        while not self._stop.wait(SAMPLE_SECONDS):
            rss = self.read()
            if rss is not None:
                self.samples.append((time.monotonic(), rss))

    def start(self) -> None:
        if self.pid is not None:
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def peak(self, since: float, until: float | None = None) -> int | None:
        """The highest RSS sampled from ``since`` to ``until`` (monotonic seconds) and in the
        sampling period after it (a moment shorter than a period still gets a sample);
        without ``until``, to now, counting one read now."""
        end = None if until is None else until + SAMPLE_SECONDS
        values = [rss for at, rss in self.samples if at >= since and (end is None or at <= end)]
        now = self.read() if until is None else None
        if now is not None:
            values.append(now)
        return max(values) if values else None

    def at(self, moment: float) -> int | None:
        """The RSS sampled nearest ``moment`` (monotonic seconds)."""
        if not self.samples:
            return self.read()
        return min(self.samples, key=lambda sample: abs(sample[0] - moment))[1]


def pid_listening_on(url: str) -> int | None:
    port = urllib.parse.urlsplit(url).port
    with contextlib.suppress(psutil.Error, OSError):
        for conn in psutil.net_connections("tcp"):
            if conn.status == psutil.CONN_LISTEN and conn.laddr and conn.laddr.port == port:
                return conn.pid
    return None


class ServerLog:
    """Error lines the Daphne logged (only for a site started here)."""

    def __init__(self, site: Site) -> None:
        self.paths = [started.log_path for started in site.processes]

    def text(self) -> str:
        parts: list[str] = []
        for path in self.paths:
            with contextlib.suppress(OSError):
                parts.append(path.read_text(errors="replace"))
        return "\n".join(parts)

    def counts(self) -> Counter[str]:
        text = self.text()
        return Counter(
            {
                "Internal Server Error": text.count("Internal Server Error"),
                "Traceback": text.count("Traceback (most recent call last)"),
            }
        )

    def exceptions(self, since: int) -> Counter[str]:
        """The last line of each traceback logged past character ``since``."""
        found = re.findall(TRACEBACK_END, self.text()[since:])
        return Counter(line.strip()[:110] for line in found)


def mb(value: int | None) -> str:
    return "?" if value is None else f"{value / MB:,.0f}"
