"""Top-level URL routes."""

from django.contrib import admin
from django.urls import include, path
from django.views.decorators.cache import cache_page
from django.views.decorators.http import last_modified
from django.views.i18n import JavaScriptCatalog

from web import admin_throttle, favicon, i18n

# Failed admin logins are throttled (web.admin_throttle): the form refuses, and the
# login route, matched before the admin's own, answers 429 when it did.
admin.site.login_form = admin_throttle.ThrottledAdminAuthenticationForm

# Not here: /healthz, /readyz and /metrics, answered before Django (boggle_site.asgi:
# web.health, web.metrics), whatever the Host and without a session.
urlpatterns = [
    path("favicon.ico", favicon.favicon),
    path("admin/login/", admin_throttle.login),
    path("admin/", admin.site.urls),
    # The interface language switch (Django's set_language: POST, then back to the page).
    path("i18n/", include("django.conf.urls.i18n")),
    # The scripts' translations, one catalogue per language (Vary: Accept-Language, Cookie);
    # it changes only when the server restarts with new .mo files.
    path(
        "jsi18n/",
        cache_page(i18n.JS_CATALOGUE_MAX_AGE)(
            last_modified(i18n.catalogue_time)(JavaScriptCatalog.as_view())
        ),
        name="javascript-catalog",
    ),
    path("", include("games.urls")),
    path("", include("photos.urls")),
    path("", include("daily.urls")),
    path("", include("definitions.urls")),
    path("", include("solve.urls")),
    path("", include("profiles.urls")),
    path("", include("quickplay.urls")),
    path("", include("offline.urls")),
]
