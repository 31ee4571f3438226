"""The dice-set admin, for staff only: sets with their counts and faces covered, each set's
dice as small pictures (a staff-only PNG view), and forgetting one die, all of a set's, or
the set (the installation's set can only be emptied)."""

from __future__ import annotations

import io
import re

import numpy as np
import pytest
from django.contrib.auth.models import User
from django.test import Client
from PIL import Image

from dicesets import choices, services
from dicesets.models import DiceSet, Exemplar
from games import rooms

pytestmark = pytest.mark.django_db

LIST_URL = "/admin/dicesets/diceset/"


@pytest.fixture
def staff() -> Client:
    client = Client()
    client.force_login(User.objects.create_superuser("root", "root@example.org", "pw"))
    return client


@pytest.fixture
def player() -> Client:
    """Logged in, but not staff."""
    client = Client()
    client.force_login(User.objects.create_user("ann", "ann@example.org", "pw"))
    return client


def a_set(name: str = "Grandma's French set", faces: str = "aab") -> DiceSet:
    room, _host = rooms.do_create_room("Ann", {"new_photo_set": name})
    dice_set = services.dice_set_for_room(room)
    crops = np.stack([np.full((32, 32), 10 * i, np.uint8) for i in range(len(faces))])
    services.store_exemplars(dice_set, crops, list(faces), room_code=room.code, photo_id=5)
    return dice_set


def change_url(dice_set: DiceSet) -> str:
    return f"{LIST_URL}{dice_set.pk}/change/"


def test_the_list_shows_each_sets_counts(staff):
    a_set()
    page = staff.get(LIST_URL).content.decode()
    assert "Grandma&#x27;s French set" in page
    assert "The usual dice" in page
    row = re.search(r"Grandma&#x27;s French set.*?</tr>", page, re.S).group(0)
    assert re.search(r'field-exemplar_count">3<', row)
    assert re.search(r'field-faces_covered">2<', row)
    assert staff.get(LIST_URL + "?o=4").status_code == 200  # sorted by count


def test_a_sets_page_shows_its_dice_as_pictures(staff):
    dice_set = a_set()
    page = staff.get(change_url(dice_set)).content.decode()
    assert "a: 2, b: 1" in page
    urls = re.findall(r'<img src="(/admin/dicesets/diceset/exemplar/\d+\.png)"', page)
    assert len(urls) == 3
    response = staff.get(urls[0])
    assert response.status_code == 200
    assert response["Content-Type"] == "image/png"
    image = Image.open(io.BytesIO(response.content))
    assert image.size == (32, 32) and image.mode == "L"


def test_staff_only(player):
    dice_set = a_set()
    exemplar = Exemplar.objects.filter(dice_set=dice_set).first()
    for url in (LIST_URL, change_url(dice_set), f"{LIST_URL}exemplar/{exemplar.pk}.png"):
        response = Client().get(url)
        assert response.status_code == 302 and "/admin/login/" in response["Location"], url
        response = player.get(url)
        assert response.status_code == 302 and "/admin/login/" in response["Location"], url


def test_an_unknown_picture_is_404(staff):
    assert staff.get(f"{LIST_URL}exemplar/999999.png").status_code == 404


def test_forgetting_one_die(staff):
    dice_set = a_set()
    exemplars = list(Exemplar.objects.filter(dice_set=dice_set).order_by("face", "-id"))
    form = {
        "name": dice_set.name,
        "exemplars-TOTAL_FORMS": str(len(exemplars)),
        "exemplars-INITIAL_FORMS": str(len(exemplars)),
        "exemplars-MIN_NUM_FORMS": "0",
        "exemplars-MAX_NUM_FORMS": "1000",
        "_save": "Save",
    }
    for index, exemplar in enumerate(exemplars):
        form[f"exemplars-{index}-id"] = str(exemplar.pk)
        form[f"exemplars-{index}-dice_set"] = str(dice_set.pk)
    form["exemplars-0-DELETE"] = "on"
    response = staff.post(change_url(dice_set), form)
    assert response.status_code == 302, response.content.decode()[:2000]
    assert set(Exemplar.objects.values_list("pk", flat=True)) == {e.pk for e in exemplars[1:]}


def test_emptying_sets_with_the_action(staff):
    dice_set = a_set()
    installation = choices.installation_set()
    services.store_exemplars(installation, np.zeros((1, 32, 32), np.uint8), ["z"])
    response = staff.post(
        LIST_URL,
        {"action": "empty_sets", "_selected_action": [dice_set.pk, installation.pk]},
    )
    assert response.status_code == 302
    assert not Exemplar.objects.exists()
    assert DiceSet.objects.filter(pk__in=[dice_set.pk, installation.pk]).count() == 2


