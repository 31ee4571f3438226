"""Expand/contract, enforced (issue 49): no migration may break the previous release's code,
which keeps serving while the migrations run and runs again after a rollback
(production/releases.py; docs/operations.md, "Upgrading").

Games 0015 and 0016 added NOT NULL columns whose default Django drops once the column is
filled: the previous release's INSERTs, which do not name them, failed (500 on POST
/api/rooms, server_error on start_round). So, in every migration:
- a NOT NULL column is added with a database default (``db_default=``), or nullable;
- a column that becomes NOT NULL keeps or gets a database default when the previous release
  does not know it, and is not one the previous release may store NULL in;
- nothing the previous release uses is dropped or renamed (RemoveField, DeleteModel,
  RenameField, RenameModel, AlterModelTable): that is a contract step, in a release after
  the one that stopped using it, listed in CONTRACT_STEPS with its reason.
Migrations from before the rule are in GRANDFATHERED. RunSQL and RunPython are not read.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
from django.apps import apps
from django.core.management import call_command, get_commands
from django.db import models
from django.db.migrations import operations
from django.db.migrations.loader import MigrationLoader
from django.db.migrations.operations.base import Operation
from django.db.migrations.state import ProjectState
from django.db.models.fields import NOT_PROVIDED

from production.releases import PREVIOUS_RELEASE_MIGRATIONS

REPO = Path(__file__).resolve().parents[2]

# Migrations from before the rule; none may be added.
_BEFORE_PRODUCTION = (
    "in the first production release (production.releases.FIRST_PRODUCTION_RELEASE): no"
    " release in production ran without these columns"
)
_MENDED = "NOT NULL columns with no database default, given one by {}"
GRANDFATHERED: dict[tuple[str, str], str] = {
    ("games", "0001_initial"): _BEFORE_PRODUCTION,
    ("games", "0006_player_nickname_key"): _BEFORE_PRODUCTION,
    ("games", "0008_challenge_votes"): _BEFORE_PRODUCTION,
    ("games", "0010_room_lock_join_requests"): _BEFORE_PRODUCTION,
    ("games", "0011_idempotency_key_scoped_to_caller"): _BEFORE_PRODUCTION,
    ("games", "0012_game_number_for_rematch"): _BEFORE_PRODUCTION,
    ("games", "0013_practice_hints"): _BEFORE_PRODUCTION,
    ("daily", "0002_device_names_and_plausibility"): _BEFORE_PRODUCTION,
    ("dictionaries", "0002_pending_upload"): _BEFORE_PRODUCTION,
    ("dictionaries", "0003_retention"): _BEFORE_PRODUCTION,
    ("photos", "0003_reading_by_hand"): _BEFORE_PRODUCTION,
    ("games", "0015_ready_check"): _MENDED.format("games 0020"),
    ("games", "0016_coop_and_teams"): _MENDED.format("games 0020"),
    ("games", "0017_shrinking_clock_and_themes"): _MENDED.format("games 0020"),
    ("games", "0018_chess_clock_and_paper"): _MENDED.format("games 0020"),
    ("photos", "0004_solve_page_photos"): _MENDED.format("photos 0005"),
    ("dicesets", "0003_learning_apart"): _MENDED.format("dicesets 0004"),
}

# Contract steps: migrations that drop or rename what a release before the previous one used,
# with the reason they are safe now. Empty so far.
CONTRACT_STEPS: dict[tuple[str, str], str] = {}


def refusal(app: str, operation: Operation, previous: ProjectState) -> str:
    """Why ``operation`` (of a migration of ``app``) would break the code of the release whose
    schema is ``previous``; empty when it would not."""

    def previous_field(model: str, name: str) -> models.Field | None:
        known = previous.models.get((app, model.lower()))
        return known.fields.get(name) if known else None

    def previous_model(model: str) -> bool:
        return (app, model.lower()) in previous.models

    op = operation
    if isinstance(op, operations.AddField) and needs_database_default(op.field):
        return (
            f"{app}.{op.model_name}.{op.name}: a NOT NULL column added without db_default; code"
            " that does not know it cannot insert a row (give it db_default=, or null=True)"
        )
    if isinstance(op, operations.AlterField) and previous_model(op.model_name):
        before = previous_field(op.model_name, op.name)
        if before is None and needs_database_default(op.field):
            return (
                f"{app}.{op.model_name}.{op.name}: NOT NULL without db_default, and the previous"
                " release does not know the column: its inserts would fail"
            )
        if before is not None and before.null and not op.field.null:
            return (
                f"{app}.{op.model_name}.{op.name}: made NOT NULL, but the previous release may"
                " store NULL in it"
            )
    if isinstance(op, operations.RemoveField) and previous_field(op.model_name, op.name):
        return f"{app}.{op.model_name}.{op.name}: drops a column the previous release uses"
    if isinstance(op, operations.RenameField) and previous_field(op.model_name, op.old_name):
        return f"{app}.{op.model_name}.{op.old_name}: renames a column the previous release uses"
    if isinstance(op, operations.DeleteModel) and previous_model(op.name):
        return f"{app}.{op.name}: drops a table the previous release uses"
    if isinstance(op, operations.RenameModel) and previous_model(op.old_name):
        return f"{app}.{op.old_name}: renames a table the previous release uses"
    if isinstance(op, operations.AlterModelTable) and previous_model(op.name):
        return f"{app}.{op.name}: moves a table the previous release uses"
    return ""


def needs_database_default(field: models.Field) -> bool:
    """A column every INSERT must fill: NOT NULL, no database default (many-to-many and
    generated fields have no column to fill)."""
    return not (
        field.null
        or field.db_default is not NOT_PROVIDED
        or field.many_to_many
        or isinstance(field, models.GeneratedField)
    )


def refusals(app: str, steps: Sequence[Operation], previous: ProjectState) -> list[str]:
    """Every refusal of one migration's operations."""
    return [problem for operation in steps if (problem := refusal(app, operation, previous))]


