"""Look-ups and checks shared by every action: the room, the player, the host, a nickname,
a settings change. Each raises a ``ClientError`` saying what is wrong."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games import coop, modes
from games.exceptions import NicknameTaken, NotAPlayer, NotHost, RoomNotFound
from games.models import (
    MAX_CHESS_SECONDS,
    MAX_ROUND_SECONDS,
    MAX_SHRINK_SECONDS,
    MAX_WORD_LENGTH,
    MIN_CHESS_SECONDS,
    MIN_ROUND_SECONDS,
    MIN_SHRINK_SECONDS,
    MIN_WORD_LENGTH,
    NICKNAME_MAX_LENGTH,
    BoardSize,
    Player,
    Room,
    Round,
)
from games.nicknames import (
    MAX_MARKS_PER_LETTER,
    display_nickname,
    longest_mark_run,
    nickname_key,
)
from games.room_dictionaries import (
    available_dictionaries,
)
from games.room_themes import available_theme_lists
from solver.board import Board, parse_board
from solver.dice import DICE_SETS
from solver.errors import SolverError
from solver.themes import LETTER_RULES, Rule
from solver.themes import LETTERS as THEME_LETTERS
from web import text
from web.errors import InvalidInput

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise


def check_room(code: str) -> Room:
    """The room with this code; RoomNotFound otherwise, also for a code no room can have
    (web.text: NUL, other characters, too long), which is never looked up."""
    room = None
    if text.looks_like_room_code(code):
        room = Room.objects.filter(code=code.strip().lower()).first()
    if room is None:
        shown = code if len(str(code)) <= 20 else f"{str(code)[:20]}…"  # never echo 10 kB
        raise RoomNotFound(
            _("there is no room %(code)r; check the link or create a new room") % {"code": shown}
        )
    return room


def check_player(room: Room, token: str | None = None, player_id: int | None = None) -> Player:
    """The active player of ``room`` with this token (API clients) or id (browser session)."""
    players = Player.objects.filter(room=room, left_at__isnull=True, kicked=False)
    player = None
    if token:
        # A token no player can have (web.text) is not looked up: PostgreSQL refuses NUL.
        player = players.filter(token=token).first() if text.looks_like_token(token) else None
    elif player_id:
        player = players.filter(pk=player_id).first()
    if player is None:
        raise NotAPlayer(_("join the room with a nickname first"))
    return player


def check_host(player: Player) -> None:
    """The player is the room's host; a public room (quick play) has none that counts: its
    game runs itself (games.autopilot), and no stranger rules over the others."""
    room = Room.objects.only("host_id", "public").get(pk=player.room_id)
    if room.public:
        raise NotHost(_("a quick-play room runs itself: nobody is its host"))
    if room.host_id != player.id:
        raise NotHost(_("only the host can do that"))


def check_nickname(room: Room, nickname: Any, exclude: Player | None = None) -> str:
    """A cleaned nickname (games.nicknames: NFC, whitespace collapsed) whose key no other
    active player of the room has: no "bob", or "Bob" with a Cyrillic o, beside "Bob"."""
    if not isinstance(nickname, str):
        raise InvalidInput(_("a nickname is text"))
    cleaned = display_nickname(nickname)
    if not cleaned:
        raise InvalidInput(_("pick a nickname"))
    if len(cleaned) > NICKNAME_MAX_LENGTH:
        raise InvalidInput(
            _("a nickname has at most %(count)s characters") % {"count": NICKNAME_MAX_LENGTH}
        )
    # web.text's rule (joiners allowed), and no unassigned or private-use characters,
    # which no font draws.
    if not text.is_clean(cleaned, NICKNAME_MAX_LENGTH, text.JOINERS) or any(
        not ch.isprintable() and ch not in text.JOINERS for ch in cleaned
    ):
        raise InvalidInput(_("a nickname cannot contain control characters"))
    if longest_mark_run(cleaned) > MAX_MARKS_PER_LETTER:
        raise InvalidInput(
            _("a nickname has at most %(count)s accents on one letter")
            % {"count": MAX_MARKS_PER_LETTER}
        )
    key = nickname_key(cleaned)
    if not key:  # only accents or marks: nothing to tell players apart by
        raise InvalidInput(_("a nickname needs a letter, digit or sign"))
    if room.pk is None:  # a room being created has nobody in it yet
        return cleaned
    taken = Player.objects.filter(room=room, left_at__isnull=True, nickname_key=key)
    if exclude is not None:
        taken = taken.exclude(pk=exclude.pk)
    holder = taken.values_list("nickname", flat=True).first()
    if holder is not None:
        if holder == cleaned:
            raise NicknameTaken(
                _("%(nickname)r is taken in this room; pick another nickname")
                % {"nickname": cleaned}
            )
        raise NicknameTaken(
            _("%(nickname)r is taken in this room: it looks like %(holder)r; pick another nickname")
            % {"nickname": cleaned, "holder": holder}
        )
    return cleaned


@dataclass(frozen=True)
class SettingsPart:
    """Settings that another app owns (dicesets: the dice set photos are read with), added
    by its AppConfig.ready: games does not import it. ``check(room, changes)`` validates the
    part's fields of a change (only those; ``room.pk`` is None while the room is created)
    and returns what ``apply(room, checked)`` stores once the room is saved, in the same
    transaction (the room row locked when it existed). Their values are not in the room's
    ``settings``: the app shows them in a state part of its own (games.state)."""

    fields: frozenset[str]
    check: Callable[[Room, dict[str, Any]], Any]
    apply: Callable[[Room, Any], None]


_settings_parts: list[SettingsPart] = []


def add_settings_part(part: SettingsPart) -> None:
    if part not in _settings_parts:
        _settings_parts.append(part)


def check_settings_parts(room: Room, changes: Any) -> list[tuple[SettingsPart, Any]]:
    """Validate the fields other apps own (after ``check_settings``, which refuses what is
    not an object or names no known field); returns what ``apply_settings_parts`` takes."""
    if not isinstance(changes, dict):
        return []
    return [
        (part, part.check(room, {name: changes[name] for name in part.fields & changes.keys()}))
        for part in _settings_parts
        if part.fields & changes.keys()
    ]


def apply_settings_parts(room: Room, checked: list[tuple[SettingsPart, Any]]) -> None:
    for part, value in checked:
        part.apply(room, value)


def check_settings(room: Room, changes: Any) -> dict[str, Any]:
    """Validate a settings change; returns the fields to set. InvalidInput names the problem.
    Fields other apps own are known here and checked by ``check_settings_parts``."""
    if not isinstance(changes, dict):
        raise InvalidInput("settings are an object of name: value")
    known = {
        "board_size",
        "dice_set",
        "round_seconds",
        "min_length",
        "dictionary",
        "cancel_duplicates",
        "instant_verdicts",
        "paper",
        "ready_check",
        "mode",
        "coop_goal",
        "team_count",
        "chess_seconds",
        "shrink_seconds",
        "shrink_floor",
        *THEME_FIELDS,
    }
    known |= {name for part in _settings_parts for name in part.fields}
    unknown = sorted(set(changes) - known)
    if unknown:
        raise InvalidInput(f"unknown setting {unknown[0]!r}; known: {', '.join(sorted(known))}")
    cleaned: dict[str, Any] = {}
    size = changes.get("board_size", room.board_size)
    if size not in BoardSize.values:
        raise InvalidInput(
            _("board_size is one of %(sizes)s") % {"sizes": ", ".join(BoardSize.values)}
        )
    cleaned["board_size"] = size
    side = int(size[0])
    if "dice_set" in changes:
        dice = changes["dice_set"] or ""
        # isinstance first: a JSON list or object is unhashable and cannot be looked up.
        if dice and (
            not isinstance(dice, str) or dice not in DICE_SETS or DICE_SETS[dice].rows != side
        ):
            fitting = [n for n, d in DICE_SETS.items() if d.rows == side]
            raise InvalidInput(f"dice_set for {size} is one of {', '.join(fitting)}")
        cleaned["dice_set"] = dice
    elif "board_size" in changes and room.dice_set and DICE_SETS[room.dice_set].rows != side:
        cleaned["dice_set"] = ""  # the old set does not fit the new size
    if room.next_board and parse_board(room.next_board).size != size:
        cleaned["next_board"] = ""  # a typed board of the old size cannot be played
    if "round_seconds" in changes:
        seconds = changes["round_seconds"]
        if seconds is not None and (
            not is_int(seconds) or not MIN_ROUND_SECONDS <= seconds <= MAX_ROUND_SECONDS
        ):
            raise InvalidInput(
                _("round_seconds is %(min)s to %(max)s, or null (untimed)")
                % {"min": MIN_ROUND_SECONDS, "max": MAX_ROUND_SECONDS}
            )
        cleaned["round_seconds"] = seconds
    if "min_length" in changes:
        length = changes["min_length"]
        if length is not None and (
            not is_int(length) or not MIN_WORD_LENGTH <= length <= MAX_WORD_LENGTH
        ):
            raise InvalidInput(
                _(
                    "min_length is %(min)s to %(max)s, or null for the board size's usual"
                    " (word lists and the points table start at 3 letters)"
                )
                % {"min": MIN_WORD_LENGTH, "max": MAX_WORD_LENGTH}
            )
        cleaned["min_length"] = length
    if "dictionary" in changes:
        name = changes["dictionary"]
        if not isinstance(name, str) or name not in available_dictionaries():
            names = ", ".join(available_dictionaries())
            raise InvalidInput(_("dictionary is one of %(names)s") % {"names": names})
        cleaned["dictionary"] = changes["dictionary"]
    for flag in ("cancel_duplicates", "instant_verdicts", "ready_check", "paper"):
        if flag in changes:
            if not isinstance(changes[flag], bool):
                raise InvalidInput(f"{flag} is true or false")
            cleaned[flag] = changes[flag]
    if "mode" in changes:
        if not isinstance(changes["mode"], str) or changes["mode"] not in modes.MODES:
            raise InvalidInput(_("mode is one of %(modes)s") % {"modes": ", ".join(modes.MODES)})
        cleaned["mode"] = changes["mode"]
    _whole_number(
        changes,
        cleaned,
        "coop_goal",
        coop.MIN_GOAL,
        coop.MAX_GOAL,
        gettext_lazy("coop_goal is a whole number of percent from %(min)s to %(max)s"),
    )
    _whole_number(
        changes,
        cleaned,
        "team_count",
        MIN_TEAMS,
        MAX_TEAMS,
        gettext_lazy("team_count is %(min)s to %(max)s"),
    )
    _whole_number(
        changes,
        cleaned,
        "chess_seconds",
        MIN_CHESS_SECONDS,
        MAX_CHESS_SECONDS,
        gettext_lazy("chess_seconds is each player's time: %(min)s to %(max)s seconds"),
    )
    if "shrink_seconds" in changes:
        step = changes["shrink_seconds"]
        if not is_int(step) or not (step == 0 or MIN_SHRINK_SECONDS <= step <= MAX_SHRINK_SECONDS):
            raise InvalidInput(
                _("shrink_seconds is 0 (off) or %(min)s to %(max)s")
                % {"min": MIN_SHRINK_SECONDS, "max": MAX_SHRINK_SECONDS}
            )
        cleaned["shrink_seconds"] = step
    _whole_number(
        changes,
        cleaned,
        "shrink_floor",
        MIN_ROUND_SECONDS,
        MAX_ROUND_SECONDS,
        gettext_lazy("shrink_floor is %(min)s to %(max)s seconds"),
    )
    if THEME_FIELDS & changes.keys():
        cleaned.update(check_theme_settings(room, changes))
    return cleaned


def _whole_number(
    changes: dict[str, Any],
    cleaned: dict[str, Any],
    name: str,
    lowest: int,
    highest: int,
    message: StrOrPromise,
) -> None:
    """Put ``changes[name]`` in ``cleaned`` if it is there and a whole number from
    ``lowest`` to ``highest``; InvalidInput with ``message`` (``%(min)s``, ``%(max)s``) if
    it is there and is not."""
    if name not in changes:
        return
    value = changes[name]
    if not is_int(value) or not lowest <= value <= highest:
        raise InvalidInput(str(message) % {"min": lowest, "max": highest})
    cleaned[name] = value


# The settings of the themed word rules (games.room_themes).
THEME_FIELDS = frozenset({"theme", "theme_letter", "theme_list"})


def check_theme_settings(room: Room, changes: dict[str, Any]) -> dict[str, Any]:
    """The theme fields of a settings change, checked together: a letter rule needs its
    letter, the list rule a theme list the room may choose."""
    cleaned: dict[str, Any] = {}
    if "theme" in changes:
        rule = changes["theme"]
        if not isinstance(rule, str) or rule not in set(Rule):
            raise InvalidInput(
                _("theme is one of %(themes)s") % {"themes": ", ".join(rule for rule in Rule)}
            )
        cleaned["theme"] = rule
    if "theme_letter" in changes:
        letter = changes["theme_letter"] or ""
        # A phone's keyboard may send a capital: the rule's letter is the same.
        if not isinstance(letter, str) or (
            letter and (len(letter) != 1 or letter.lower() not in THEME_LETTERS)
        ):
            raise InvalidInput(_("theme_letter is one letter, a to z"))
        cleaned["theme_letter"] = letter.lower()
    lists = available_theme_lists()
    if "theme_list" in changes:
        name = changes["theme_list"] or ""
        if not isinstance(name, str) or (name and name not in lists):
            raise InvalidInput(_theme_lists_text(lists))
        cleaned["theme_list"] = name
    rule = cleaned.get("theme", room.theme)
    if rule in LETTER_RULES and not cleaned.get("theme_letter", room.theme_letter):
        raise InvalidInput(
            _("the %(theme)s theme needs a theme_letter: one letter, a to z") % {"theme": rule}
        )
    if rule == Rule.LIST and cleaned.get("theme_list", room.theme_list) not in lists:
        raise InvalidInput(_theme_lists_text(lists))
    return cleaned


def _theme_lists_text(lists: dict[str, str]) -> str:
    if not lists:
        return _("theme_list names a theme list, and there is none yet: staff add them")
    return _("theme_list is one of %(names)s") % {"names": ", ".join(lists)}


# How many teams a room in teams mode plays in (games.teams).
MIN_TEAMS = 2
MAX_TEAMS = 4

# Longest board text taken (set_board, a new room's board): a 6x6 board with commas fits.
MAX_BOARD_CHARS = 200


def check_board(board_text: Any) -> Board:
    """A board given as text (docs/api.md, "Board text"), parsed, of a size rooms play;
    InvalidInput saying what is wrong otherwise."""
    if (
        not isinstance(board_text, str)
        or not board_text.strip()
        or len(board_text) > MAX_BOARD_CHARS
    ):
        raise InvalidInput(
            _("a board is text of at most %(count)s characters, such as 'aeol iejm pdls orkf'")
            % {"count": MAX_BOARD_CHARS}
        )
    try:
        board = parse_board(board_text)
    except SolverError as error:
        raise InvalidInput(_("bad board: %(error)s") % {"error": error}) from None
    if board.size not in BoardSize.values:
        raise InvalidInput(
            _("a board is one of %(sizes)s; that one is %(size)s")
            % {"sizes": ", ".join(BoardSize.values), "size": board.size}
        )
    return board


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def current_round(room_id: int) -> Round | None:
    """The room's latest round, whatever its state."""
    return Round.objects.filter(room_id=room_id).order_by("-number").first()


# Largest round number taken from a client (a 32-bit column's range).
MAX_ROUND_NUMBER = 2**31 - 1


def check_round_number(value: Any) -> int:
    """A round's number as a client sends it (``results``, ``ready``, ``force_start``)."""
    if not is_int(value) or not 1 <= value <= MAX_ROUND_NUMBER:
        raise InvalidInput("round_number is a round's number: 1, 2, …")
    return int(value)
