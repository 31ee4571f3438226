"""Rooms, players, rounds and submitted words.

A room's settings apply to its next round; a round copies them when it starts, so a
finished round keeps the rules (and dictionary) it was played with.
"""

from __future__ import annotations

import secrets
from datetime import timedelta
from typing import TYPE_CHECKING, Any, TypedDict, cast

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Exists, OuterRef
from django.utils import timezone

from games import coop, modes
from games.nicknames import nickname_key
from solver.clocks import round_length
from solver.dice import default_dice_set
from solver.scoring import default_min_length
from solver.themes import Rule

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations

# Room codes: 8 characters from an alphabet without look-alikes (0/o, 1/l/i): about 40 bits,
# short enough to read out across a table, too many to guess.
ROOM_CODE_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"
ROOM_CODE_LENGTH = 8
DEFAULT_ROUND_SECONDS = 180
MIN_ROUND_SECONDS = 30
MAX_ROUND_SECONDS = 30 * 60
# Each player's clock in chess-clock rooms (solver.chess_clock), in seconds.
DEFAULT_CHESS_SECONDS = 60
MIN_CHESS_SECONDS = 20
MAX_CHESS_SECONDS = 300
# The shrinking clock's step (seconds per round; 0 is off).
MIN_SHRINK_SECONDS = 5
MAX_SHRINK_SECONDS = 600
# A room's shortest word: the word lists and the points table start at 3 letters.
MIN_WORD_LENGTH = 3
MAX_WORD_LENGTH = 8
NICKNAME_MAX_LENGTH = 24
# A socket counts as open while the web process holding it renewed it this recently
# (games.presence renews every few seconds): a dead process's players go offline after it.
PRESENCE_TIMEOUT = timedelta(seconds=20)


def new_room_code() -> str:
    return "".join(secrets.choice(ROOM_CODE_ALPHABET) for _ in range(ROOM_CODE_LENGTH))


def new_player_token() -> str:
    return secrets.token_urlsafe(24)


class BoardSize(models.TextChoices):
    CLASSIC = "4x4", "4x4 classic"
    BIG = "5x5", "5x5 big"
    SUPER_BIG = "6x6", "6x6 super big"

    @property
    def side(self) -> int:
        return int(self.value[0])


