"""How far co-op teams have got (``games.coop``): of the board's words, how many anyone in
each round had accepted. Read for the live counts and for the history, in two queries
however many rounds."""

from __future__ import annotations

from collections.abc import Mapping

from games import coop
from games.models import Round, Submission
from solver.judge import Verdict


def figures(
    round_ids: list[int], boards: Mapping[int, frozenset[str]] | None = None
) -> dict[int, tuple[int, int]]:
    """Each round's (the board's words found, the board's words). ``boards``: the board's
    words of rounds the caller holds already (``games.live``); the others are read."""
    if not round_ids:
        return {}
    found: dict[int, set[str]] = {round_id: set() for round_id in round_ids}
    for round_id, word in (
        Submission.objects.filter(round_id__in=round_ids, verdict=Verdict.ACCEPTED)
        .order_by()  # no ordering columns in the DISTINCT
        .values_list("round_id", "word")
        .distinct()
    ):
        found[round_id].add(word)
    known = dict(boards or {})
    missing = [round_id for round_id in round_ids if round_id not in known]
    if missing:
        for round_id, solution in Round.objects.filter(pk__in=missing).values_list(
            "id", "solution"
        ):
            known[round_id] = frozenset(entry[0] for entry in solution or [])
    return {
        round_id: (
            coop.found_count(known.get(round_id, frozenset()), found[round_id]),
            len(known.get(round_id, frozenset())),
        )
        for round_id in round_ids
    }
