"""IdempotentResponse, which the games app created (games 0003, 0011): here it takes over
the table as it is (games 0014 lets go of it)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("games", "0014_idempotent_response_moves_to_web"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.CreateModel(
                    name="IdempotentResponse",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True,
                                primary_key=True,
                                serialize=False,
                                verbose_name="ID",
                            ),
                        ),
                        ("key", models.CharField(max_length=64)),
                        ("path", models.CharField(max_length=200)),
                        (
                            "caller",
                            models.CharField(
                                default="",
                                help_text="SHA-256 of who sent the key: their session cookie, token or address.",
                                max_length=64,
                            ),
                        ),
                        (
                            "request_hash",
                            models.CharField(
                                default="",
                                help_text="SHA-256 of the request's method, path and body.",
                                max_length=64,
                            ),
                        ),
                        ("status", models.PositiveSmallIntegerField()),
                        ("body", models.JSONField()),
                        ("created_at", models.DateTimeField(auto_now_add=True, db_index=True)),
                    ],
                    options={
                        "db_table": "games_idempotentresponse",
                        "constraints": [
                            models.UniqueConstraint(
                                fields=("caller", "key", "path"),
                                name="one_response_per_caller_key_and_path",
                            )
                        ],
                    },
                ),
            ],
        ),
    ]
