from django.urls import path

from daily import api, views

app_name = "daily"

urlpatterns = [
    path("daily/", views.leaderboard_page, name="leaderboard"),
    path("api/daily", api.daily, name="api-daily"),
    path("api/practice", api.start_practice, name="api-practice"),
]