def test_deleting_a_set(staff):
    dice_set = a_set()
    response = staff.post(f"{LIST_URL}{dice_set.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302
    assert not DiceSet.objects.filter(pk=dice_set.pk).exists()
    assert not Exemplar.objects.exists()


def test_the_installation_set_cannot_be_deleted(staff):
    installation = choices.installation_set()
    page = staff.get(change_url(installation)).content.decode()
    assert f"{installation.pk}/delete/" not in page
    assert staff.post(f"{LIST_URL}{installation.pk}/delete/", {"post": "yes"}).status_code == 403
    # Selected with another set for the bulk delete: refused, nothing deleted.
    other = a_set()
    response = staff.post(
        LIST_URL,
        {
            "action": "delete_selected",
            "_selected_action": [installation.pk, other.pk],
            "post": "yes",
        },
    )
    assert "empty it instead" in response.content.decode()
    assert DiceSet.objects.filter(pk__in=[installation.pk, other.pk]).count() == 2


def test_sets_are_not_added_by_hand(staff):
    assert staff.get(f"{LIST_URL}add/").status_code == 403


# ------------------------------------------------------------------ what a set learnt (issue 48)

EXEMPLARS_URL = "/admin/dicesets/exemplar/"


def test_every_remembered_die_is_listed_with_where_it_came_from(staff):
    dice_set = a_set(faces="ab")
    exemplar = Exemplar.objects.filter(dice_set=dice_set, face="a").get()
    exemplar.unaided_face, exemplar.unaided_confidence, exemplar.contested = "o", 0.97, True
    exemplar.save()
    page = staff.get(EXEMPLARS_URL).content.decode()
    row = re.search(rf'value="{exemplar.pk}".*?</tr>', page, re.S).group(0)
    assert exemplar.room_code in row and ">5<" in row  # the room and the photo
    assert "o (0.97)" in row and 'alt="True"' in row  # read alone as o, contested
    assert staff.get(EXEMPLARS_URL + "?contested__exact=1").status_code == 200


def test_staff_approve_dice_for_the_installations_set(staff):
    """The installation's set reads only approved dice: approving a room set's dice copies
    them into it (once, however often approved)."""
    dice_set = a_set(faces="ab")
    room = dice_set.started_in
    chosen = list(Exemplar.objects.filter(dice_set=dice_set).values_list("pk", flat=True))
    for _ in range(2):
        response = staff.post(
            EXEMPLARS_URL, {"action": "approve_for_installation", "_selected_action": chosen}
        )
        assert response.status_code == 302
    installation = choices.installation_set()
    approved = Exemplar.objects.filter(dice_set=installation)
    assert sorted(approved.values_list("face", flat=True)) == ["a", "b"]
    assert all(row.approved_at and row.approved_by == "root" for row in approved)
    assert {row.room_code for row in approved} == {room.code}
    other, _host = rooms.do_create_room("Bea")
    assert services.memory_for_room(other).faces == ("a", "b")


def test_staff_undo_what_a_room_taught_in_one_action(staff):
    """One of its dice selected: every die the room taught goes, in every set (the copies
    approved for the installation's set too); other rooms' stay."""
    bad = a_set("Mallory's", faces="abc")
    good = a_set("Ann's", faces="de")
    services.approve_for_installation(Exemplar.objects.filter(dice_set=bad), "root")
    one = Exemplar.objects.filter(dice_set=bad).first()
    response = staff.post(EXEMPLARS_URL, {"action": "forget_rooms", "_selected_action": [one.pk]})
    assert response.status_code == 302
    assert sorted(Exemplar.objects.values_list("face", flat=True)) == ["d", "e"]
    assert set(Exemplar.objects.values_list("dice_set", flat=True)) == {good.pk}


def test_staff_undo_what_a_photo_taught(staff):
    dice_set = a_set(faces="ab")
    crops = np.stack([np.full((32, 32), 99, np.uint8)])
    services.store_exemplars(dice_set, crops, ["z"], room_code=dice_set.started_in.code, photo_id=6)
    one = Exemplar.objects.filter(photo_id=5).first()
    staff.post(EXEMPLARS_URL, {"action": "forget_photos", "_selected_action": [one.pk]})
    assert list(Exemplar.objects.values_list("face", "photo_id")) == [("z", 6)]


def test_dice_are_not_edited_by_hand(staff):
    exemplar = Exemplar.objects.filter(dice_set=a_set()).first()
    assert staff.get(f"{EXEMPLARS_URL}add/").status_code == 403
    response = staff.post(f"{EXEMPLARS_URL}{exemplar.pk}/change/", {"face": "z"})
    assert response.status_code in (302, 403)
    exemplar.refresh_from_db()
    assert exemplar.face != "z"


def test_the_list_shows_the_dice_waiting_for_approval(staff):
    """Dice the installation's set kept before approval existed: counted, not read."""
    installation = choices.installation_set()
    services.store_exemplars(installation, np.zeros((2, 32, 32), np.uint8), ["a", "b"])
    page = staff.get(LIST_URL).content.decode()
    row = re.search(r"The usual dice.*?</tr>", page, re.S).group(0)
    assert re.search(r'field-waiting_count">2<', row)
    services.approve_for_installation(Exemplar.objects.filter(face="a"), "root")
    row = re.search(r"The usual dice.*?</tr>", staff.get(LIST_URL).content.decode(), re.S)
    assert re.search(r'field-waiting_count">1<', row.group(0))
