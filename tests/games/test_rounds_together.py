"""Rooms whose rounds end together (games.rounds.end_rounds): each room's round ends once,
with the same results and versions as if it ended alone, in a fixed number of statements
whatever the number of rooms; the worker's task and the watcher end due rounds in batches."""

from __future__ import annotations

import gc
import json
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games import events, hints, presenters, rooms, rounds, standings, state, tasks
from games.models import Player, Room, Round, Submission
from games.totals import room_totals, totals_through
from tests.games.test_rounds_and_words import make_room, running_round
from tests.games.words_helpers import submit_word

pytestmark = pytest.mark.django_db


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, dict]]:
    """Every event sent after its commit, with its group; a personal part (``round.ended``'s
    ``mine``) is kept in the event under its key, as a dict by player id, and the fields
    for the receiving processes under ``attached``."""
    messages: list[tuple[str, dict]] = []

    def deliver(group: str, handler: str, message: dict, personal=None, attach=None) -> None:
        if personal is not None:
            key, by_player = personal
            message = {**message, key: by_player}
        if attach is not None:
            message = {**message, "attached": attach}
        messages.append((group, message))

    monkeypatch.setattr(events, "_deliver", deliver)
    monkeypatch.setattr(events, "_send_on_commit", lambda group, handler, m: None)
    return messages


def played_room(words: dict[str, list[str]], **settings) -> tuple[Round, list[Player]]:
    """A room with a running round in which each nickname entered its words."""
    ann, bob = make_room(**settings)
    players = [ann, bob]
    for nickname in words:
        if nickname not in ("Ann", "Bob"):
            players.append(rooms.do_join_room(ann.room, nickname))
    round_ = running_round(ann)
    by_nickname = {player.nickname: player for player in players}
    for nickname, entries in words.items():
        for entry in entries:
            submit_word(by_nickname[nickname], entry)
    return round_, players


def make_due(*rounds_: Round) -> None:
    Round.objects.filter(pk__in=[r.pk for r in rounds_]).update(
        ends_at=timezone.now() - timedelta(seconds=5)
    )


def test_rooms_ending_together_get_what_each_would_get_alone(sent):
    played = [
        played_room({"Ann": ["cats", "went"], "Bob": ["cats", "zebra"]}),
        played_room({"Ann": ["quiet"], "Bob": ["dog", "diet"], "Cy": ["diet", "quit"]}),
        played_room({"Ann": ["went"]}, cancel_duplicates=False),
    ]
    versions = {r.room_id: Room.objects.get(pk=r.room_id).version for r, _ in played}

    ended = rounds.end_rounds([r.id for r, _ in played])

    assert sorted(ended) == sorted(r.id for r, _ in played)
    assert len(sent) == 3
    for round_, _ in played:
        round_.refresh_from_db()
        assert round_.status == Round.Status.ENDED
        _group, event = next(
            (g, m)
            for g, m in sent
            if m["scores"]["round"]["number"] == 1 and g == events.room_group(round_.room.code)
        )
        assert event["type"] == "round.ended"
        assert (
            event["version"]
            == versions[round_.room_id] + 1
            == Room.objects.get(pk=round_.room_id).version
        )
        # Built together, the same as built alone afterwards: the scores and each
        # player's own words in the event, the whole results kept for the HTTP requests.
        alone = state.results(round_)
        assert event["scores"] == presenters.scores_dict(alone)
        assert event["mine"] == presenters.own_results_by_player(alone)
        assert set(event["mine"]) == {player["id"] for player in alone["players"]}
        # The whole results go along for the processes to keep (never to a socket).
        assert event["attached"]["round_number"] == 1
        assert json.loads(event["attached"]["results"]) == alone
    bob_points = {
        word: points
        for word, points in Submission.objects.filter(
            round=played[0][0], player__nickname="Bob"
        ).values_list("word", "points")
    }
    assert bob_points == {"cats": 0, "zebra": 0}  # cats cancelled by Ann's, zebra refused
    ann_went = Submission.objects.get(round=played[2][0], word="went")
    assert ann_went.points == 1 and not ann_went.cancelled


def test_the_cycle_collector_waits_while_rounds_end(sent, monkeypatch):
    """Ending rooms builds many result dicts at once; the collector, which would walk them
    all while they live, runs again once they are sent (web.gc_tuning)."""
    played = [played_room({"Ann": ["cats"], "Bob": ["went"]})[0] for _ in range(2)]
    collecting_while_built = []
    build = state.results_of

    def results_of(*args, **kwargs):
        collecting_while_built.append(gc.isenabled())
        return build(*args, **kwargs)

    monkeypatch.setattr(state, "results_of", results_of)
    assert gc.isenabled()
    assert sorted(rounds.end_rounds([r.id for r in played])) == sorted(r.id for r in played)
    assert collecting_while_built == [False]
    assert gc.isenabled()
    assert len(sent) == 2


