from django.apps import AppConfig
from django.db.models.signals import post_migrate


class DicesetsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "dicesets"
    verbose_name = "Dice sets"

    def ready(self) -> None:
        # games sends these hooks and never imports this app (games.checks, games.state_parts,
        # games.signals).
        from dicesets import choices, retention
        from games import signals
        from games.checks import add_settings_part
        from games.state_parts import add_state_part

        add_settings_part(choices.SETTINGS_PART)
        add_state_part(choices.photo_set_state)
        signals.housekeeping.connect(retention.on_housekeeping, dispatch_uid="dicesets")
        # After every migrate and every test-database flush: the installation's set exists.
        post_migrate.connect(choices.ensure_installation_set_after_migrate, sender=self)
        # photos sends its hooks and never imports this app either: boards a host
        # confirmed teach the room's set, and photos are read with what it learnt.
        from dicesets import receivers, services
        from photos import reading
        from photos.signals import board_confirmed

        board_confirmed.connect(receivers.on_board_confirmed, dispatch_uid="dicesets")
        reading.set_memory_source(services.memory_for_room)
        reading.set_dice_source(services.dice_for_room)
