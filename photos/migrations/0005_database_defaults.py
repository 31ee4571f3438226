"""Expand/contract (issue 49): a database default on key_hash (0004), so that a release
from before it can still store photos (games 0020 says more).
"""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("photos", "0004_solve_page_photos"),
    ]

    operations = [
        migrations.AlterField(
            model_name="boardphoto",
            name="key_hash",
            field=models.CharField(blank=True, db_default="", default="", max_length=64),
        ),
    ]
