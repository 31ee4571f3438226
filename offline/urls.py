from django.urls import path, register_converter

from dictionaries.compact import VERSION_LETTERS
from offline import pages, words


class VersionTag:
    """The letters of a version's digest in a compact word list's address (lower-case hex)."""

    regex = f"[0-9a-f]{{{VERSION_LETTERS}}}"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(VersionTag, "version")

app_name = "offline"

urlpatterns = [
    path("offline/", pages.practice_page, name="page"),
    path("offline/words/<slug:name>/<version:version>.txt", words.word_list, name="words"),
    # At the site's root: a service worker controls the pages under its own address only.
    path("sw.js", pages.service_worker, name="service-worker"),
]
