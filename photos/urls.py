from django.urls import path

from photos import api

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
]
