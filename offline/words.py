"""``GET /offline/words/<dictionary>/<version>.txt``: a dictionary version's compact word
list (``solver.compact``, made by ``dictionaries.compact``) for the browser to keep and play
offline with (docs/api.md, "Offline practice").

Any version of a dictionary rooms may choose is served while its file is kept: a page
loaded before a recompile still gets the list it names. The bytes never change, so the
answer may be kept for good; it is sent gzipped to a browser that takes gzip.
"""

from __future__ import annotations

import gzip

from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods

from dictionaries.compact import compact_file
from dictionaries.models import DictionaryVersion
from offline.exceptions import UnknownWordList
from web import throttle
from web.json_api import json_api, rate_limited

# A phone downloads a list once per dictionary and version (its service worker keeps it);
# a household's phones behind one address trying every dictionary stay inside this.
DOWNLOAD = throttle.Limit(
    "offline_words", 10, 20, gettext_lazy("too many word lists downloaded from your address")
)
KEEP_FOR_GOOD = "public, max-age=31536000, immutable"


@json_api
@require_http_methods(["GET", "HEAD"])
@rate_limited(DOWNLOAD)
def word_list(request: HttpRequest, name: str, version: str) -> HttpResponse:
    found = (
        DictionaryVersion.objects.select_related("dictionary")
        .filter(
            dictionary__name=name,
            dictionary__enabled=True,
            dictionary__current_version__isnull=False,
            digest__startswith=version,
        )
        .first()
    )
    if found is None:
        raise UnknownWordList(f"no word list {name}/{version}: reload the page for the current one")
    data = compact_file(found).read_bytes()
    response = HttpResponse(content_type="text/plain; charset=utf-8")
    if "gzip" in request.headers.get("Accept-Encoding", ""):
        response["Content-Encoding"] = "gzip"
    else:
        data = gzip.decompress(data)
    response.content = data
    response["Cache-Control"] = KEEP_FOR_GOOD
    response["Vary"] = "Accept-Encoding"
    response["ETag"] = f'"{version}"'
    return response