class Room(models.Model):
    """A table of friends: a join code, a host, settings for the next round."""

    # db_default on the columns added since the first production release: the previous
    # release's code, still serving during an upgrade or after a rollback, inserts rows
    # without them (docs/operations.md, "Upgrading"; tests/deploy/test_migrations_safe.py).
    code = models.CharField(max_length=16, unique=True, default=new_room_code)
    created_at = models.DateTimeField(auto_now_add=True)
    last_active_at = models.DateTimeField(
        auto_now_add=True, db_index=True, help_text="Last time anyone joined, played or left."
    )
    host = models.ForeignKey(
        "Player", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    board_size = models.CharField(
        max_length=3, choices=BoardSize.choices, default=BoardSize.CLASSIC
    )
    dice_set = models.CharField(
        max_length=32, blank=True, help_text="Empty: the usual set for the board size."
    )
    round_seconds = models.PositiveIntegerField(
        null=True,
        blank=True,
        default=DEFAULT_ROUND_SECONDS,
        help_text=f"{MIN_ROUND_SECONDS} to {MAX_ROUND_SECONDS} seconds; empty for untimed rounds.",
    )
    min_length = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        validators=[MinValueValidator(MIN_WORD_LENGTH), MaxValueValidator(MAX_WORD_LENGTH)],
        help_text="3 to 8; empty: 3 on 4x4, 4 on 5x5 and 6x6.",
    )
    dictionary = models.CharField(max_length=64, default="english")
    cancel_duplicates = models.BooleanField(
        default=True, help_text="Words found by two or more players score for nobody."
    )
    instant_verdicts = models.BooleanField(
        default=True, help_text="Tell players at once whether each word counts."
    )
    mode = models.CharField(
        max_length=16,
        choices=[
            (modes.CLASSIC, "classic"),
            (modes.COOP, "co-op"),
            (modes.TEAMS, "teams"),
            (modes.CHESS, "chess clock"),
        ],
        default=modes.CLASSIC,
        db_default=modes.CLASSIC,
        help_text="co-op: the room plays as one team against the board (games.coop); teams:"
        " in teams against each other (games.teams); chess clock: in turns, each player"
        " against their own clock (games.chess).",
    )
    chess_seconds = models.PositiveSmallIntegerField(
        default=DEFAULT_CHESS_SECONDS,
        db_default=DEFAULT_CHESS_SECONDS,
        validators=[
            MinValueValidator(MIN_CHESS_SECONDS),
            MaxValueValidator(MAX_CHESS_SECONDS),
        ],
        help_text=f"Chess clock: each player's time, {MIN_CHESS_SECONDS} to"
        f" {MAX_CHESS_SECONDS} seconds.",
    )
    paper = models.BooleanField(
        default=False,
        db_default=False,
        help_text="Play on paper: the phones are the round's timer; players write their words"
        " down and enter their lists when the time is up (games.paper).",
    )
    team_count = models.PositiveSmallIntegerField(
        default=2,
        db_default=2,
        validators=[MinValueValidator(2), MaxValueValidator(4)],
        help_text="Teams mode: how many teams (2 to 4).",
    )
    coop_goal = models.PositiveSmallIntegerField(
        default=coop.DEFAULT_GOAL,
        db_default=coop.DEFAULT_GOAL,
        validators=[MinValueValidator(coop.MIN_GOAL), MaxValueValidator(coop.MAX_GOAL)],
        help_text="Co-op: the share of the board's words (percent) the team aims to find.",
    )
    ready_check = models.BooleanField(
        default=False,
        db_default=False,
        help_text="Before each round's countdown, wait until every online player says they are"
        " ready (or the host starts anyway).",
    )
    next_board = models.CharField(
        max_length=200,
        blank=True,
        help_text="A board typed in or read from a photo, used by the next round instead of a roll.",
    )
    # The shrinking clock (solver.clocks): each round of a game shorter than the one before.
    shrink_seconds = models.PositiveIntegerField(
        default=0,
        db_default=0,
        help_text=f"0: off; {MIN_SHRINK_SECONDS} to {MAX_SHRINK_SECONDS}: each round of a game"
        " this much shorter than the one before (timed rounds only).",
    )
    shrink_floor = models.PositiveIntegerField(
        default=MIN_ROUND_SECONDS,
        db_default=MIN_ROUND_SECONDS,
        help_text=f"{MIN_ROUND_SECONDS} to {MAX_ROUND_SECONDS}: the shrinking clock stops here.",
    )
    # Themed word rules (solver.themes), on top of the dictionary.
    theme = models.CharField(
        max_length=16,
        choices=[(rule.value, rule.value) for rule in Rule],
        default=Rule.NONE.value,
        db_default=Rule.NONE.value,
        help_text="Which of the dictionary's words count (games.room_themes).",
    )
    theme_letter = models.CharField(
        max_length=1,
        blank=True,
        default="",
        db_default="",
        help_text="The letter of the contains and starts_with themes.",
    )
    theme_list = models.CharField(
        max_length=64,
        blank=True,
        default="",
        db_default="",
        help_text="The theme list (its name) of the list theme.",
    )
    version = models.PositiveBigIntegerField(
        default=0, help_text="Bumped by every event sent to the room; clients resync on a gap."
    )
    # Unused since live counts take no version (games.live_counts): the previous release
    # still writes it, so it is dropped in a later release (expand/contract, docs/operations.md).
    counts_sent_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="Unused: when an earlier release last sent live counts.",
    )
    game_ended_at = models.DateTimeField(
        null=True, blank=True, help_text="When the host ended the game (end_game): no more rounds."
    )
    final_standing = models.JSONField(
        null=True,
        blank=True,
        help_text="The standing sent with game.ended (games.standings), kept for the state.",
    )
    game = models.PositiveIntegerField(
        default=1,
        help_text="The game being played: new_game (a rematch in the same room) adds one.",
    )
    locked = models.BooleanField(
        default=False,
        help_text="Newcomers wait for the host's yes (games.waiting_room); players come back freely.",
    )
    practice = models.BooleanField(
        default=False,
        help_text="A solo practice room (daily.practice): players may buy hints (games.hints).",
    )
    public = models.BooleanField(
        default=False,
        db_default=False,
        help_text="Filled by quick play with strangers (quickplay): nobody is its host, the"
        " autopilot runs its game, and it takes no quick phrases.",
    )
    autopilot_rounds = models.PositiveSmallIntegerField(
        default=0,
        db_default=0,
        help_text="0: the host runs the game; N: the server starts each round and ends the"
        " game after N rounds (games.autopilot).",
    )
    next_round_at = models.DateTimeField(
        null=True,
        blank=True,
        db_index=True,
        help_text="When the autopilot starts the room's next round.",
    )

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.code

    @property
    def rows(self) -> int:
        return BoardSize(self.board_size).side

    @property
    def cols(self) -> int:
        return BoardSize(self.board_size).side

    def effective_dice_set(self, language: str = "") -> str:
        """The set the room picked, else the default for its size and its dictionary's
        ``language`` (games.room_dictionaries.dictionary_language): a French room rolls French dice."""
        return self.dice_set or default_dice_set(self.rows, self.cols, language)

    def effective_min_length(self) -> int:
        return self.min_length or default_min_length(self.rows, self.cols)

    def next_round_seconds(self) -> int | None:
        """How long the room's next round is: ``round_seconds``, shrunk by the shrinking
        clock for each round of the current game already started (``new_game`` starts
        again from the full length). Counts the rounds only when the clock shrinks."""
        if self.round_seconds is None or not self.shrink_seconds:
            return self.round_seconds
        started = Round.objects.filter(room_id=self.pk, game=self.game).count()
        return round_length(self.round_seconds, started + 1, self.shrink_seconds, self.shrink_floor)


