"""Round life cycle in games.rounds and games.words, without sockets: preparing, submitting, ending once,
and the housekeeping jobs (stalled rounds, overdue rounds, idle rooms)."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta

import pytest
from django.utils import timezone

from games import deadlines, events, housekeeping, live_counts, rooms, rounds, state, tasks, words
from games.exceptions import NotHost, WrongRoundState
from games.models import PRESENCE_TIMEOUT, Connection, Player, Room, Round, Submission
from solver import deal, parse_board
from tests.games.words_helpers import submit_word
from tests.games.ws_helpers import BOARD
from web.errors import InvalidInput

pytestmark = pytest.mark.django_db


@pytest.fixture
def sent(monkeypatch) -> list[dict]:
    """Every event emitted, recorded at once (sync tests never commit, so nothing is sent)."""
    messages: list[dict] = []

    def record(group: str, handler: str, message: dict, personal=None, attach=None) -> None:
        messages.append(message)

    monkeypatch.setattr(events, "_send_on_commit", record)
    monkeypatch.setattr(events, "_deliver", record)  # events sent after their commit
    monkeypatch.setattr(
        events, "_deliver_each", lambda deliveries: messages.extend(m for _, _, m, _ in deliveries)
    )
    return messages


def make_room(**settings) -> tuple[Player, Player]:
    """A room with host Ann and player Bob."""
    room, ann = rooms.do_create_room("Ann", settings)
    bob = rooms.do_join_room(room, "Bob")
    return ann, bob


def running_round(host: Player, board: str = BOARD) -> Round:
    """Start and prepare a round on ``board``, the countdown already over."""
    rooms.do_set_next_board(host, board)
    round_ = rounds.do_start_round(host)
    assert round_.status == Round.Status.PREPARING
    assert rounds.do_prepare_round(round_.id)
    Round.objects.filter(pk=round_.pk).update(starts_at=timezone.now() - timedelta(seconds=1))
    round_.refresh_from_db()
    return round_


def kinds(messages: list[dict]) -> list[str]:
    return [m["type"] for m in messages]


# ---------------------------------------------------------------- starting


def test_preparing_solves_the_board_and_starts_the_countdown():
    """do_prepare_round stores the solution and sets starts_at (countdown) and ends_at."""
    ann, _ = make_room(round_seconds=60)
    rooms.do_set_next_board(ann, BOARD)
    round_ = rounds.do_start_round(ann)
    before = timezone.now()
    assert rounds.do_prepare_round(round_.id)
    after = timezone.now()
    round_.refresh_from_db()
    assert round_.status == Round.Status.RUNNING
    assert round_.board == BOARD
    words = {entry[0] for entry in round_.solution}
    assert {"cats", "quiet", "went"} <= words
    assert round_.max_points == sum(entry[1] for entry in round_.solution)
    # The countdown starts while preparing, however long solving took on a busy machine.
    countdown = timedelta(seconds=rounds.COUNTDOWN_SECONDS)
    assert before + countdown <= round_.starts_at <= after + countdown
    assert round_.ends_at - round_.starts_at == timedelta(seconds=60)
    assert not rounds.do_prepare_round(round_.id), "preparing twice does nothing"


def test_a_round_copies_the_room_settings():
    """Later changes to the room do not touch a round under way."""
    ann, _ = make_room(min_length=4, cancel_duplicates=False, instant_verdicts=False)
    round_ = running_round(ann)
    assert (round_.min_length, round_.cancel_duplicates, round_.instant_verdicts) == (
        4,
        False,
        False,
    )


def test_the_typed_board_is_used_once():
    """next_board is consumed by the round it starts; the next round rolls dice."""
    ann, _ = make_room()
    first = running_round(ann)
    assert first.board == BOARD
    assert Room.objects.get(pk=ann.room_id).next_board == ""
    rounds.do_end_round(first.id)
    second = rounds.do_start_round(ann)
    assert second.number == 2 and second.dice_set == "classic"


def test_dice_that_spell_almost_nothing_are_rolled_again(monkeypatch):
    """The dice fall without a vowel, then as the docs' board: the round gets the second
    roll, judged by the room's own word list and shortest word (5 here)."""
    falls = iter(["bcdf ghjk lmnp rstv", "aeol iejm pdls orkf"])
    monkeypatch.setattr(deal, "roll", lambda dice_set, seed=None: parse_board(next(falls)))
    ann, _ = make_room(min_length=5)
    round_ = rounds.do_start_round(ann)
    assert round_.board == "aeol iejm pdls orkf"
    assert round_.dice_set == "classic" and round_.min_length == 5
    assert next(falls, None) is None, "no third roll: the second one spells enough"


