"""Interface languages: what the JavaScript catalogue view and the websocket consumers need.

The language of a page comes from Django's LocaleMiddleware (the ``django_language`` cookie
that the page's switch sets, else Accept-Language). Websockets have no middleware, so
:func:`language_from_scope` makes the same choice from the handshake's headers.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from http.cookies import SimpleCookie
from typing import Any

from django.conf import settings
from django.http import HttpRequest
from django.utils.translation import get_supported_language_variant
from django.utils.translation.trans_real import parse_accept_lang_header

# The browser keeps /jsi18n/?l=<language> this long (base.html puts the language in the
# address, so a switch fetches the other catalogue instead of reusing this one).
JS_CATALOGUE_MAX_AGE = 24 * 3600


def catalogue_time(request: HttpRequest) -> datetime | None:
    """When the newest compiled catalogue was written: the JS catalogue's Last-Modified."""
    times = [
        path.stat().st_mtime
        for locale_dir in settings.LOCALE_PATHS
        for path in locale_dir.glob("*/LC_MESSAGES/*.mo")
    ]
    return datetime.fromtimestamp(max(times), tz=UTC) if times else None


def _supported(code: str) -> str | None:
    try:
        return get_supported_language_variant(code)
    except LookupError:
        return None


def language_from_headers(headers: Mapping[str, str]) -> str:
    """The interface language for a request with these (lower-case) headers: the switch's
    cookie first, then the browser's Accept-Language, then LANGUAGE_CODE."""
    cookie = SimpleCookie()
    try:
        cookie.load(headers.get("cookie", ""))
    except Exception:  # a malformed Cookie header: as if there were none
        cookie = SimpleCookie()
    morsel = cookie.get(settings.LANGUAGE_COOKIE_NAME)
    if morsel is not None and (chosen := _supported(morsel.value)):
        return chosen
    for code, _quality in parse_accept_lang_header(headers.get("accept-language", "")):
        if code != "*" and (chosen := _supported(code)):
            return chosen
    return settings.LANGUAGE_CODE


def language_from_scope(scope: Mapping[str, Any]) -> str:
    """The interface language of an ASGI (websocket) connection's scope."""
    headers = {
        name.decode("latin-1").lower(): value.decode("latin-1")
        for name, value in scope.get("headers", [])
    }
    return language_from_headers(headers)
