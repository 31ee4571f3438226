"""A profile's rounds as a client sends them (profiles.rounds): kept to the fields the
profile keeps, every hostile value refused with the field it was in."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from profiles.rounds import MAX_ROUNDS_PER_REQUEST, clean_round, clean_rounds
from web.errors import InvalidInput

NOW = datetime(2026, 12, 6, 12, tzinfo=UTC)
ENDED = int(datetime(2026, 12, 5, 20, tzinfo=UTC).timestamp() * 1000)


def record(**changes):
    base = {
        "id": f"ABCD/1/2/{ENDED}",
        "at": ENDED,
        "room": "ABCD",
        "game": 1,
        "size": 4,
        "score": 23,
        "words": 11,
        "found": 12,
        "players": 3,
        "best": {"word": "quest", "points": 4},
        "longest": "quests",
        "daily": None,
        "offline": False,
    }
    return {**base, **changes}


def test_a_round_keeps_its_fields_and_drops_unknown_ones() -> None:
    cleaned = clean_round(record(extra="dropped", best={"word": "QUEST", "points": 4}), NOW)
    assert cleaned == {**record(), "best": {"word": "quest", "points": 4}}


def test_words_of_the_sites_languages_pass() -> None:
    assert clean_round(record(longest="déjà"), NOW)["longest"] == "déjà"
    assert clean_round(record(longest="ijsbeer", daily="2026-12-05"), NOW)["daily"] == "2026-12-05"


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"id": ""}, "id"),
        ({"id": "x" * 81}, "id"),
        ({"id": "<script>"}, "id"),
        ({"room": "AB CD"}, "room"),
        ({"at": "yesterday"}, "at"),
        ({"at": 0}, "at"),
        ({"at": int(NOW.timestamp() * 1000) + 3 * 86_400_000}, "at"),
        ({"size": 40}, "size"),
        ({"size": True}, "size"),
        ({"score": -1}, "score"),
        ({"score": 1.5}, "score"),
        ({"words": 10**9}, "words"),
        ({"players": 0}, "players"),
        ({"best": "quest"}, "best"),
        ({"best": {"word": "qu3st", "points": 4}}, "best.word"),
        ({"best": {"word": None, "points": 4}}, "best.word"),
        ({"best": {"word": "quest", "points": -4}}, "points"),
        ({"longest": "a" * 41}, "longest"),
        ({"longest": ["quest"]}, "longest"),
        ({"daily": "2026-13-01"}, "daily"),
        ({"daily": 20261205}, "daily"),
        ({"offline": "no"}, "offline"),
    ],
)
def test_a_malformed_round_is_refused_naming_its_field(changes, field) -> None:
    with pytest.raises(InvalidInput) as refused:
        clean_round(record(**changes), NOW)
    assert refused.value.message.startswith(field)


def test_a_request_names_its_bad_round_and_keeps_one_record_per_id() -> None:
    with pytest.raises(InvalidInput, match=r"rounds\[1\]: score"):
        clean_rounds({"rounds": [record(), record(id="b", score=-3)]}, NOW)
    kept = clean_rounds({"rounds": [record(score=1), record(id="b"), record(score=9)]}, NOW)
    assert [(r["id"], r["score"]) for r in kept] == [(record()["id"], 9), ("b", 23)]


@pytest.mark.parametrize("body", [{}, {"rounds": "all"}, {"rounds": {"a": 1}}, {"rounds": [3]}])
def test_a_body_without_a_list_of_rounds_is_refused(body) -> None:
    with pytest.raises(InvalidInput):
        clean_rounds(body, NOW)


def test_a_request_carries_a_bounded_number_of_rounds() -> None:
    many = [record(id=f"r{n}") for n in range(MAX_ROUNDS_PER_REQUEST + 1)]
    with pytest.raises(InvalidInput, match="at most"):
        clean_rounds({"rounds": many}, NOW)
    assert len(clean_rounds({"rounds": many[:-1]}, NOW)) == MAX_ROUNDS_PER_REQUEST
