"""bench/abuse.py's report: each attack against the floors (RSS up by at most 100 MB, honest
p95 at most 2x idle, no HTTP 500), its notes, and a table comparing the attacks."""

from __future__ import annotations

from bench.attacks.measurement import Bench
from bench.attacks.outcome import Outcome
from bench.attacks.server_watch import MB, mb

RSS_FLOOR_MB = 100
P95_FLOOR_FACTOR = 2.0


# ------------------------------------------------------------------------------ report


def floors(bench: Bench, outcome: Outcome) -> str:
    """One line: the attack against the three floors."""
    parts: list[str] = []
    if outcome.rss_before is not None and outcome.rss_peak is not None:
        grew = (max(outcome.rss_peak, outcome.rss_after or 0) - outcome.rss_before) / MB
        parts.append(
            f"RSS +{grew:,.0f} MB {'ok' if grew <= RSS_FLOOR_MB else 'OVER'} (<= {RSS_FLOOR_MB})"
        )
    else:
        parts.append("RSS not measured")
    if outcome.honest_p95 is not None and bench.idle_p95:
        factor = outcome.honest_p95 / bench.idle_p95
        verdict = "ok" if factor <= P95_FLOOR_FACTOR and not outcome.honest_unanswered else "OVER"
        parts.append(f"honest p95 {factor:.1f}x idle {verdict} (<= {P95_FLOOR_FACTOR:g}x)")
    else:
        parts.append(
            "honest p95: no verdicts" if not outcome.honest_n else "honest p95: no idle figure"
        )
    if outcome.honest_unanswered:
        parts.append(f"{outcome.honest_unanswered} honest words never answered")
    status_500 = outcome.http_statuses.get(500, 0)
    server_errors = outcome.log_errors.get("Internal Server Error", 0)
    ok = not outcome.http_5xx and not server_errors
    parts.append(
        f"HTTP 5xx {outcome.http_5xx} (500: {status_500}), logged 500s {server_errors}"
        f" {'ok' if ok else 'OVER'} (0)"
    )
    return "; ".join(parts)


def print_report(bench: Bench, outcomes: list[Outcome]) -> None:
    print()
    print(
        f"Idle: honest verdict p95 {bench.idle_p95 or 0:.1f} ms over {bench.idle_n} verdicts (8 players, 1 word/s)"
    )
    print(
        f"Floors: RSS +{RSS_FLOOR_MB} MB at most; honest p95 <= {P95_FLOOR_FACTOR:g}x idle; 0 HTTP 500"
    )
    for outcome in outcomes:
        print()
        print(f"== {outcome.name} ({outcome.seconds:.1f} s)")
        for line in outcome.details:
            print(f"   {line}")
        if outcome.failed:
            print(f"   the attack stopped on an error of its own: {outcome.failed}")
        print(
            f"   HTTP answers {dict(sorted(outcome.http_statuses.items()))}; server log {dict(outcome.log_errors)}"
        )
        print(f"   summary: {floors(bench, outcome)}")
    print()
    header = (
        f"{'attack':<13} {'RSS before':>10} {'peak':>7} {'after':>7} {'+MB':>6}"
        f" {'p95 ms':>8} {'x idle':>6} {'unans':>5} {'5xx':>4} {'log 500':>7}"
    )
    print(header)
    print("-" * len(header))
    for o in outcomes:
        grew = (
            f"{(max(o.rss_peak, o.rss_after or 0) - o.rss_before) / MB:,.0f}"
            if o.rss_before is not None and o.rss_peak is not None
            else "?"
        )
        factor = f"{o.honest_p95 / bench.idle_p95:.1f}" if o.honest_p95 and bench.idle_p95 else "-"
        p95 = f"{o.honest_p95:,.0f}" if o.honest_p95 is not None else "-"
        print(
            f"{o.name:<13} {mb(o.rss_before):>10} {mb(o.rss_peak):>7} {mb(o.rss_after):>7}"
            f" {grew:>6} {p95:>8} {factor:>6} {o.honest_unanswered:>5} {o.http_5xx:>4}"
            f" {o.log_errors.get('Internal Server Error', 0):>7}"
        )
    print(
        f"(idle p95 {bench.idle_p95 or 0:.1f} ms; honest errors over the run {dict(bench.table.errors())})"
    )
