"""The installation's dice set: the one every room uses until its host chooses another."""

from django.db import migrations

# As dicesets.models.INSTALLATION_SET_NAME when this migration was written.
INSTALLATION_SET_NAME = "The usual dice"


def create_installation_set(apps, schema_editor):
    DiceSet = apps.get_model("dicesets", "DiceSet")
    if not DiceSet.objects.filter(installation=True).exists():
        DiceSet.objects.create(name=INSTALLATION_SET_NAME, installation=True)


class Migration(migrations.Migration):
    dependencies = [("dicesets", "0001_initial")]

    operations = [migrations.RunPython(create_installation_set, migrations.RunPython.noop)]