def test_no_second_round_while_one_runs():
    """Starting a round while one is preparing or running is refused."""
    ann, _ = make_room()
    rounds.do_start_round(ann)
    with pytest.raises(WrongRoundState):
        rounds.do_start_round(ann)


def test_only_the_host_starts_a_round():
    """A non-host cannot start a round."""
    _, bob = make_room()
    with pytest.raises(NotHost):
        rounds.do_start_round(bob)
    assert Round.objects.count() == 0


def test_a_board_of_the_wrong_size_is_refused():
    """A 5x5 board in a 4x4 room, or gibberish, is invalid input."""
    ann, _ = make_room()
    with pytest.raises(InvalidInput, match="4x4"):
        rooms.do_set_next_board(ann, "abcde fghij klmno pqrst uvwxy")
    with pytest.raises(InvalidInput, match="bad board"):
        rooms.do_set_next_board(ann, "ab!c d")


# ---------------------------------------------------------------- submitting


def test_submitting_before_a_round_is_wrong_round_state():
    """No round yet: a word is refused with wrong_round_state."""
    _, bob = make_room()
    with pytest.raises(WrongRoundState):
        submit_word(bob, "cats")


def test_submitting_during_the_countdown_is_wrong_round_state():
    """Before starts_at the board is shown but words are not taken yet."""
    ann, bob = make_room()
    round_ = running_round(ann)
    Round.objects.filter(pk=round_.pk).update(starts_at=timezone.now() + timedelta(seconds=3))
    with pytest.raises(WrongRoundState, match="countdown"):
        submit_word(bob, "cats")
    assert Submission.objects.count() == 0


def test_submitting_after_the_deadline_is_round_over():
    """Past ends_at (even before the round is formally ended) a word is round_over, unsaved."""
    ann, bob = make_room()
    round_ = running_round(ann)
    Round.objects.filter(pk=round_.pk).update(ends_at=timezone.now() - timedelta(seconds=1))
    result = submit_word(bob, "Cats")
    assert (result.word, result.verdict, result.accepted) == ("cats", words.ROUND_OVER, False)
    assert result.reason == "the round is over"
    assert Submission.objects.count() == 0


def test_submitting_after_the_end_is_round_over():
    """After the round ended, words are round_over."""
    ann, bob = make_room()
    round_ = running_round(ann)
    rounds.do_end_round(round_.id)
    assert submit_word(bob, "cats").verdict == words.ROUND_OVER


def test_a_resend_with_the_same_client_id_returns_the_stored_verdict():
    """A client resending after a dropped connection gets the first verdict; one row only."""
    ann, bob = make_room()
    running_round(ann)
    first = submit_word(bob, "cats", "entry-1")
    again = submit_word(bob, "cats", "entry-1")
    assert first.verdict == again.verdict == "accepted"
    assert again.duplicate_resend and not first.duplicate_resend
    assert Submission.objects.filter(player=bob).count() == 1
    # The same word under a new client id is a second entry, and already entered.
    assert submit_word(bob, "cats", "entry-2").verdict == "already_entered"


def test_a_client_id_reused_for_another_word_is_refused_not_answered_for_the_first():
    """The new word would otherwise get the first word's verdict and be lost unseen."""
    ann, bob = make_room()
    running_round(ann)
    assert submit_word(bob, "cats", "entry-1").accepted
    with pytest.raises(InvalidInput, match="client_id 'entry-1' was already used for 'cats'"):
        submit_word(bob, "dogs", "entry-1")
    # The same entry typed differently is the same entry: a resend.
    assert submit_word(bob, " CATS ", "entry-1").duplicate_resend
    submit_word(bob, "xyzzy", "entry-2")  # refused: held in memory, then written
    with pytest.raises(InvalidInput, match="already used for 'xyzzy'"):
        submit_word(bob, "cats", "entry-2")
    assert Submission.objects.filter(player=bob).count() == 1  # xyzzy still waits in memory


