from django.apps import AppConfig


class PhotosConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "photos"
    verbose_name = "Board photos"

    def ready(self) -> None:
        from games.state import add_state_part
        from photos.api import photo_state

        add_state_part(photo_state)
