"""What one attack did: the statuses and errors it met, the server's memory around it, and
the honest players' verdict times meanwhile (``bench.attacks.measurement.Bench`` fills it)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from bench.crowd.figures import log


@dataclass
class Outcome:
    name: str
    details: list[str] = field(default_factory=list)
    http_statuses: Counter[int] = field(default_factory=Counter)
    rss_before: int | None = None
    rss_peak: int | None = None
    rss_after: int | None = None
    honest_p95: float | None = None
    honest_n: int = 0
    honest_unanswered: int = 0
    log_errors: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0
    failed: str = ""

    @property
    def http_5xx(self) -> int:
        return sum(count for status, count in self.http_statuses.items() if status >= 500)

    def note(self, text: str) -> None:
        self.details.append(text)
        log(f"  {self.name}: {text}")
