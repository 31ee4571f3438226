"""Expand/contract (issue 49): database defaults on the NOT NULL columns of 0003, so that a
release from before it can still keep dice sets and exemplars (games 0020 says more).
"""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("dicesets", "0003_learning_apart"),
    ]

    operations = [
        migrations.AlterField(
            model_name="diceset",
            name="started_for_learning",
            field=models.BooleanField(
                db_default=False,
                default=False,
                help_text="Started for its room when the room learnt from a photo while it used the installation's set: the room learns into this one instead (one per room).",
            ),
        ),
        migrations.AlterField(
            model_name="exemplar",
            name="approved_by",
            field=models.CharField(blank=True, db_default="", default="", max_length=150),
        ),
        migrations.AlterField(
            model_name="exemplar",
            name="contested",
            field=models.BooleanField(
                db_default=False,
                default=False,
                help_text="The confirmed face contradicts what the reader alone read confidently on this die (vision.memory.contradicts): kept apart, it never makes a die confident on its own.",
            ),
        ),
        migrations.AlterField(
            model_name="exemplar",
            name="unaided_face",
            field=models.CharField(blank=True, db_default="", default="", max_length=2),
        ),
    ]
