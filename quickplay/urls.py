from django.urls import path

from quickplay import api, pages

app_name = "quickplay"

urlpatterns = [
    path("play-now/", pages.leaderboard_page, name="leaderboard"),
    path("api/quickplay", api.ticket, name="api-ticket"),
    path("api/quickplay/leaderboard", api.leaderboard, name="api-leaderboard"),
    path("api/rooms/<str:code>/report", api.report, name="api-report"),
]
