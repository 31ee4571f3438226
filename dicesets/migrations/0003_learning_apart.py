"""Learning kept apart (issue 48): a room learns into a set of its own, the installation's
set reads only the exemplars staff approved, and an exemplar that contradicts the reader's
own confident reading is contested.

No data step: the installation's set's exemplars kept before this migration are left
unapproved, so the reader ignores them until staff approve them (admin, "Dice sets"):
any room could have taught them.
"""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("dicesets", "0002_installation_set"),
    ]

    operations = [
        migrations.AddField(
            model_name="diceset",
            name="started_for_learning",
            field=models.BooleanField(
                default=False,
                help_text="Started for its room when the room learnt from a photo while it used the installation's set: the room learns into this one instead (one per room).",
            ),
        ),
        migrations.AddField(
            model_name="exemplar",
            name="approved_at",
            field=models.DateTimeField(
                blank=True,
                help_text="When staff approved it for the installation's set: that set reads only approved dice. Empty in other sets (their rooms' own).",
                null=True,
            ),
        ),
        migrations.AddField(
            model_name="exemplar",
            name="approved_by",
            field=models.CharField(blank=True, default="", max_length=150),
        ),
        migrations.AddField(
            model_name="exemplar",
            name="contested",
            field=models.BooleanField(
                default=False,
                help_text="The confirmed face contradicts what the reader alone read confidently on this die (vision.memory.contradicts): kept apart, it never makes a die confident on its own.",
            ),
        ),
        migrations.AddField(
            model_name="exemplar",
            name="unaided_confidence",
            field=models.FloatField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="exemplar",
            name="unaided_face",
            field=models.CharField(blank=True, default="", max_length=2),
        ),
    ]