class Presence(TypedDict):
    """What ``PlayerQuerySet.with_presence()`` adds to each player."""

    is_online: bool


class PlayerQuerySet(models.QuerySet["Player"]):
    def with_presence(self) -> models.QuerySet[WithAnnotations[Player, Presence]]:
        """Annotate ``is_online``: whether a socket of the player is open in a live process."""
        # Cast: django-stubs' plugin refuses to annotate a name the model declares
        # (Player.is_online, for the players whose presence is set without a query), and the
        # type it infers for annotate() is not one a signature can spell anyway.
        presence = {"is_online": Exists(Connection.objects.live().filter(player=OuterRef("pk")))}
        return cast("models.QuerySet[WithAnnotations[Player, Presence]]", self.annotate(**presence))


class Player(models.Model):
    """Someone at the table: a nickname in one room, no account."""

    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="players")
    nickname = models.CharField(max_length=NICKNAME_MAX_LENGTH)
    nickname_key = models.TextField(
        editable=False,
        help_text="The nickname as compared (games.nicknames): set on save, unique per room.",
    )
    token = models.CharField(
        max_length=64, unique=True, default=new_player_token, help_text="Secret for API clients."
    )
    joined_at = models.DateTimeField(auto_now_add=True)
    left_at = models.DateTimeField(null=True, blank=True)
    kicked = models.BooleanField(default=False)
    last_seen_at = models.DateTimeField(
        auto_now_add=True, help_text="When the player's last socket closed (or its process died)."
    )
    team = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Teams mode: the player's team, 1 to the room's count."
    )

    objects = PlayerQuerySet.as_manager()
    # Set by PlayerQuerySet.with_presence(); presenters read it through ``online``.
    is_online: bool

    class Meta:
        ordering = ["joined_at", "id"]
        constraints = [
            # On the key, not Lower(nickname): SQLite's lower() leaves non-ASCII letters
            # alone, and neither catches look-alikes.
            models.UniqueConstraint(
                fields=["room", "nickname_key"],
                condition=models.Q(left_at__isnull=True),
                name="unique_active_nickname_key_per_room",
            )
        ]

    def __str__(self) -> str:
        return f"{self.nickname} in {self.room_id}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        # The one place the key is derived, so every write path (joins, admin) keeps it.
        self.nickname_key = nickname_key(self.nickname)
        update_fields = kwargs.get("update_fields")
        if update_fields is not None and "nickname" in update_fields:
            kwargs["update_fields"] = {*update_fields, "nickname_key"}
        super().save(*args, **kwargs)

    @property
    def active(self) -> bool:
        return self.left_at is None

    @property
    def online(self) -> bool:
        """Needs ``is_online`` (``with_presence()``, or set by whoever just learned it)."""
        return self.active and self.is_online


