"""IdempotentResponse moves to the web toolkit (web.models): only Django's idea of which
app holds it changes; its table stays as it is, under its old name."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0013_practice_hints"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name="IdempotentResponse")],
            database_operations=[],
        ),
    ]
