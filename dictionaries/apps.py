from django.apps import AppConfig
from django.db.models.signals import post_migrate


class DictionariesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "dictionaries"
    verbose_name = "Dictionaries"

    def ready(self) -> None:
        from dictionaries.services import register_builtins_after_migrate

        # After every migrate (and every test-database flush): the shipped English lists
        # exist as rows. Nothing is compiled when modules are imported.
        post_migrate.connect(register_builtins_after_migrate, sender=self)
