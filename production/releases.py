"""The releases whose code must run on this checkout's database schema (docs/operations.md,
"Upgrading" and "Rolling back").

During an upgrade the previous release's processes keep serving while this release's
migrations run; after a rollback its code runs again on the schema this release left. So
this release's migrations only expand (a new column is nullable or has a database default,
nothing the previous release uses is dropped or renamed), and the contract steps come a
release later. tests/deploy/test_migrations_safe.py refuses a migration that breaks the
rule; tests/production/test_upgrade.py plays a round with each release's code below on the
schema of this checkout.

At each release: PREVIOUS_RELEASE becomes the commit being released and
PREVIOUS_RELEASE_MIGRATIONS its last migration of each app (``manage.py showmigrations``).
"""

from __future__ import annotations

# The last release: main before issue 49 ("Daily tests: one board on every machine").
PREVIOUS_RELEASE = "f0af2395397a50e69d0aeb22bff2cbc945985d51"

# Each app's last migration in PREVIOUS_RELEASE: the schema its code knows. (No entry: the
# app did not exist then or had no migrations.)
PREVIOUS_RELEASE_MIGRATIONS = {
    "web": "0001_initial",
    "dictionaries": "0004_theme_lists",
    "games": "0019_submission_received_at",
    "photos": "0004_solve_page_photos",
    "daily": "0003_plausible_findings",
    "definitions": "0001_initial",
    "dicesets": "0003_learning_apart",
}

# The first production release (issue 31, bin/start --production). Its code broke on games
# 0015-0018 (NOT NULL columns with no database default: 500 on POST /api/rooms), which
# games 0020 mended; it stays tested until a contract step drops something it uses.
FIRST_PRODUCTION_RELEASE = "ab40453876050b8eb873c314cdf9aa0e1bc98ad8"

# The releases tests/production/test_upgrade.py runs on this schema, by name.
RELEASES_STILL_SERVED = {
    "previous": PREVIOUS_RELEASE,
    "first-production": FIRST_PRODUCTION_RELEASE,
}
