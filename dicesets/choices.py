"""A room's dice set for photos: which sets it may see and choose, the host's settings for
it, and what clients are shown of it (docs/api.md, "Dice sets").

The settings ``photo_set`` (choose a set by id, ``null`` for the installation's),
``new_photo_set`` (start a set with a name) and ``learn_photo_set`` (the host's consent to
keep the dice of confirmed photos) travel in ``update_settings`` like the room's other
settings (a ``games.checks.SettingsPart``); clients read them in the state's ``photo_set``
and the ``photo_set.changed`` event.

What a room sees: on a public installation (``BOGGLE_PUBLIC_URL`` set) the installation's
set and the sets this room started, never the names of other rooms' sets; in the embedded
default (a laptop at home, one household) every set.

What a room teaches: only a set of its own (``learning_set``). A room that learns while it
uses the installation's set gets a set of its own for it, which starts with the dice staff
approved for the installation's set; the installation's set learns only what staff approve
(``dicesets.services.approve_for_installation``), so no host's corrections reach another
room's photos.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import IntegrityError, connections, transaction
from django.db.models import Count, Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from dicesets import fits
from dicesets.exceptions import PhotoSetNotFound
from dicesets.exemplars import copy_exemplars
from dicesets.models import (
    INSTALLATION_SET_NAME,
    NAME_MAX_LENGTH,
    DiceSet,
    Exemplar,
    RoomDiceSet,
    read_by_the_reader,
)
from games import events
from games.checks import SettingsPart, is_int
from games.models import Room
from games.nicknames import display_nickname, nickname_key
from games.state_parts import StateView
from web.errors import InvalidInput

# Sets one room may start: enough for the sets a group owns, few enough that a script
# cannot fill the database through one room.
MAX_SETS_PER_ROOM = 5
# Sets listed as choices (the room's own one always among them): most recently used first.
MAX_CHOICES = 20
# Database ids are signed 64-bit integers; a larger number is no set (and SQLite would
# refuse to compare it).
_MAX_ID = 2**63 - 1


def is_public() -> bool:
    """A public installation: join links have a fixed public address (BOGGLE_PUBLIC_URL)."""
    return bool(settings.BOGGLE_PUBLIC_URL)


def default_learn() -> bool:
    """Whether a room keeps its photos' dice before its host said: yes at home (the
    embedded default, the setting shown), no on a public installation (the host is asked)."""
    return not is_public()


def installation_set() -> DiceSet:
    """The installation's set, made again if it is missing (a test database flushed)."""
    found = DiceSet.objects.filter(installation=True).first()
    if found is not None:
        return found
    try:
        with transaction.atomic():
            return DiceSet.objects.create(name=INSTALLATION_SET_NAME, installation=True)
    except IntegrityError:  # another process made it meanwhile
        return DiceSet.objects.get(installation=True)


def ensure_installation_set_after_migrate(
    sender: Any, using: str = "default", **kwargs: Any
) -> None:
    """post_migrate receiver: the installation's set exists once the tables do."""
    if DiceSet._meta.db_table not in connections[using].introspection.table_names():
        return  # migrated to a state before this app's tables
    installation_set()


def room_choice(room: Room) -> RoomDiceSet | None:
    if room.pk is None:
        return None
    return RoomDiceSet.objects.select_related("dice_set").filter(room=room).first()


def chosen_set(choice: RoomDiceSet | None) -> DiceSet:
    """The set of a room's choice: the installation's without one (or once it is deleted)."""
    if choice is not None and choice.dice_set is not None:
        return choice.dice_set
    return installation_set()


def learns(choice: RoomDiceSet | None) -> bool:
    """Whether the room keeps its confirmed photos' dice: the host's say, else the default."""
    if choice is not None and choice.learn is not None:
        return choice.learn
    return default_learn()


def visible_sets(room: Room, current: DiceSet | None = None) -> QuerySet[DiceSet]:
    """The sets this room may see and choose (see the module's docstring)."""
    sets = DiceSet.objects.all()
    if not is_public():
        return sets
    # A room being created (no pk) has started nothing: started_in=None would match the
    # sets of every deleted room.
    seen = Q(installation=True)
    if room.pk is not None:
        seen |= Q(started_in=room)
    if current is not None:
        seen |= Q(pk=current.pk)
    return sets.filter(seen)


def started_count(room: Room) -> int:
    """Sets the room's host started (its own set for learning is not one of them)."""
    if room.pk is None:
        return 0
    return DiceSet.objects.filter(started_in=room, started_for_learning=False).count()


def own_set_name(room: Room) -> str:
    return _("Dice of room %(code)s") % {"code": room.code}


def learning_set(room: Room, choice: RoomDiceSet | None) -> DiceSet:
    """The set a room's confirmed dice go into, locked (``select_for_update``): the room's
    chosen set, unless that is the installation's, which no room teaches: then a set of the
    room's own, made the room's choice. Precondition: in a transaction holding the room's
    row lock (no two of its own sets at once)."""
    chosen = chosen_set(choice)
    if not chosen.installation:
        return DiceSet.objects.select_for_update().get(pk=chosen.pk)
    own = (
        DiceSet.objects.select_for_update()
        .filter(started_in=room, started_for_learning=True)
        .order_by("id")
        .first()
    )
    if own is None:
        own = DiceSet.objects.create(
            name=own_set_name(room), started_in=room, started_for_learning=True
        )
        own = DiceSet.objects.select_for_update().get(pk=own.pk)
        # It starts with what staff approved for the installation's set: a room that
        # learns reads no worse than one that does not.
        approved = Exemplar.objects.filter(dice_set=chosen, approved_at__isnull=False)
        copy_exemplars(approved.order_by("id"), own)
    if choice is None:
        choice = RoomDiceSet(room=room)
    choice.dice_set = own
    choice.save()
    return own