def test_client_ids_are_per_player():
    """Two players may use the same client id without clashing."""
    ann, bob = make_room()
    running_round(ann)
    assert submit_word(ann, "cats", "1").accepted
    assert submit_word(bob, "dog", "1").accepted
    assert Submission.objects.count() == 2


@pytest.mark.parametrize(
    ("entry", "client_id", "match"),
    [
        (7, "", "text"),
        ("a" * 73, "", "72"),
        ("cats", 5, "client_id"),
        ("cats", "x" * 65, "client_id"),
    ],
)
def test_malformed_submissions_are_invalid(entry, client_id, match):
    """Non-text words, overlong words and bad client ids are refused before judging."""
    ann, _ = make_room()
    running_round(ann)
    with pytest.raises(InvalidInput, match=match):
        submit_word(ann, entry, client_id)
    assert Submission.objects.count() == 0


@pytest.mark.parametrize("entry", ["ca\x00ts", "cats\x07", "c\x1bats"])
def test_control_characters_in_a_word_are_invalid(entry):
    """Control characters are refused as input (and never stored: PostgreSQL rejects NUL)."""
    ann, _ = make_room()
    running_round(ann)
    with pytest.raises(InvalidInput, match="control"):
        submit_word(ann, entry)
    assert Submission.objects.count() == 0


def test_a_trailing_newline_is_not_a_control_character():
    """Whitespace around a word is trimmed, not refused."""
    ann, _ = make_room()
    running_round(ann)
    assert submit_word(ann, " cats\n").accepted


def test_accepted_words_emit_counts_but_not_words(sent):
    """Accepted words send round.counts (per player id), never the words themselves, and
    coalesced: one frame per publishing pass, with the latest counts."""
    ann, bob = make_room()
    running_round(ann)
    sent.clear()
    submit_word(bob, "quiet")
    submit_word(bob, "xyzzy")
    submit_word(ann, "quiet")
    assert sent == []  # nothing per word
    assert live_counts.publish_changed() == 1
    assert kinds(sent) == ["round.counts"]
    assert sent[0]["counts"] == {str(bob.id): 1, str(ann.id): 1}
    assert "quiet" not in repr(sent)
    assert live_counts.publish_changed() == 0  # nothing changed since


def test_counts_take_no_version_and_cost_no_write(sent):
    """Counts are whole snapshots: no room version (a missed one loses nothing) and so no
    write, but the time they were counted (the newest wins on the page)."""
    ann, bob = make_room()
    running_round(ann)
    submit_word(bob, "quiet")
    version = Room.objects.get(pk=ann.room_id).version
    sent.clear()
    assert live_counts.publish_changed() == 1
    assert Room.objects.get(pk=ann.room_id).version == version
    frame = sent[0]
    assert "version" not in frame
    assert isinstance(frame["counted_at"], int)
    assert abs(frame["counted_at"] - events.server_now_ms()) < 60_000


def test_a_round_that_ends_during_a_counts_pass_keeps_its_versions_whole(sent, monkeypatch):
    """The pass reads the running rounds, then the round ends (another thread, at its
    deadline) before the pass sends: its counts still leave, after round.ended, but take
    no version, so the room's versions have no gap and round.ended is its last (the page
    drops counts of a round that is over)."""
    ann, bob = make_room()
    round_ = running_round(ann)
    submit_word(bob, "quiet")
    sent.clear()
    read_counts = live_counts.counts_by_round

    def end_meanwhile(round_ids: list[int]) -> dict[int, dict[str, int]]:
        rounds.do_end_round(round_.id)
        return read_counts(round_ids)

    monkeypatch.setattr(live_counts, "counts_by_round", end_meanwhile)
    live_counts.publish_changed()
    assert kinds(sent) == ["round.ended", "round.counts"]
    assert "version" not in sent[1]
    assert Room.objects.get(pk=ann.room_id).version == sent[0]["version"]
    monkeypatch.setattr(live_counts, "counts_by_round", read_counts)
    assert live_counts.publish_changed() == 0  # the ended round is not counted again


