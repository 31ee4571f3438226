from django.urls import path

from games import api, history_api, table, views, waiting_api

app_name = "games"

urlpatterns = [
    path("", views.home, name="home"),
    path("r/<str:code>/", views.room_page, name="room"),
    path("r/<str:code>/table/", table.table_page, name="table"),
    path("api/rooms", api.create_room, name="api-create-room"),
    path("api/rooms/<str:code>", api.room_detail, name="api-room"),
    path("api/rooms/<str:code>/join", api.join_room, name="api-join"),
    path(
        "api/rooms/<str:code>/join-request",
        waiting_api.join_request_detail,
        name="api-join-request",
    ),
    path("api/rooms/<str:code>/rounds/<int:number>", api.round_results, name="api-results"),
    path("r/<str:code>/rounds/<int:number>/", history_api.round_page, name="round-page"),
    path("api/rooms/<str:code>/rounds", history_api.round_list, name="api-rounds"),
    path("api/rooms/<str:code>/stats", history_api.game_stats, name="api-stats"),
    path(
        "api/rooms/<str:code>/rounds/<int:number>.png",
        history_api.round_picture,
        name="round-picture",
    ),
    path("api/dictionaries", api.dictionary_list, name="api-dictionaries"),
]
