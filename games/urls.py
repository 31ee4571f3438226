from django.urls import path

from games import api, table, views

app_name = "games"

urlpatterns = [
    path("", views.home, name="home"),
    path("r/<str:code>/", views.room_page, name="room"),
    path("r/<str:code>/table/", table.table_page, name="table"),
    path("api/rooms", api.create_room, name="api-create-room"),
    path("api/rooms/<str:code>", api.room_detail, name="api-room"),
    path("api/rooms/<str:code>/join", api.join_room, name="api-join"),
    path("api/rooms/<str:code>/rounds/<int:number>", api.round_results, name="api-results"),
    path("api/dictionaries", api.dictionary_list, name="api-dictionaries"),
]