def test_the_flusher_spreads_the_rooms_counts_over_the_period(sent, monkeypatch):
    """Each flusher pass sends its share of the rooms' counts (here a third: three rooms,
    one each pass), each room at most once a period from this process: rooms that started
    together do not get their frames in one burst."""
    live_counts.clear()
    now = [1000.0]
    monkeypatch.setattr(live_counts.time, "monotonic", lambda: now[0])
    monkeypatch.setattr(
        live_counts.live_rounds, "REFUSED_FLUSH_SECONDS", live_counts.PUBLISH_SECONDS / 3
    )
    hosts = []
    for _ in range(3):
        ann, bob = make_room()
        running_round(ann)
        submit_word(bob, "quiet")
        hosts.append(ann)
    sent.clear()

    def flusher_pass(at: float) -> int:
        now[0] = 1000.0 + at
        return live_counts.publish_changed(spread=True)

    assert [flusher_pass(at) for at in (0.0, 0.3, 0.6)] == [1, 1, 1]
    assert len({frozenset(frame["counts"]) for frame in sent}) == 3  # three rooms
    for ann in hosts:
        submit_word(ann, "went")  # every room changes again within the period
    assert flusher_pass(0.8) == 0  # the first room had its frame 0.8 s ago
    assert flusher_pass(0.95) == 1  # its period is over (0.9 of it: a pass late is on time)
    assert len(sent[-1]["counts"]) == 2  # Ann's word and Bob's


def test_with_hidden_verdicts_counts_do_not_give_verdicts_away(sent):
    """instant_verdicts off: counts go up for every entry, so they do not tell whether a
    word counted."""
    ann, bob = make_room(instant_verdicts=False)
    round_ = running_round(ann)
    sent.clear()
    submit_word(bob, "quiet")
    live_counts.publish_changed()
    submit_word(bob, "xyzzy")
    live_counts.publish_changed()
    assert kinds(sent) == ["round.counts", "round.counts"]
    assert sent[0]["counts"] == {str(bob.id): 1}
    assert sent[1]["counts"] == {str(bob.id): 2}
    assert state.live_counts_of(round_) == {str(bob.id): 2}


# ---------------------------------------------------------------- ending


def test_ending_twice_scores_once_and_emits_one_round_ended(sent):
    """do_end_round is idempotent: the second call and the Celery task do nothing."""
    ann, bob = make_room()
    round_ = running_round(ann)
    submit_word(ann, "cats")
    submit_word(bob, "quiet")
    sent.clear()
    version = Room.objects.get(pk=ann.room_id).version
    assert rounds.do_end_round(round_.id) is True
    assert rounds.do_end_round(round_.id) is False
    assert tasks.end_round(round_.id) is False
    assert tasks.end_round.delay(round_.id).get() is False
    assert kinds(sent) == ["round.ended"]
    assert Room.objects.get(pk=ann.room_id).version == version + 1
    round_.refresh_from_db()
    assert round_.status == Round.Status.ENDED and round_.ended_at is not None
    points = dict(Submission.objects.values_list("word", "points"))
    assert points == {"cats": 1, "quiet": 2}


def test_the_end_task_ends_a_running_round(sent):
    """games.tasks.end_round ends and scores a round that is still running."""
    ann, _ = make_room()
    round_ = running_round(ann)
    submit_word(ann, "went")
    assert tasks.end_round(round_.id) is True
    assert Submission.objects.get().points == 1
    assert kinds(sent)[-1] == "round.ended"


def test_ending_a_missing_or_preparing_round_does_nothing():
    """A deleted round or one still preparing is not ended."""
    ann, _ = make_room()
    preparing = rounds.do_start_round(ann)
    assert rounds.do_end_round(preparing.id) is False
    assert tasks.end_round(10**9) is False
    preparing.refresh_from_db()
    assert preparing.status == Round.Status.PREPARING


def test_host_end_round_now_needs_a_running_round():
    """The host's end_round with no running round is wrong_round_state."""
    ann, _ = make_room()
    with pytest.raises(WrongRoundState):
        rounds.do_end_round_now(ann)


