"""``--profile DIR``: where the site's web processes spend their CPU while a round is played.

py-spy (requirements-dev.txt) samples each Daphne from outside, without pausing it, from the
first room's start until the round's results are read, and writes one flame graph per
process and round: ``DIR/daphne-<port>-round<N>.svg`` (open it in a browser: the widest
boxes are where the time went), or with ``--profile-format raw`` the collapsed stacks
(``.txt``, one stack and its sample count a line) that ``bench/profile_summary.py`` sums by
function. Sampling needs ptrace rights over the Daphnes: root, or
``kernel.yama.ptrace_scope = 0``; without them py-spy's own error is printed and the run
goes on unprofiled.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

from bench.crowd.figures import log
from bench.crowd.site import Site

# Samples a second per process: enough for a 30 s round's profile, and py-spy itself stays
# under a few per cent of a core.
SAMPLES_PER_SECOND = 200
# How long py-spy may take to write its flame graph once told to stop.
WRITE_SECONDS = 30.0


class Profiler:
    """Records every Daphne of ``site`` between ``start`` and ``stop``."""

    def __init__(self, directory: Path, site: Site, output_format: str = "flamegraph") -> None:
        self.directory = directory
        self.output_format = output_format
        self.site = site
        self.recording: list[tuple[subprocess.Popen[bytes], Path]] = []

    @staticmethod
    def available() -> str | None:
        """The py-spy executable, or None (with a line saying so) when it is missing."""
        # The virtualenv's own, when the bench runs as .venv/bin/python without activating it.
        found = shutil.which(
            "py-spy",
            path=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
        )
        if found is None:
            log("profile: py-spy is not installed (pip install -r requirements-dev.txt)")
        return found

    def start(self, label: str) -> None:
        executable = self.available()
        if executable is None:
            return
        self.directory.mkdir(parents=True, exist_ok=True)
        for daphne in self.site.find("daphne"):
            suffix = "svg" if self.output_format == "flamegraph" else "txt"
            output = self.directory / f"{daphne.name}-{label}.{suffix}"
            command = [
                executable,
                "record",
                "--pid",
                str(daphne.process.pid),
                "--rate",
                str(SAMPLES_PER_SECOND),
                "--nonblocking",
                # Only the thread holding the GIL: Python's CPU, not threads waiting on the
                # database or epoll (without it those waits fill half the samples).
                "--gil",
                # Granian serves from a worker process, a child of the one started.
                *(["--subprocesses"] if self.site.server == "granian" else []),
                "--format",
                self.output_format,
                "--output",
                str(output),
            ]
            process = subprocess.Popen(
                command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL
            )
            self.recording.append((process, output))

    def stop(self) -> list[Path]:
        """Stop every recording; the flame graphs written."""
        written = []
        for process, output in self.recording:
            process.send_signal(signal.SIGINT)  # py-spy writes its file when interrupted
            try:
                _, errors = process.communicate(timeout=WRITE_SECONDS)
            except subprocess.TimeoutExpired:
                process.kill()
                _, errors = process.communicate()
            if output.exists():
                written.append(output)
                log(f"profile: {output}")
            else:
                log(
                    f"profile: py-spy wrote no {output.name}: {errors.decode(errors='replace')[-500:]}"
                )
        self.recording = []
        return written
