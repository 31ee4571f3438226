from django.apps import AppConfig


class GamesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games"
    verbose_name = "Games"

    def ready(self) -> None:
        # Registers the tasks games.rounds queues by name (it cannot import them: they call it).
        from games import (
            hints,
            tasks,  # noqa: F401
            teams,
            waiting_room,
        )
        from games.autopilot import after_rounds_ended
        from games.metrics import RoundsCollector
        from games.room_dictionaries import default_word_list
        from games.signals import rounds_ended
        from games.state_parts import add_state_part
        from web import health, metrics
        from web.statement_stats import install_from_env

        install_from_env()  # counts SQL statements for bench/load.py; no-op unless configured
        health.add_check("word_lists", default_word_list)  # /readyz
        metrics.add_collector(RoundsCollector())  # /metrics: the site's rounds
        rounds_ended.connect(after_rounds_ended, dispatch_uid="games.autopilot")
        # The room state's parts that only some rooms use (games.state_parts), in this order.
        for part in (teams.state_part, hints.state_part, waiting_room.state_part):
            add_state_part(part)
