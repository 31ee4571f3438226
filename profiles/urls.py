from django.urls import path

from profiles import api, pages

app_name = "profiles"

urlpatterns = [
    path("profile/", pages.profile_page, name="page"),
    path("profile/account/", pages.account_page, name="account"),
    path("profile/sign-out/", pages.sign_out_view, name="sign-out"),
    path("profile/delete/", pages.delete_account, name="delete"),
    path("api/profile/rounds", api.rounds, name="api-rounds"),
    path("api/profile/export", api.export, name="api-export"),
]
