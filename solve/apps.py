from django.apps import AppConfig


class SolveConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "solve"
    verbose_name = "Solve a board"

    def ready(self) -> None:
        from solve.api import MAX_CHECK_BODY_BYTES
        from web.body_limit import allow_body

        # The lists of a paper game (12 players of 500 words) are larger than the API's
        # usual bodies; anyone may send them, as anyone may open the Solve page.
        allow_body(r"/api/solve/check", MAX_CHECK_BODY_BYTES)