def test_end_overdue_rounds_ends_only_rounds_past_their_deadline():
    """Past-deadline rounds end; rounds still on the clock and untimed rounds run on."""
    overdue_host, _ = make_room()
    on_time_host, _ = make_room()
    untimed_host, _ = make_room(round_seconds=None)
    overdue = running_round(overdue_host)
    on_time = running_round(on_time_host)
    untimed = running_round(untimed_host)
    assert untimed.ends_at is None
    Round.objects.filter(pk=overdue.pk).update(ends_at=timezone.now() - timedelta(seconds=1))
    assert rounds.end_overdue_rounds() == 1
    assert rounds.end_overdue_rounds() == 0
    statuses = dict(Round.objects.values_list("pk", "status"))
    assert statuses == {overdue.pk: "ended", on_time.pk: "running", untimed.pk: "running"}


@pytest.mark.parametrize("workers", [False, True], ids=["embedded", "with-workers"])
def test_watchers_leave_a_just_overdue_round_to_the_workers_when_there_are_some(workers, settings):
    """Embedded, the web processes' watchers end a round right after its deadline; with
    Celery workers (its end_round task ends it on time) only once a worker has not ended it
    WORKER_FALLBACK_SECONDS later."""
    settings.CELERY_TASK_ALWAYS_EAGER = not workers
    just_host, _ = make_room()
    long_host, _ = make_room()
    just, long_ = running_round(just_host), running_round(long_host)
    now = timezone.now()
    Round.objects.filter(pk=just.pk).update(ends_at=now - timedelta(seconds=1))
    fallback = deadlines.WORKER_FALLBACK_SECONDS
    Round.objects.filter(pk=long_.pk).update(ends_at=now - timedelta(seconds=fallback + 1))
    due = set(rounds.overdue_round_ids(deadlines._lateness()))
    assert due == ({long_.pk} if workers else {just.pk, long_.pk})


def test_the_overdue_task_also_prepares_stalled_rounds():
    """The beat safety net ends overdue rounds and prepares lost ones."""
    ann, _ = make_room()
    overdue = running_round(ann)
    Round.objects.filter(pk=overdue.pk).update(ends_at=timezone.now() - timedelta(seconds=1))
    bea, _ = make_room()
    stalled = rounds.do_start_round(bea)
    Round.objects.filter(pk=stalled.pk).update(created_at=timezone.now() - timedelta(minutes=1))
    assert tasks.end_overdue_rounds() == 2


def test_prepare_stalled_rounds_picks_up_a_round_left_preparing():
    """A round preparing for longer than the timeout (its worker died) gets prepared; a
    fresh one is left to its own task."""
    ann, _ = make_room()
    bea, _ = make_room()
    stalled = rounds.do_start_round(ann)
    fresh = rounds.do_start_round(bea)
    Round.objects.filter(pk=stalled.pk).update(
        created_at=timezone.now() - timedelta(seconds=rounds.PREPARE_TIMEOUT_SECONDS + 1)
    )
    assert rounds.prepare_stalled_rounds() == 1
    stalled.refresh_from_db()
    fresh.refresh_from_db()
    assert stalled.status == Round.Status.RUNNING
    assert stalled.solution and stalled.starts_at is not None
    assert fresh.status == Round.Status.PREPARING
    assert rounds.prepare_stalled_rounds() == 0


# ---------------------------------------------------------------- idle rooms


def open_socket(player: Player, beat_at: datetime | None = None) -> Connection:
    """A socket of the player as a web process records it (renewed at ``beat_at``)."""
    return Connection.objects.create(
        player=player,
        channel_name=f"test.{uuid.uuid4().hex}",
        process="another-process",
        beat_at=beat_at or timezone.now(),
    )


