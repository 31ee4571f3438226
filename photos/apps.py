from django.apps import AppConfig


class PhotosConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "photos"
    verbose_name = "Board photos"

    def ready(self) -> None:
        from games import signals
        from games.models import Room
        from games.state_parts import add_state_part
        from photos import retention, stuck
        from photos.api import MAX_UPLOAD_BYTES, photo_state
        from photos.boards import on_next_board_set
        from photos.metrics import PhotosCollector
        from photos.preview_api import MAX_PREVIEW_BYTES
        from web.body_limit import allow_upload
        from web.metrics import add_collector

        allow_upload(r"/api/rooms/[^/]+/photos", MAX_UPLOAD_BYTES, staff_only=False)
        # The Solve page's: anyone may send one (photos.solo_api bounds them per address).
        allow_upload(r"/api/solve/photos", MAX_UPLOAD_BYTES, staff_only=False, anyone=True)
        # The camera view's previews, from anyone too (photos.preview_api bounds them).
        allow_upload(r"/api/photos/preview", MAX_PREVIEW_BYTES, staff_only=False, anyone=True)
        add_state_part(photo_state)
        signals.next_board_set.connect(on_next_board_set, sender=Room, dispatch_uid="photos")
        signals.housekeeping.connect(retention.on_housekeeping, dispatch_uid="photos")
        add_collector(PhotosCollector())  # /metrics: photos read (also by the workers)
        # Hourly where no beat runs the sweep (the embedded default).
        signals.housekeeping.connect(stuck.on_housekeeping, dispatch_uid="photos.stuck")
