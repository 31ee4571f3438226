"""The landing page and the project's wiring (URLs, ASGI, Celery)."""

from django.test import Client
from django.urls import reverse


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
