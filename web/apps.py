from django.apps import AppConfig


class WebConfig(AppConfig):
    """The web toolkit is an app only for its one table, the idempotent answers."""

    name = "web"
    default_auto_field = "django.db.models.BigAutoField"
