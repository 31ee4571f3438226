"""Expand/contract (issue 49): a database default on every NOT NULL column added since the
first production release (0015-0018; 0019's is nullable), so that the code of a release
that does not know a column (still serving during an upgrade, or run again after a
rollback) can insert rooms and rounds. PostgreSQL: ALTER COLUMN ... SET DEFAULT, metadata
only, no table rewrite. SQLite rebuilds each table. Reversible with no data lost (only the
defaults go). From now on tests/deploy/test_migrations_safe.py refuses a NOT NULL column
added without one.
"""

import django.core.validators
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0019_submission_received_at"),
    ]

    operations = [
        migrations.AlterField(
            model_name="room",
            name="chess_seconds",
            field=models.PositiveSmallIntegerField(
                db_default=60,
                default=60,
                help_text="Chess clock: each player's time, 20 to 300 seconds.",
                validators=[
                    django.core.validators.MinValueValidator(20),
                    django.core.validators.MaxValueValidator(300),
                ],
            ),
        ),
        migrations.AlterField(
            model_name="room",
            name="coop_goal",
            field=models.PositiveSmallIntegerField(
                db_default=50,
                default=50,
                help_text="Co-op: the share of the board's words (percent) the team aims to find.",
                validators=[
                    django.core.validators.MinValueValidator(10),
                    django.core.validators.MaxValueValidator(100),
                ],
            ),
        ),
        migrations.AlterField(
            model_name="room",
            name="mode",
            field=models.CharField(
                choices=[
                    ("classic", "classic"),
                    ("coop", "co-op"),
                    ("teams", "teams"),
                    ("chess", "chess clock"),
                ],
                db_default="classic",
                default="classic",
                help_text="co-op: the room plays as one team against the board (games.coop); teams: in teams against each other (games.teams); chess clock: in turns, each player against their own clock (games.chess).",
                max_length=16,
            ),
        ),
        migrations.AlterField(
            model_name="room",
            name="paper",
            field=models.BooleanField(
                db_default=False,
                default=False,
                help_text="Play on paper: the phones are the round's timer; players write their words down and enter their lists when the time is up (games.paper).",
            ),
        ),
        migrations.AlterField(
            model_name="room",
            name="ready_check",
            field=models.BooleanField(
                db_default=False,
                default=False,
                help_text="Before each round's countdown, wait until every online player says they are ready (or the host starts anyway).",
            ),
        ),
        migrations.AlterField(
            model_name="room",
            name="shrink_floor",
            field=models.PositiveIntegerField(
                db_default=30, default=30, help_text="30 to 1800: the shrinking clock stops here."
            ),
        ),
        migrations.AlterField(
            model_name="room",
            name="shrink_seconds",
            field=models.PositiveIntegerField(
                db_default=0,
                default=0,
                help_text="0: off; 5 to 600: each round of a game this much shorter than the one before (timed rounds only).",
            ),
        ),
        migrations.AlterField(
            model_name="room",
            name="team_count",
            field=models.PositiveSmallIntegerField(
                db_default=2,
                default=2,
                help_text="Teams mode: how many teams (2 to 4).",
                validators=[
                    django.core.validators.MinValueValidator(2),
                    django.core.validators.MaxValueValidator(4),
                ],
            ),
        ),
        migrations.AlterField(
            model_name="room",
            name="theme",
            field=models.CharField(
                choices=[
                    ("none", "none"),
                    ("palindromes", "palindromes"),
                    ("contains", "contains"),
                    ("starts_with", "starts_with"),
                    ("common", "common"),
                    ("list", "list"),
                ],
                db_default="none",
                default="none",
                help_text="Which of the dictionary's words count (games.room_themes).",
                max_length=16,
            ),
        ),
        migrations.AlterField(
            model_name="room",
            name="theme_letter",
            field=models.CharField(
                blank=True,
                db_default="",
                default="",
                help_text="The letter of the contains and starts_with themes.",
                max_length=1,
            ),
        ),
        migrations.AlterField(
            model_name="room",
            name="theme_list",
            field=models.CharField(
                blank=True,
                db_default="",
                default="",
                help_text="The theme list (its name) of the list theme.",
                max_length=64,
            ),
        ),
        migrations.AlterField(
            model_name="round",
            name="mode",
            field=models.CharField(db_default="classic", default="classic", max_length=16),
        ),
        migrations.AlterField(
            model_name="round",
            name="paper",
            field=models.BooleanField(
                db_default=False,
                default=False,
                help_text="Played on paper: words are entered once the time is up, until the host scores the lists (games.paper).",
            ),
        ),
        migrations.AlterField(
            model_name="round",
            name="ready_check",
            field=models.BooleanField(db_default=False, default=False),
        ),
        migrations.AlterField(
            model_name="round",
            name="ready_players",
            field=models.JSONField(
                blank=True,
                db_default=[],
                default=list,
                help_text="Ids of the players who said they are ready.",
            ),
        ),
        migrations.AlterField(
            model_name="round",
            name="ready_waiting",
            field=models.JSONField(
                blank=True,
                db_default=[],
                default=list,
                help_text="Ids of the online players last announced as waited for.",
            ),
        ),
        migrations.AlterField(
            model_name="round",
            name="teams",
            field=models.JSONField(
                blank=True,
                db_default={},
                default=dict,
                help_text="Teams rounds: each player's team (player id as text -> team), fixed when the round started (and for players who joined during it).",
            ),
        ),
    ]
