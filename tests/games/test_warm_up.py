"""Warming round preparation up as a process starts (games.warm_up): the first round after a
start found the common-word frequencies and the word list cold and spent 1.9 s loading
them ("Shaking the dice"). The figures are bench/first_round.py's; these tests check what
is loaded, never how long it takes."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from games import common_words, room_dictionaries, rooms, rounds, warm_up
from solver import dictionaries
from tests.servers import SiteServer


def prepare_first_round(nickname: str) -> None:
    _, host = rooms.do_create_room(nickname, {})
    round_ = rounds.do_start_round(host)
    assert rounds.do_prepare_round(round_.id)


def forget_everything_loaded() -> None:
    """This process as just started: no frequencies, no word list in memory."""
    common_words._zipf_of_common.cache_clear()
    room_dictionaries._loaded.clear()


@pytest.mark.django_db
def test_after_the_warm_up_the_first_round_loads_nothing() -> None:
    """Cold, preparing the first round loads the language's frequencies and the word list;
    after warm_round_preparation, preparing it loads neither."""
    forget_everything_loaded()
    prepare_first_round("Ann")
    assert common_words._zipf_of_common.cache_info().misses >= 1, "the cold round loads them"
    assert room_dictionaries._loaded, "the cold round loads the word list"

    forget_everything_loaded()
    assert "english" in warm_up.warm_round_preparation()
    misses = common_words._zipf_of_common.cache_info().misses
    lists = set(room_dictionaries._loaded)
    prepare_first_round("Bob")
    assert common_words._zipf_of_common.cache_info().misses == misses
    assert set(room_dictionaries._loaded) == lists


def test_the_warm_up_can_be_turned_off(settings) -> None:
    settings.GAMES_WARM_UP_ROUNDS = False
    assert warm_up.start_warm_up() is None


def test_the_embedded_site_warms_round_preparation_up_as_it_starts(tmp_path: Path) -> None:
    """The embedded Daphne (boggle_site.asgi, as bin/start runs it) warms up in the
    background as it starts, and says so in its log."""
    dictionaries.build("english")
    with SiteServer(tmp_path).running() as server:
        deadline = time.monotonic() + 120
        while "round preparation warmed up" not in server.log():
            assert time.monotonic() < deadline, server.log()[-3000:]
            time.sleep(0.2)
        assert "round preparation warmed up: english" in server.log()
        assert "warming round preparation up failed" not in server.log()
