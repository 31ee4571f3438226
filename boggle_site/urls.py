"""Top-level URL routes."""

from django.contrib import admin
from django.urls import include, path

from boggle_site import admin_throttle

# Failed admin logins are throttled (boggle_site.admin_throttle): the form refuses, and the
# login route, matched before the admin's own, answers 429 when it did.
admin.site.login_form = admin_throttle.ThrottledAdminAuthenticationForm

urlpatterns = [
    path("admin/login/", admin_throttle.login),
    path("admin/", admin.site.urls),
    path("", include("games.urls")),
    path("", include("photos.urls")),
]