def project_apps() -> set[str]:
    """This repository's apps (top-level folders), not Django's or a library's."""
    return {config.label for config in apps.get_app_configs() if Path(config.path).parent == REPO}


@pytest.fixture(scope="module")
def loader() -> MigrationLoader:
    return MigrationLoader(None, ignore_no_migrations=True)


@pytest.fixture(scope="module")
def previous(loader: MigrationLoader) -> ProjectState:
    """The schema the previous release's code knows."""
    return loader.project_state(list(PREVIOUS_RELEASE_MIGRATIONS.items()), at_end=True)


def all_refusals(
    loader: MigrationLoader, previous: ProjectState
) -> dict[tuple[str, str], list[str]]:
    ours = project_apps()
    return {
        key: refusals(key[0], migration.operations, previous)
        for key, migration in loader.disk_migrations.items()
        if key[0] in ours
    }


# ---------------------------------------------------------------- the rule, on every migration


def test_no_migration_breaks_the_previous_release(
    loader: MigrationLoader, previous: ProjectState
) -> None:
    found = all_refusals(loader, previous)
    refused = {
        key: problems
        for key, problems in found.items()
        if problems and key not in GRANDFATHERED and key not in CONTRACT_STEPS
    }
    assert not refused, "\n".join(
        f"{app}.{name}: {problem}"
        for (app, name), problems in refused.items()
        for problem in problems
    )
    # The lists stay honest: each entry names a migration that needs it.
    for listed in (*GRANDFATHERED, *CONTRACT_STEPS):
        assert found.get(listed), f"{listed} is listed but breaks nothing: remove it"


def test_mended_columns_have_database_defaults(loader: MigrationLoader) -> None:
    """The columns of the grandfathered migrations that broke a release in production have a
    database default now (games 0020, photos 0005, dicesets 0004)."""
    now = loader.project_state()
    missing = [
        f"{app}.{op.model_name}.{op.name}"
        for (app, name), reason in GRANDFATHERED.items()
        if reason.startswith(_MENDED.format(""))
        for op in loader.disk_migrations[(app, name)].operations
        if isinstance(op, operations.AddField)
        and needs_database_default(now.models[(app, op.model_name_lower)].fields[op.name])
    ]
    assert not missing, missing