def check_set_name(raw: Any) -> str:
    """A set's name as shown (NFC, whitespace collapsed), or InvalidInput saying why not."""
    if not isinstance(raw, str):
        raise InvalidInput(_("new_photo_set is the new dice set's name, as text"))
    name = display_nickname(raw)  # messages are at most 4,096 characters (games.consumers)
    if not name:
        raise InvalidInput(_("give the new dice set a name"))
    if len(name) > NAME_MAX_LENGTH:
        raise InvalidInput(
            _("a dice set's name has at most %(count)s characters") % {"count": NAME_MAX_LENGTH}
        )
    if any(not ch.isprintable() for ch in name):
        raise InvalidInput(_("a dice set's name cannot contain control characters"))
    if not any(ch.isalnum() for ch in nickname_key(name)):
        raise InvalidInput(_("a dice set's name needs a letter or a digit"))
    return name


@dataclass(frozen=True)
class PhotoSetChange:
    """A checked change: a set to choose (its id), or a name to start one with; consent."""

    choose: int | None = None
    start: str | None = None
    learn: bool | None = None


def check_change(room: Room, changes: dict[str, Any]) -> PhotoSetChange:
    """Validate the room's dice-set settings (a games.checks.SettingsPart's ``check``)."""
    if "photo_set" in changes and "new_photo_set" in changes:
        raise InvalidInput(
            _("choose a dice set (photo_set) or start one (new_photo_set), not both at once")
        )
    choose: int | None = None
    start: str | None = None
    learn: bool | None = None
    if "photo_set" in changes:
        value = changes["photo_set"]
        if value is None:
            choose = installation_set().pk
        elif not is_int(value):
            raise InvalidInput(
                _("photo_set is a dice set's id (a number), or null for the installation's set")
            )
        elif not 0 < value <= _MAX_ID or not visible_sets(room).filter(pk=value).exists():
            raise PhotoSetNotFound(
                _("this room has no dice set %(id)s; choose one of the sets it lists")
                % {"id": value}
            )
        else:
            choose = value
    if "new_photo_set" in changes:
        name = check_set_name(changes["new_photo_set"])
        key = nickname_key(name)
        same = next(
            (
                pk
                for pk, other in visible_sets(room).values_list("pk", "name")
                if nickname_key(other) == key
            ),
            None,
        )
        if same is not None:
            choose = same  # a resent message, or a set the room has already: that one
        elif started_count(room) >= MAX_SETS_PER_ROOM:
            raise InvalidInput(
                _("a room starts at most %(count)s dice sets; choose one of them")
                % {"count": MAX_SETS_PER_ROOM}
            )
        else:
            start = name
    if "learn_photo_set" in changes:
        if not isinstance(changes["learn_photo_set"], bool):
            raise InvalidInput(_("learn_photo_set is true or false"))
        learn = changes["learn_photo_set"]
    return PhotoSetChange(choose, start, learn)


def do_apply_change(room: Room, change: PhotoSetChange) -> None:
    """Store a checked change (the SettingsPart's ``apply``: inside the settings'
    transaction, the room row locked) and tell the room after commit."""
    choice, _created = RoomDiceSet.objects.get_or_create(room=room)
    if change.start is not None:
        choice.dice_set = DiceSet.objects.create(name=change.start, started_in=room)
    elif change.choose is not None:
        choice.dice_set_id = change.choose
    if change.learn is not None:
        choice.learn = change.learn
    choice.save()
    if change.learn and chosen_set(choice).installation:
        learning_set(room, choice)  # turned on without a set of its own: it gets one
    if choice.dice_set_id is not None:
        DiceSet.objects.filter(pk=choice.dice_set_id).update(last_used_at=timezone.now())
    emit_changed(room)


def emit_changed(room: Room) -> None:
    """Send ``photo_set.changed`` to the room after commit. Precondition: in a transaction."""
    events.emit_to_room(room, "photo_set.changed", {"photo_set": photo_set_dict(room)})


def photo_set_dict(room: Room) -> dict[str, Any]:
    """The room's dice set as clients see it (docs/api.md, "Dice sets")."""
    choice = room_choice(room)
    current = chosen_set(choice)
    counted = visible_sets(room, current).annotate(
        exemplar_count=Count("exemplars", filter=read_by_the_reader(from_set=True))
    )
    listed = list(counted.order_by("-installation", "-last_used_at", "id")[:MAX_CHOICES])
    if all(dice_set.pk != current.pk for dice_set in listed):
        listed.append(counted.get(pk=current.pk))
    by_id = {dice_set.pk: dice_set for dice_set in listed}
    faces = (
        Exemplar.objects.filter(read_by_the_reader(), dice_set=current)
        .values("face")
        .distinct()
        .count()
    )
    return {
        "id": current.pk,
        "name": current.name,
        "installation": current.installation,
        "exemplars": by_id[current.pk].exemplar_count,
        "faces": faces,
        "learn": learns(choice),
        "checked_against": fits.checked_against(current),
        "choices": [
            {
                "id": dice_set.pk,
                "name": dice_set.name,
                "installation": dice_set.installation,
                "exemplars": dice_set.exemplar_count,
            }
            for dice_set in listed
        ],
        "can_start": started_count(room) < MAX_SETS_PER_ROOM,
    }


def photo_set_state(view: StateView) -> dict[str, Any]:
    """The room state's ``photo_set`` (games.state_parts)."""
    return {"photo_set": photo_set_dict(view.room)}


SETTINGS_PART = SettingsPart(
    fields=frozenset({"photo_set", "new_photo_set", "learn_photo_set"}),
    check=check_change,
    apply=do_apply_change,
)
