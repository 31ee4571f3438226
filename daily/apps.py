from django.apps import AppConfig


class DailyConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "daily"
    verbose_name = "Daily board"

    def ready(self) -> None:
        # games sends these hooks and never imports this app (games.signals, games.state_parts).
        from daily import attempts
        from daily.api import daily_state
        from games import signals
        from games.models import Room, Round
        from games.state_parts import add_state_part

        signals.rounds_ended.connect(attempts.record_rounds, sender=Round, dispatch_uid="daily")
        signals.player_joining.connect(attempts.refuse_join, sender=Room, dispatch_uid="daily")
        signals.round_starting.connect(
            attempts.refuse_more_rounds, sender=Room, dispatch_uid="daily"
        )
        signals.game_starting.connect(attempts.refuse_new_game, sender=Room, dispatch_uid="daily")
        add_state_part(daily_state)