def test_previous_release_migrations_exist(loader: MigrationLoader) -> None:
    for app, name in PREVIOUS_RELEASE_MIGRATIONS.items():
        assert (app, name) in loader.graph.nodes, (app, name)


@pytest.mark.django_db
def test_models_and_migrations_agree() -> None:
    """A model change (a db_default, say) comes with its migration."""
    call_command("makemigrations", "--check", "--dry-run", verbosity=0)


def test_the_migrate_command_is_the_one_that_gives_way() -> None:
    """web's migrate (lock_timeout and retries) wins over Django's: no app before web in
    INSTALLED_APPS has a migrate command."""
    assert get_commands()["migrate"] == "web"


# ---------------------------------------------------------------- the rule itself


@pytest.mark.parametrize(
    ("steps", "expected"),
    [
        pytest.param(
            [operations.AddField("room", "lights", models.BooleanField(default=False))],
            "games.room.lights: a NOT NULL column added without db_default",
            id="add-not-null",
        ),
        pytest.param(
            [operations.AddField("room", "label", models.CharField(max_length=9, blank=True))],
            "games.room.label: a NOT NULL column added without db_default",
            id="add-blank-char",
        ),
        pytest.param(
            [operations.RemoveField("room", "mode")],
            "games.room.mode: drops a column the previous release uses",
            id="remove-field",
        ),
        pytest.param(
            [operations.RenameField("room", "mode", "kind")],
            "games.room.mode: renames a column the previous release uses",
            id="rename-field",
        ),
        pytest.param(
            [operations.DeleteModel("Hint")],
            "games.Hint: drops a table the previous release uses",
            id="delete-model",
        ),
        pytest.param(
            [operations.RenameModel("Hint", "Clue")],
            "games.Hint: renames a table the previous release uses",
            id="rename-model",
        ),
        pytest.param(
            [
                operations.AlterField(
                    "round", "round_seconds", models.PositiveIntegerField(default=60)
                )
            ],
            "games.round.round_seconds: made NOT NULL, but the previous release may store NULL",
            id="alter-to-not-null",
        ),
        pytest.param(
            [
                operations.AddField("room", "lights", models.BooleanField(db_default=False)),
                operations.AlterField("room", "lights", models.BooleanField(default=False)),
            ],
            "games.room.lights: NOT NULL without db_default, and the previous release does not",
            id="drop-default-of-a-new-column",
        ),
    ],
)
def test_unsafe_operations_are_refused(
    previous: ProjectState, steps: list[Operation], expected: str
) -> None:
    found = refusals("games", steps, previous)
    assert len(found) == 1 and found[0].startswith(expected), found


@pytest.mark.parametrize(
    "steps",
    [
        pytest.param(
            [
                operations.AddField(
                    "room", "lights", models.BooleanField(default=False, db_default=False)
                )
            ],
            id="add-with-db-default",
        ),
        pytest.param(
            [operations.AddField("room", "note", models.TextField(null=True))], id="add-nullable"
        ),
        pytest.param(
            # A column only this release knows may go again within it.
            [
                operations.AddField("room", "note", models.TextField(null=True)),
                operations.RemoveField("room", "note"),
            ],
            id="remove-a-new-column",
        ),
        pytest.param(
            # The previous release inserts the column itself: its database default may go.
            [
                operations.AlterField(
                    "room", "mode", models.CharField(max_length=16, default="classic")
                )
            ],
            id="drop-default-of-a-known-column",
        ),
        pytest.param(
            [operations.AddField("room", "fans", models.ManyToManyField("games.Player"))],
            id="add-many-to-many",
        ),
    ],
)
def test_safe_operations_pass(previous: ProjectState, steps: list[Operation]) -> None:
    assert refusals("games", steps, previous) == []
