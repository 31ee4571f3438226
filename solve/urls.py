from django.urls import path

from solve import api, pages

app_name = "solve"

urlpatterns = [
    path("solve/", pages.solve_page, name="page"),
    # A board in the address, its rows as path segments: /solve/aeol/iejm/pdls/orkf/.
    path("solve/<path:board>/", pages.solve_page, name="board"),
    path("api/solve", api.solve_board, name="api-solve"),
    path("api/solve/check", api.check_lists, name="api-check"),
]
