from django.apps import AppConfig


class ProfilesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "profiles"
    verbose_name = "Profiles"

    def ready(self) -> None:
        from profiles.rounds import MAX_BODY_BYTES
        from web.body_limit import allow_body

        # A device's first sync sends its rounds in batches larger than the API's usual bodies.
        allow_body(r"/api/profile/rounds", MAX_BODY_BYTES)
