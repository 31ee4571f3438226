from django.urls import path

from definitions import api

app_name = "definitions"

urlpatterns = [
    path("api/definitions/<str:language>/<str:word>", api.definition, name="api-definition"),
]