class ConnectionQuerySet(models.QuerySet["Connection"]):
    def live(self) -> ConnectionQuerySet:
        """Sockets whose process renewed them within PRESENCE_TIMEOUT."""
        return self.filter(beat_at__gte=timezone.now() - PRESENCE_TIMEOUT)


class Connection(models.Model):
    """One open websocket of a player. The web process holding it renews ``beat_at`` every
    few seconds (games.presence); a row not renewed for PRESENCE_TIMEOUT belonged to a process
    that died, and is swept. A player is online while one of their rows is live."""

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="sockets")
    channel_name = models.CharField(max_length=200, unique=True)
    process = models.CharField(max_length=100, db_index=True)
    connected_at = models.DateTimeField(auto_now_add=True)
    beat_at = models.DateTimeField(db_index=True)

    objects = ConnectionQuerySet.as_manager()

    def __str__(self) -> str:
        return f"socket of player {self.player_id} in {self.process}"


class Round(models.Model):
    """One board played by the room, with the rules copied from the room at its start."""

    class Status(models.TextChoices):
        PREPARING = "preparing", "preparing"  # solving the board
        RUNNING = "running", "running"  # countdown, then play, until the deadline
        ENDED = "ended", "ended"

    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="rounds")
    # Round numbers run on across the room's games (links to a round stay unique); totals
    # and the standing count only the rounds of one game.
    number = models.PositiveIntegerField()
    game = models.PositiveIntegerField(
        default=1, help_text="The room's game this round belongs to."
    )
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.PREPARING, db_index=True
    )
    board = models.CharField(max_length=200, help_text="Board notation, rows separated by spaces.")
    rows = models.PositiveSmallIntegerField()
    cols = models.PositiveSmallIntegerField()
    dice_set = models.CharField(max_length=32, blank=True)
    min_length = models.PositiveSmallIntegerField()
    dictionary = models.CharField(max_length=64)
    dictionary_version = models.ForeignKey(
        "dictionaries.DictionaryVersion",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="rounds",
        help_text="The compiled word list the round is judged, solved and scored with "
        "(empty for rounds from before versions: they use the dictionary's current one).",
    )
    cancel_duplicates = models.BooleanField()
    instant_verdicts = models.BooleanField()
    round_seconds = models.PositiveIntegerField(null=True, blank=True)
    # db_default on the columns added since the first production release: see Room.
    mode = models.CharField(max_length=16, default=modes.CLASSIC, db_default=modes.CLASSIC)
    coop_goal = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Co-op rounds: the team's goal in percent."
    )
    teams = models.JSONField(
        default=dict,
        db_default={},
        blank=True,
        help_text="Teams rounds: each player's team (player id as text -> team), fixed when"
        " the round started (and for players who joined during it).",
    )
    theme = models.JSONField(
        null=True,
        blank=True,
        help_text="Themed rounds: the theme copied from the room (solver.themes.Theme.as_dict);"
        " the solution holds only its words. Empty: every word of the dictionary counts.",
    )
    chess = models.JSONField(
        null=True,
        blank=True,
        help_text="Chess-clock rounds (games.chess.ChessGame): each player's seconds, the"
        " clock (solver.chess_clock) once the countdown is over, and the words played;"
        " empty in other rounds.",
    )
    paper = models.BooleanField(
        default=False,
        db_default=False,
        help_text="Played on paper: words are entered once the time is up, until the host"
        " scores the lists (games.paper).",
    )
    # The ready check (games.ready): the round is solved and waits for its players from
    # ``ready_since`` until nobody online is waited for, or the host starts it anyway.
    ready_check = models.BooleanField(default=False, db_default=False)
    ready_since = models.DateTimeField(null=True, blank=True)
    ready_players = models.JSONField(
        default=list,
        db_default=[],
        blank=True,
        help_text="Ids of the players who said they are ready.",
    )
    ready_waiting = models.JSONField(
        default=list,
        db_default=[],
        blank=True,
        help_text="Ids of the online players last announced as waited for.",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    starts_at = models.DateTimeField(null=True, blank=True)
    ends_at = models.DateTimeField(null=True, blank=True, db_index=True)
    ended_at = models.DateTimeField(null=True, blank=True)
    solution = models.JSONField(
        default=list, blank=True, help_text="Every possible word: [word, points, path]."
    )
    max_points = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["room", "number"]
        constraints = [
            models.UniqueConstraint(fields=["room", "number"], name="unique_round_number"),
        ]

    def __str__(self) -> str:
        return f"{self.room_id} round {self.number}"


class Submission(models.Model):
    """A word a player entered during a round, and what the referee said."""

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="submissions")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="submissions")
    word = models.CharField(max_length=80, help_text="As judged: lower-case, accents folded.")
    verdict = models.CharField(max_length=32)
    client_id = models.CharField(
        max_length=64, blank=True, help_text="The client's id for the entry: resends are ignored."
    )
    created_at = models.DateTimeField(auto_now_add=True)
    # Accepted words are written in batches, behind other players' (web.writers): the
    # row's created_at can be later than the word's arrival, which the awards measure.
    received_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="When an accepted word reached the server; null for refused entries and"
        " rows written before it was kept.",
    )
    points = models.PositiveIntegerField(null=True, blank=True, help_text="Set when scored.")
    cancelled = models.BooleanField(default=False, help_text="Found by another player too.")

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["round", "player", "word"],
                condition=models.Q(verdict="accepted"),
                name="one_accepted_word_per_player",
            ),
            models.UniqueConstraint(
                fields=["round", "player", "client_id"],
                condition=~models.Q(client_id=""),
                name="one_submission_per_client_id",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.word} ({self.verdict})"


