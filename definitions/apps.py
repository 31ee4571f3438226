from django.apps import AppConfig


class DefinitionsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "definitions"
    verbose_name = "Definitions"
