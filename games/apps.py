from django.apps import AppConfig


class GamesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games"
    verbose_name = "Games"

    def ready(self) -> None:
        # Registers the tasks games.rounds queues by name (it cannot import them: they call it).
        from games import tasks  # noqa: F401
        from games.autopilot import after_rounds_ended
        from games.metrics import RoundsCollector
        from games.room_dictionaries import default_word_list
        from games.signals import rounds_ended
        from web import health, metrics
        from web.statement_stats import install_from_env

        install_from_env()  # counts SQL statements for bench/load.py; no-op unless configured
        health.add_check("word_lists", default_word_list)  # /readyz
        metrics.add_collector(RoundsCollector())  # /metrics: the site's rounds
        rounds_ended.connect(after_rounds_ended, dispatch_uid="games.autopilot")
