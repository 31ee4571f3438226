from django.apps import AppConfig
from django.db.models.signals import post_migrate


class DictionariesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "dictionaries"
    verbose_name = "Dictionaries"

    def ready(self) -> None:
        from dictionaries.services import register_builtins_after_migrate
        from dictionaries.themes import MAX_THEME_LIST_BYTES
        from solver.compiler import MAX_WORDLIST_BYTES
        from web.body_limit import allow_upload

        # A staff member's word list, added or replaced in the admin.
        allow_upload(
            r"/admin/dictionaries/dictionary/(add|[^/]+/change)/",
            MAX_WORDLIST_BYTES,
            staff_only=True,
        )

        # A theme list's words (dictionaries.themes): twice the list's limit, so that a file
        # a little over it gets the form's message rather than a bare 413.
        allow_upload(
            r"/admin/dictionaries/themelist/(add|[^/]+/change)/",
            2 * MAX_THEME_LIST_BYTES,
            staff_only=True,
        )

        # After every migrate (and every test-database flush): the shipped English lists
        # exist as rows. Nothing is compiled when modules are imported.
        post_migrate.connect(register_builtins_after_migrate, sender=self)
