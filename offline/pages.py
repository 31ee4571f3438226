"""Offline practice's pages: ``/offline/``, a shell for ``static/js/offline/`` that plays a
round alone in the browser (its own dice, timer, verdicts and results) with the rules and
the dictionaries' word list addresses embedded; and ``/sw.js``, the service worker that
keeps that page, the profile and their files for when there is no network."""

from __future__ import annotations

import json
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.translation import get_language
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from dictionaries.compact import version_tag
from dictionaries.services import playable_rows
from games.room_dictionaries import base_language, dictionary_for_language
from offline import shell
from solver.rulebook import rulebook


def playable_lists() -> list[dict[str, Any]]:
    """Each dictionary rooms may choose (the default first, then by title) with its current
    version's word list address and size."""
    return [
        {
            "name": row.name,
            "title": row.title,
            "language": base_language(row.language) or "en",
            "words": row.current_version.word_count,  # type: ignore[union-attr]
            "url": reverse(
                "offline:words",
                kwargs={"name": row.name, "version": version_tag(row.current_version)},  # type: ignore[arg-type]
            ),
        }
        for row in playable_rows()
    ]


@require_http_methods(["GET", "HEAD"])
def practice_page(request: HttpRequest) -> HttpResponse:
    lists = playable_lists()
    languages = sorted({entry["language"] for entry in lists})
    data = {
        "dictionaries": lists,
        "dictionary": dictionary_for_language(get_language() or "en"),
        "rules": {language: rulebook(language) for language in languages},
    }
    return render(request, "offline/practice.html", {"offline_data": data})


@never_cache
@require_http_methods(["GET", "HEAD"])
def service_worker(request: HttpRequest) -> HttpResponse:
    """The service worker, with the addresses to keep and their tag written in. Never kept
    by the browser's cache: an update must reach the phones on their next visit."""
    urls, tag = shell.shell()
    source = render_to_string(
        "offline/sw.js",
        {
            "shell": json.dumps(urls),
            "tag": json.dumps(tag),
            "fallback": json.dumps(reverse("offline:page")),
        },
    )
    return HttpResponse(source, content_type="text/javascript; charset=utf-8")
