"""Readings that survive a worker's death (issue 49): when the latest attempt at reading a
photo started, and how many attempts its reading took (photos.reading, photos.stuck).

Expand only: a nullable column and one with a database default, so that a release from
before it still stores and reads photos.
"""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("photos", "0005_database_defaults"),
    ]

    operations = [
        migrations.AddField(
            model_name="boardphoto",
            name="read_attempts",
            field=models.PositiveSmallIntegerField(db_default=0, default=0),
        ),
        migrations.AddField(
            model_name="boardphoto",
            name="reading_started_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
    ]
