"""``GET /api/definitions/<language>/<word>`` (docs/api.md, "Definitions")."""

from __future__ import annotations

import hashlib
import json

from django.http import HttpRequest, HttpResponse
from django.utils.cache import get_conditional_response, patch_cache_control
from django.views.decorators.http import require_GET

from definitions import services
from definitions.exceptions import DefinitionError
from web.json_api import error_response

# Answers change only when the files are rebuilt or staff edit: browsers and proxies may
# keep one this long, then revalidate it with its ETag.
MAX_AGE_SECONDS = 600


@require_GET
def definition(request: HttpRequest, language: str, word: str) -> HttpResponse:
    try:
        code = services.check_language(language)
        checked = services.check_word(word)
        body = services.define(code, checked)
    except DefinitionError as error:
        return error_response(error)
    content = json.dumps(body, ensure_ascii=False)
    etag = f'"{hashlib.sha256(content.encode()).hexdigest()[:32]}"'
    response = get_conditional_response(request, etag=etag) or HttpResponse(
        content, content_type="application/json"
    )
    response["ETag"] = etag
    patch_cache_control(response, public=True, max_age=MAX_AGE_SECONDS)
    return response
