from django.urls import path

from photos import api, preview_api, solo_api

app_name = "photos"

urlpatterns = [
    path("api/rooms/<str:code>/photos", api.upload_photo, name="api-upload"),
    path("api/rooms/<str:code>/photos/<int:photo_id>", api.photo_detail, name="api-photo"),
    path("api/rooms/<str:code>/photos/<int:photo_id>/image", api.photo_image, name="api-image"),
    path(
        "api/rooms/<str:code>/photos/<int:photo_id>/corners",
        api.read_with_corners,
        name="api-corners",
    ),
    # The Solve page's photos (no room).
    path("api/solve/photos", solo_api.upload_photo, name="api-solo-upload"),
    path("api/solve/photos/<int:photo_id>", solo_api.photo_detail, name="api-solo-photo"),
    path("api/solve/photos/<int:photo_id>/image", solo_api.photo_image, name="api-solo-image"),
    path(
        "api/solve/photos/<int:photo_id>/corners",
        solo_api.read_with_corners,
        name="api-solo-corners",
    ),
    # The camera view's previews: where the board is (no room, nothing stored).
    path("api/photos/preview", preview_api.board_preview, name="api-preview"),
]
