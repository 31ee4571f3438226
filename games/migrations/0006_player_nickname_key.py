"""Nicknames compared by a key (games.nicknames) instead of Lower(nickname): SQLite's
lower() is ASCII-only and neither caught look-alikes such as a Cyrillic o in "Bob"."""

from django.db import migrations, models

from games.nicknames import nickname_key


def fill_keys(apps, schema_editor):
    """Key every player. Active players of one room whose keys now clash (joined before this
    rule) keep their nicknames; the later ones get a key no nickname can have (a newline and
    their id), so the constraint can be added and new joins are checked against the first."""
    Player = apps.get_model("games", "Player")
    seen: set[tuple[int, str]] = set()
    for player in Player.objects.order_by("joined_at", "id").iterator():
        key = nickname_key(player.nickname)
        if player.left_at is None:
            if (player.room_id, key) in seen:
                key = f"{key}\n{player.pk}"
            seen.add((player.room_id, key))
        Player.objects.filter(pk=player.pk).update(nickname_key=key)


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0005_socket_presence"),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name="player",
            name="unique_active_nickname_per_room",
        ),
        migrations.AddField(
            model_name="player",
            name="nickname_key",
            field=models.TextField(
                default="",
                editable=False,
                help_text="The nickname as compared (games.nicknames): set on save, unique per room.",
            ),
            preserve_default=False,
        ),
        migrations.RunPython(fill_keys, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="player",
            constraint=models.UniqueConstraint(
                fields=("room", "nickname_key"),
                condition=models.Q(("left_at__isnull", True)),
                name="unique_active_nickname_key_per_room",
            ),
        ),
    ]
