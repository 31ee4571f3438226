"""The daily board's seed is keyed with the server's secret: the public code alone cannot
compute a date's board, while the server derives the same one again."""

from __future__ import annotations

import hashlib
import hmac
from pathlib import Path

import pytest
from django.test import override_settings

from boggle_site import env
from daily import boards
from daily.models import DailyBoard
from games.room_dictionaries import current_version, word_list_for_version
from solver.daily import DAILY_SALT, daily_board
from solver.dice import CLASSIC_1992, roll
from tests.daily.helpers import DAY

pytestmark = pytest.mark.django_db


def derive(secret: str) -> str:
    """DAY's board as the site derives it under ``secret`` (nothing stored yet)."""
    DailyBoard.objects.filter(date=DAY).delete()
    with override_settings(BOGGLE_DAILY_SECRET=secret):
        return boards.board_for(DAY).board


def test_the_board_depends_on_the_server_secret() -> None:
    one, other = derive("first-site-secret"), derive("second-site-secret")
    assert one != other
    # Reproducible: the server derives the same board again from its secret.
    assert derive("first-site-secret") == one
    word_list = word_list_for_version(current_version(boards.DAILY_DICTIONARY))
    assert daily_board(DAY, word_list, "first-site-secret").board.to_text() == one
    # The seed the repository used to publish (date, salt, roll) no longer gives it.
    stored = DailyBoard.objects.get(date=DAY)
    public = roll(CLASSIC_1992, f"{DAY.isoformat()}:{DAILY_SALT}:{stored.roll_number}")
    assert public.to_text() != one


def test_the_secret_comes_from_the_setting_or_the_secret_key(tmp_path: Path) -> None:
    """BOGGLE_DAILY_SECRET if set; else derived from the secret key (each install's own),
    never the secret key itself; under the public development key, a random secret kept
    in var/ (readable by its owner only), never one derived from a key in the repository."""
    assert env.daily_secret({"BOGGLE_DAILY_SECRET": " chosen "}, "key", tmp_path) == "chosen"
    derived = env.daily_secret({}, "install-one-key", tmp_path)
    assert derived and derived != "install-one-key"
    assert derived == env.daily_secret({"BOGGLE_DAILY_SECRET": ""}, "install-one-key", tmp_path)
    assert env.daily_secret({}, "install-two-key", tmp_path) != derived
    assert not (tmp_path / "daily_secret").exists()
    local = env.daily_secret({}, env.DEV_SECRET_KEY, tmp_path)
    public = hmac.new(
        env.DEV_SECRET_KEY.encode(), env.DAILY_SECRET_PURPOSE, hashlib.sha256
    ).hexdigest()
    assert len(local) >= 32 and local != public
    assert (tmp_path / "daily_secret").stat().st_mode & 0o777 == 0o600
    assert env.daily_secret({}, env.DEV_SECRET_KEY, tmp_path) == local  # kept
    other_install = tmp_path / "other"
    other_install.mkdir()
    assert env.daily_secret({}, env.DEV_SECRET_KEY, other_install) != local
    assert sorted(path.name for path in tmp_path.iterdir()) == ["daily_secret", "other"]