def test_ending_many_rooms_costs_the_statements_of_one(sent):
    """The statements of a batch do not grow with its rooms: a tournament's end is one
    batch, not a queue of rooms each waiting for the ones before."""
    one = [played_room({"Ann": ["cats"], "Bob": ["went"]})[0]]
    many = [played_room({"Ann": ["cats"], "Bob": ["went", "dog"]})[0] for _ in range(6)]
    with CaptureQueriesContext(connection) as alone:
        rounds.end_rounds([r.id for r in one])
    with CaptureQueriesContext(connection) as together:
        rounds.end_rounds([r.id for r in many])
    assert len(together.captured_queries) == len(alone.captured_queries)
    assert len(sent) == 7


def test_a_round_ends_once_however_many_batches_name_it(sent):
    round_, _ = played_room({"Ann": ["cats"]})
    other, _ = played_room({"Bob": ["went"]})
    assert rounds.end_rounds([round_.id]) == [round_.id]
    assert rounds.end_rounds([round_.id, other.id]) == [other.id]
    assert rounds.end_rounds([round_.id, other.id], wait=False) == []
    assert rounds.end_rounds([]) == []
    assert [m["type"] for _, m in sent] == ["round.ended", "round.ended"]


def test_the_worker_task_ends_the_other_due_rounds_with_its_own(sent):
    first, _ = played_room({"Ann": ["cats"]})
    second, _ = played_room({"Bob": ["went"]})
    not_due, _ = played_room({"Ann": ["dog"]})
    make_due(first, second)

    assert tasks.end_round(first.id) is True

    statuses = dict(Round.objects.values_list("id", "status"))
    assert statuses[first.id] == statuses[second.id] == Round.Status.ENDED
    assert statuses[not_due.id] == Round.Status.RUNNING
    assert tasks.end_round(second.id) is False  # already ended, with the first
    assert len(sent) == 2


def test_totals_through_rounds_agree_with_each_rooms_totals(sent):
    """Two games in one room (a rematch starts from zero), several rounds, and a room with
    hints: the batch totals are each round's ``room_totals`` up to it."""
    round_a, (ann, bob) = played_room({"Ann": ["cats", "went"], "Bob": ["dog"]})
    rounds.do_end_round(round_a.id)
    second = running_round(ann)
    submit_word(bob, "quiet")
    rounds.do_end_round(second.id)
    standings.do_end_game(ann)
    standings.do_new_game(ann)
    third = running_round(ann)
    submit_word(ann, "went")
    rounds.do_end_round(third.id)
    carl, _ = make_room()
    Room.objects.filter(pk=carl.room_id).update(practice=True)
    practice_round = running_round(carl)
    for word in ("cats", "went", "quiet"):
        submit_word(carl, word)
    hints.do_hint(carl)  # costs HINT_COST of the round's score
    rounds.do_end_round(practice_round.id)

    targets = list(
        Round.objects.select_related("room").filter(
            pk__in=[round_a.id, second.id, third.id, practice_round.id]
        )
    )
    batch = totals_through(targets)
    for round_ in targets:
        expected = room_totals(round_.room, through_round=round_.number, game=round_.game)
        assert batch[round_.id] == expected, round_
    assert batch[second.id][bob.id] == 1 + 2  # dog, then quiet
    assert batch[third.id] == {ann.id: 1}  # the new game counts from zero
    assert batch[practice_round.id][carl.id] == 1 + 1 + 2 - hints.HINT_COST


def test_a_batch_that_fails_is_ended_round_by_round(sent, monkeypatch):
    """One bad round must not hold back the rooms that end with it (the watchers' and beat's
    sweep): a batch that fails is ended round by round, and only the bad one is left for
    the next check."""
    good, _ = played_room({"Ann": ["cats"]})
    bad, _ = played_room({"Bob": ["went"]})
    make_due(good, bad)
    real_end_rounds = rounds.end_rounds

    def end_rounds(round_ids: list[int], wait: bool = True, deadline: bool = False) -> list[int]:
        if bad.id in round_ids:
            raise RuntimeError("a round that cannot be scored")
        return real_end_rounds(round_ids, wait, deadline)

    monkeypatch.setattr(rounds, "end_rounds", end_rounds)
    assert rounds.end_overdue_rounds() == 1

    statuses = dict(Round.objects.values_list("id", "status"))
    assert statuses[good.id] == Round.Status.ENDED
    assert statuses[bad.id] == Round.Status.RUNNING
    assert len(sent) == 1
