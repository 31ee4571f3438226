"""The JSON API's toolkit (docs/api.md): a view decorated with ``json_api`` answers every
``ClientError`` as ``{"error": {"code", "message"}}`` with the error's status; bodies are
read by ``read_json``; ``rate_limited`` counts a request against a per-address limit before
any work; ``idempotent`` answers a retried POST as the first time (``web.idempotency``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar, cast

from django.conf import settings
from django.db import IntegrityError, transaction
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt

from web import bearer, idempotency, throttle
from web.body_limit import MAX_BODY_BYTES
from web.errors import ClientError, IdempotencyKeyReused, InvalidInput, UnsupportedMediaType
from web.models import IdempotentResponse

# Longest Idempotency-Key kept.
MAX_IDEMPOTENCY_KEY = 64

View = Callable[..., JsonResponse]
# Any view, JSON or a pre-encoded HttpResponse (the Solve API's): kept as it is.
AnyView = TypeVar("AnyView", bound=Callable[..., HttpResponse])


def error_response(error: ClientError) -> JsonResponse:
    response = JsonResponse({"error": error.to_dict()}, status=error.status)
    if isinstance(error, throttle.Throttled):
        response["Retry-After"] = str(error.retry_after)
    return response


def json_api(view: AnyView) -> AnyView:
    """Turn ClientErrors into JSON error responses; API clients carry no CSRF cookie."""

    @csrf_exempt
    @wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        try:
            return view(request, *args, **kwargs)
        except ClientError as error:
            return error_response(error)

    return cast(AnyView, wrapper)


def rate_limited(limit: throttle.Limit) -> Callable[[AnyView], AnyView]:
    """Count the request against ``limit`` for its address (web.throttle) before any work."""

    def decorator(view: AnyView) -> AnyView:
        @wraps(view)
        def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            throttle.take(limit, throttle.client_address(request))
            return view(request, *args, **kwargs)

        return cast(AnyView, wrapper)

    return decorator


def idempotent(view: View) -> View:
    """A POST sent again with the same ``Idempotency-Key`` header by the same caller gets the
    first answer (docs/api.md, "Retrying a request"); another caller's same key is another
    key, and the same key with another body is refused (``web.idempotency``). The key is
    taken in the same transaction as the work, so two copies racing in run the work once:
    the second waits for the first. A replay restores the session the first answer made,
    and a new session cookie set by an answer names the same caller for its retries."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> JsonResponse:
        key = request.headers.get("Idempotency-Key", "").strip()
        if not key:
            return view(request, *args, **kwargs)
        if len(key) > MAX_IDEMPOTENCY_KEY or not key.isprintable():
            raise InvalidInput(
                f"Idempotency-Key is 1 to {MAX_IDEMPOTENCY_KEY} printable characters"
            )
        scope = idempotency.scope(request, key, bearer_token(request))
        fingerprint = idempotency.request_hash(request)
        with transaction.atomic():
            try:
                with transaction.atomic():  # a savepoint: a taken key leaves the rest usable
                    record = IdempotentResponse.objects.create(
                        **scope, request_hash=fingerprint, status=0, body={}
                    )
            except IntegrityError:  # answered before (or just now, by the first copy)
                stored = IdempotentResponse.objects.get(**scope)
                if stored.request_hash != fingerprint:
                    raise IdempotencyKeyReused() from None
                body, writes = idempotency.replayed_answer(stored.body)
                idempotency.write_again(request.session, writes)
                _key_also_for_a_new_session(request, stored)
                return JsonResponse(body, status=stored.status)
            # Loading the session tells an empty one (none, or a stale cookie's) apart.
            had_session = bool(request.session.keys())
            response = view(request, *args, **kwargs)
            if response.status_code >= 300:  # refused: a corrected retry may succeed
                transaction.set_rollback(True)
                return response
            made = {} if had_session else dict(request.session.items())
            record.status = response.status_code
            record.body = idempotency.stored_answer(json.loads(response.content), made)
            record.save(update_fields=["status", "body"])
            _key_also_for_a_new_session(request, record)
            return response

    return wrapper


def _key_also_for_a_new_session(request: HttpRequest, record: IdempotentResponse) -> None:
    """When this answer sets a session cookie the request did not send, store the answer
    under that session too: a retry that lost only the body sends the new cookie."""
    if not request.session.modified:
        return
    if request.session.session_key is None:  # a new session: its key is made by saving
        request.session.save()  # (SessionMiddleware saves it again, under this same key)
    cookie = request.session.session_key
    if not cookie or cookie == request.COOKIES.get(settings.SESSION_COOKIE_NAME):
        return
    try:
        with transaction.atomic():
            IdempotentResponse.objects.create(
                key=record.key,
                path=record.path,
                caller=idempotency.session_caller(cookie),
                request_hash=record.request_hash,
                status=record.status,
                body=record.body,
            )
    except IntegrityError:  # a new session's key is new: only a clash of random keys
        pass


def read_json(request: HttpRequest, max_bytes: int = MAX_BODY_BYTES) -> dict[str, Any]:
    """The request's body: a JSON object of at most ``max_bytes`` (a path that takes more
    than MAX_BODY_BYTES declares it: ``web.body_limit.allow_body``), or {} when empty."""
    if len(request.body) > max_bytes:
        raise InvalidInput(f"request body over {max_bytes} bytes")
    if not request.body:
        return {}
    if request.content_type != "application/json":
        raise UnsupportedMediaType(
            f"send the body as Content-Type: application/json, not {request.content_type!r}"
        )
    try:
        data = json.loads(request.body)
    except ValueError:
        raise InvalidInput("the body is not valid JSON") from None
    except RecursionError:  # the decoder recurses once per level
        raise InvalidInput("the body's JSON is too deeply nested") from None
    if not isinstance(data, dict):
        raise InvalidInput("the body is a JSON object")
    return data


def bearer_token(request: HttpRequest) -> str | None:
    """The token of an ``Authorization: Bearer`` header, or None."""
    return bearer.token_of(request.headers.get("Authorization", ""))
