"""ASGI entry point: HTTP goes to Django, websockets to the games app's consumers.

Run with ``daphne boggle_site.asgi:application`` (``manage.py runserver`` does the same).
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "boggle_site.settings")

# Set up Django (apps, settings) before anything imports models through the routing.
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.sessions import CookieMiddleware  # noqa: E402
from django.conf import settings  # noqa: E402

from games.background import ensure_started  # noqa: E402
from games.routing import websocket_urlpatterns  # noqa: E402
from games.warm_up import start_warm_up  # noqa: E402
from photos.reading import preload_reader  # noqa: E402
from web.body_limit import BodyLimitMiddleware, guard_daphne  # noqa: E402
from web.connection_guard import guard_connections  # noqa: E402
from web.gc_tuning import freeze_long_lived, tune_for_latency  # noqa: E402
from web.health import answer_probes  # noqa: E402
from web.metrics import answer_scrapes  # noqa: E402
from web.prompt_writes import install as send_writes_at_once  # noqa: E402
from web.request_log import logged  # noqa: E402
from web.send_cap import guard_send_buffers  # noqa: E402
from web.websocket_origin import browser_origin_validator  # noqa: E402

guard_daphne()
guard_connections()
# A client that does not read is closed before its replies pile up in this process.
guard_send_buffers()
# A frame goes to the kernel when it is sent, not on the event loop's next turn.
send_writes_at_once()

router = ProtocolTypeRouter(
    {
        # Oversized bodies are refused before Django reads them.
        "http": BodyLimitMiddleware(django_asgi_app),
        # The cookies only: the session is read when a socket comes without a token
        # (games.sessions.socket_session). Not Channels' auth stack: that loads a Django
        # user for every handshake, on the process's one sync thread, and players are not
        # users; nor its session middleware, which wraps every frame a socket sends.
        "websocket": browser_origin_validator(CookieMiddleware(URLRouter(websocket_urlpatterns))),
    }
)
# /healthz, /readyz and /metrics are answered before Django (no Host check, redirect or
# session); every request and socket gets its id and its log line (web.request_log).
served = logged(answer_probes(answer_scrapes(router)))
tune_for_latency()
if settings.CELERY_TASK_ALWAYS_EAGER:  # embedded: this process reads the photos itself
    preload_reader(on_ready=freeze_long_lived)
    start_warm_up()  # and prepares the rounds: the first one should not load word lists


async def application(scope, receive, send):
    """The router, plus the background work (games.background) started on the first request:
    rounds end on time even when nobody's websocket is open here."""
    if scope["type"] in ("http", "websocket"):
        ensure_started()
    return await served(scope, receive, send)