class Hint(models.Model):
    """Hints a player bought for one word of a round in a practice room (games.hints): the
    first shows the word's first letters, each further one a letter more."""

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="hints")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="hints")
    word = models.CharField(max_length=80, help_text="A word of the round's solution.")
    count = models.PositiveSmallIntegerField(default=1, help_text="Hints bought for this word.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["round", "player", "word"], name="one_hint_row_per_player_and_word"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.word} x{self.count}"


class Challenge(models.Model):
    """A house rule at the table: a player asks that a word the dictionary refused count,
    and the players online vote (games.challenges). An accepted word counts for the
    challenger and everyone else who entered it in that round, and in the room's later
    rounds with the same dictionary."""

    class Status(models.TextChoices):
        PENDING = "pending", "pending"
        ACCEPTED = "accepted", "accepted"
        DECLINED = "declined", "declined"

    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="challenges")
    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="challenges")
    player = models.ForeignKey(
        Player, on_delete=models.CASCADE, related_name="challenges", help_text="Who challenged."
    )
    word = models.CharField(max_length=80, help_text="As judged: lower-case, accents folded.")
    dictionary = models.CharField(
        max_length=64, help_text="The round's dictionary: the ruling holds for rounds with it."
    )
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.PENDING, db_index=True
    )
    created_at = models.DateTimeField(auto_now_add=True)
    decided_at = models.DateTimeField(null=True, blank=True)
    decided_by = models.ForeignKey(
        Player,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="The host, when decided by rule_challenge; empty when the vote decided.",
    )
    voters = models.JSONField(
        default=list,
        blank=True,
        help_text="Ids of the players who vote: those online when it opened, but the challenger.",
    )
    votes = models.JSONField(
        default=dict,
        blank=True,
        help_text="Each voter's vote so far: player id (as text) -> true (accept) / false.",
    )
    added_to = models.ForeignKey(
        "dictionaries.Dictionary",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="Set when staff add the word to a dictionary.",
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["round", "word"], name="one_challenge_per_word"),
        ]

    def __str__(self) -> str:
        return f"{self.word} ({self.status})"


class JoinRequest(models.Model):
    """A newcomer asking to join a locked room, until the host lets them in or refuses
    (games.waiting_room). The ``key`` is the newcomer's secret: whoever holds it learns the
    answer, and the new player's token once let in."""

    class Status(models.TextChoices):
        WAITING = "waiting", "waiting"
        ADMITTED = "admitted", "admitted"
        REFUSED = "refused", "refused"
        WITHDRAWN = "withdrawn", "withdrawn"

    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="join_requests")
    nickname = models.CharField(max_length=NICKNAME_MAX_LENGTH)
    key = models.CharField(max_length=64, unique=True, default=new_player_token)
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.WAITING, db_index=True
    )
    created_at = models.DateTimeField(auto_now_add=True)
    seen_at = models.DateTimeField(
        default=timezone.now, help_text="Last time the newcomer's page asked for the answer."
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    player = models.ForeignKey(
        Player,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="The player made when the host let them in.",
    )

    class Meta:
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"{self.nickname} ({self.status})"
