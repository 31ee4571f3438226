"""Idle dice sets are deleted by the hourly housekeeping (games.signals.housekeeping): a set
no room uses, 90 days after its last use; on a public installation, as soon as the room that
started it is gone (nobody can choose it any more). The installation's set stays."""

from __future__ import annotations

from datetime import timedelta

import numpy as np
import pytest
from django.utils import timezone

from dicesets import choices, retention, services
from dicesets.models import DiceSet, Exemplar
from games import housekeeping, rooms

pytestmark = pytest.mark.django_db


def set_started(name: str) -> DiceSet:
    room, _host = rooms.do_create_room("Ann", {"new_photo_set": name})
    dice_set = services.dice_set_for_room(room)
    services.store_exemplars(dice_set, np.zeros((2, 32, 32), np.uint8), ["a", "b"])
    return dice_set


def age(dice_set: DiceSet, days: float) -> None:
    DiceSet.objects.filter(pk=dice_set.pk).update(
        last_used_at=timezone.now() - timedelta(days=days)
    )


def test_a_set_no_room_uses_goes_90_days_after_its_last_use(embedded):
    dice_set = set_started("Camping set")
    dice_set.started_in.delete()
    age(dice_set, 89)
    assert retention.delete_idle_sets() == 0
    age(dice_set, 91)
    assert retention.delete_idle_sets() == 1
    assert not DiceSet.objects.filter(pk=dice_set.pk).exists()
    assert not Exemplar.objects.filter(dice_set_id=dice_set.pk).exists()


def test_a_set_a_room_uses_stays_however_old(embedded):
    dice_set = set_started("Camping set")
    age(dice_set, 400)
    assert retention.delete_idle_sets() == 0


def test_the_installation_set_always_stays(public):
    installation = choices.installation_set()
    age(installation, 400)
    assert retention.delete_idle_sets() == 0
    assert DiceSet.objects.filter(pk=installation.pk).exists()


def test_on_a_public_installation_a_set_goes_with_its_room(public):
    """Nobody but that room could choose it: kept no longer than the room."""
    dice_set = set_started("Zoe's dice")
    assert retention.delete_idle_sets() == 0
    dice_set.started_in.delete()
    assert retention.delete_idle_sets() == 1


def test_the_hourly_housekeeping_runs_it(embedded):
    """games does not import dicesets: the clean-up is a receiver of its housekeeping hook,
    and its count joins the task's result."""
    dice_set = set_started("Camping set")
    dice_set.started_in.delete()
    age(dice_set, 91)
    counts = housekeeping.delete_unused_files()
    assert counts["dice_sets"] == 1
    assert "photo_files" in counts


def test_a_failing_clean_up_does_not_stop_the_others(embedded, monkeypatch, caplog):
    def broken() -> int:
        raise RuntimeError("database gone")

    monkeypatch.setattr(retention, "delete_idle_sets", broken)
    counts = housekeeping.delete_unused_files()
    assert "dice_sets" not in counts
    assert "photo_files" in counts
    assert "database gone" in caplog.text