def test_cleanup_deletes_rooms_idle_for_a_day_with_nobody_online():
    """Idle for over a day and nobody online: deleted with its players and rounds. Rooms
    with someone online, or used recently, stay."""
    long_ago = timezone.now() - housekeeping.IDLE_ROOM_LIFETIME - timedelta(minutes=1)
    idle_host, _ = make_room()
    running_round(idle_host)
    online_host, _ = make_room()
    recent_host, _ = make_room()
    left_host, left_bob = make_room()
    open_socket(online_host)
    # A player who left with a socket still recorded open does not keep the room alive.
    open_socket(left_bob)
    Player.objects.filter(pk=left_bob.pk).update(left_at=long_ago)
    # Nor does a socket whose process died (not renewed for PRESENCE_TIMEOUT).
    open_socket(idle_host, beat_at=timezone.now() - PRESENCE_TIMEOUT - timedelta(seconds=1))
    idle_rooms = [idle_host.room_id, online_host.room_id, left_host.room_id]
    Room.objects.filter(pk__in=idle_rooms).update(last_active_at=long_ago)
    Room.objects.filter(pk=recent_host.room_id).update(
        last_active_at=timezone.now() - housekeeping.IDLE_ROOM_LIFETIME + timedelta(minutes=5)
    )
    assert housekeeping.cleanup_idle_rooms() == 2
    remaining = set(Room.objects.values_list("pk", flat=True))
    assert remaining == {online_host.room_id, recent_host.room_id}
    assert not Round.objects.filter(room_id=idle_host.room_id).exists()
    assert not Player.objects.filter(room_id=idle_host.room_id).exists()
    assert tasks.cleanup_idle_rooms() == 0


def test_events_keep_a_room_active():
    """Anything sent to the room (a join) moves last_active_at forward."""
    ann, _ = make_room()
    Room.objects.filter(pk=ann.room_id).update(last_active_at=timezone.now() - timedelta(days=3))
    rooms.do_join_room(Room.objects.get(pk=ann.room_id), "Cy")
    assert housekeeping.cleanup_idle_rooms() == 0


# ---------------------------------------------------------------- results


def test_a_word_entered_twice_is_not_listed_as_rejected():
    """Entering a word again says already_entered at once, but the results list it only
    among the player's words, not among the rejected ones."""
    ann, _ = make_room()
    round_ = running_round(ann)
    submit_word(ann, "cats")
    assert submit_word(ann, "CATS").verdict == "already_entered"
    submit_word(ann, "xyzzy")
    submit_word(ann, "xyzzy")
    rounds.do_end_round(round_.id)
    round_.refresh_from_db()
    results = state.results(round_)
    ann_results = results["players"][0]
    assert [w["word"] for w in ann_results["words"]] == ["cats"]
    assert [r["word"] for r in ann_results["rejected"]] == ["xyzzy"]


def test_leaving_passes_hosting_to_the_longest_present_online_player():
    """The host leaves: an online player takes over before an offline one."""
    room, ann = rooms.do_create_room("Ann")
    bob = rooms.do_join_room(room, "Bob")
    cy = rooms.do_join_room(room, "Cy")
    open_socket(cy)
    rooms.do_leave(ann)
    assert Room.objects.get(pk=room.pk).host_id == cy.id
    rooms.do_leave(cy)
    assert Room.objects.get(pk=room.pk).host_id == bob.id
    rooms.do_leave(bob)
    assert Room.objects.get(pk=room.pk).host_id is None
    dana = rooms.do_join_room(Room.objects.get(pk=room.pk), "Dana")
    assert Room.objects.get(pk=room.pk).host_id == dana.id


def test_an_ended_rounds_results_stay_as_they_were():
    """Who played round 1 and their totals then: a later joiner, a later round's points and
    a player who leaves afterwards change nothing in them."""
    ann, bob = make_room()
    first = running_round(ann)
    submit_word(ann, "cats")
    rounds.do_end_round(first.id)
    first.refresh_from_db()
    before = state.results(first)
    assert [p["nickname"] for p in before["players"]] == ["Ann", "Bob"]

    carl = rooms.do_join_room(ann.room, "Carl")
    second = running_round(ann)
    submit_word(ann, "went")
    submit_word(carl, "cats")
    rounds.do_end_round(second.id)
    rooms.do_leave(bob)

    after = state.results(first)
    assert after["players"] == before["players"]
    assert [p["total_points"] for p in after["players"]] == [1, 0]
    second.refresh_from_db()
    latest = {p["nickname"]: p["total_points"] for p in state.results(second)["players"]}
    assert latest == {"Ann": 2, "Bob": 0, "Carl": 1}  # Bob left after it ended
