"""The landing page and the project's wiring (URLs, ASGI, Celery)."""

import pytest
from django.test import Client
from django.urls import reverse


@pytest.mark.django_db  # the start page lists the dictionaries
def test_home_renders(client: Client) -> None:
    """The start page answers 200 with the create and join forms and its script."""
    response = client.get(reverse("games:home"))

    assert response.status_code == 200
    assert "games/home.html" in [t.name for t in response.templates]
    content = response.content.decode()
    assert "<title>Boggle</title>" in content
    assert 'id="create-form"' in content
    assert 'id="join-code-form"' in content
    assert 'name="viewport"' in content
    assert "css/site.css" in content
    assert 'type="module"' in content and "js/home.js" in content


def test_asgi_routes_http_and_websocket() -> None:
    """The ASGI router dispatches both protocols, websockets to the room consumer."""
    from channels.routing import ProtocolTypeRouter

    from boggle_site.asgi import router

    assert isinstance(router, ProtocolTypeRouter)
    assert set(router.application_mapping) == {"http", "websocket"}


def test_celery_runs_tasks_in_process_by_default() -> None:
    """Without REDIS_URL, tasks run eagerly so development needs no broker or worker."""
    from boggle_site import celery_app

    assert celery_app.conf.task_always_eager is True
    assert celery_app.conf.broker_url == "memory://"


def test_favicon_ico_is_the_app_icon(client: Client) -> None:
    """Browsers ask for /favicon.ico whatever the page links to: it answers 200 with an ICO
    whose one image is the static app icon (a PNG inside, 192 px)."""
    import struct

    from django.contrib.staticfiles import finders

    response = client.get("/favicon.ico")

    assert response.status_code == 200
    assert response["Content-Type"] == "image/x-icon"
    body = response.content
    assert struct.unpack("<HHH", body[:6]) == (0, 1, 1)
    width, height, _, _, _, _, size, offset = struct.unpack("<BBBBHHII", body[6:22])
    assert (width, height, offset) == (192, 192, 22)
    icon_path = finders.find("img/icon-192.png")
    assert icon_path is not None, "img/icon-192.png is not among the static files"
    with open(icon_path, "rb") as icon:
        assert body[offset : offset + size] == icon.read()
    assert client.head("/favicon.ico").status_code == 200
    assert client.post("/favicon.ico").status_code == 405
