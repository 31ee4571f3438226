"""The server processes a run starts: each one's handle (``Started``), a monitor of the CPU
seconds and RSS of their process trees, and ``signals_held`` for a clean-up that Ctrl-C
must not cut short."""

from __future__ import annotations

import contextlib
import signal
import subprocess
import threading
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil

# ------------------------------------------------------------------ server processes


class ProcessMonitor:
    """CPU seconds and RSS of process trees, sampled every 0.5 s in a thread."""

    def __init__(self) -> None:
        self.roots: dict[str, int] = {}
        self._processes: dict[int, psutil.Process] = {}
        self._cpu: dict[int, float] = {}
        self._group: dict[int, str] = {}
        self.peak_rss = 0
        self.peak_rss_by_group: Counter[str] = Counter()
        self.cpu_total = 0.0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def add(self, name: str, pid: int) -> None:
        with self._lock:
            self.roots[name] = pid

    def sample(self) -> float:
        """Take a sample now; returns CPU seconds used so far by every process seen."""
        with self._lock:
            rss_by_group: Counter[str] = Counter()
            for name, pid in self.roots.items():
                try:
                    root = self._process(pid)
                    tree = [root, *root.children(recursive=True)]
                except (psutil.Error, OSError):
                    continue
                for process in tree:
                    try:
                        with process.oneshot():
                            times = process.cpu_times()
                            rss = process.memory_info().rss
                    except (psutil.Error, OSError):
                        continue
                    self._cpu[process.pid] = times.user + times.system
                    self._group[process.pid] = name
                    rss_by_group[name] += rss
            total_rss = sum(rss_by_group.values())
            self.peak_rss = max(self.peak_rss, total_rss)
            for name, rss in rss_by_group.items():
                self.peak_rss_by_group[name] = max(self.peak_rss_by_group[name], rss)
            self.cpu_total = sum(self._cpu.values())
            return self.cpu_total

    def cpu_by_group(self, exact: bool = False) -> dict[str, float]:
        """CPU seconds of each named tree as last sampled (to 0.1 s unless ``exact``)."""
        with self._lock:
            result: dict[str, float] = {}
            for pid, seconds in self._cpu.items():
                result[self._group[pid]] = result.get(self._group[pid], 0.0) + seconds
            if exact:
                return result
            return {name: round(seconds, 1) for name, seconds in result.items()}

    def _process(self, pid: int) -> psutil.Process:
        process = self._processes.get(pid)
        if process is None or not process.is_running():
            process = self._processes[pid] = psutil.Process(pid)
        return process

    def start(self) -> None:
        def loop() -> None:
            while not self._stop.wait(0.5):
                self.sample()

        self._thread = threading.Thread(target=loop, name="process-monitor", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)


@dataclass
class Started:
    name: str
    process: subprocess.Popen[bytes]
    log_path: Path
    killed: bool = False  # killed on purpose (--faults) and reaped: nothing left to stop


@contextlib.contextmanager
def signals_held() -> Any:
    """Ctrl-C and SIGTERM wait while this runs: a second one must not cut the clean-up short
    (it would leave processes, a private PostgreSQL or a database behind)."""
    previous = {
        number: signal.signal(number, signal.SIG_IGN) for number in (signal.SIGINT, signal.SIGTERM)
    }
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
