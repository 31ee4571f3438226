from django.apps import AppConfig


class QuickplayConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "quickplay"
    verbose_name = "Quick play"

    def ready(self) -> None:
        from games.signals import game_ended, housekeeping
        from quickplay.queue import on_housekeeping
        from quickplay.ratings import rate_game

        game_ended.connect(rate_game, dispatch_uid="quickplay.rate_game")
        housekeeping.connect(on_housekeeping, dispatch_uid="quickplay")
