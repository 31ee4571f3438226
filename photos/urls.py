from django.urls import path

from photos import api

app_name = "photos"

urlpatterns = [
    path("api/rooms/<str:code>/photos", api.upload_photo, name="api-upload"),
    path("api/rooms/<str:code>/photos/<int:photo_id>", api.photo_detail, name="api-photo"),
]
