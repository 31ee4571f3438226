"""Production over HTTPS passes Django's deployment checks, every page carries a Content
Security Policy its own scripts and styles meet, and join links keep the https scheme the
TLS proxy reports."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.test import Client, override_settings

from boggle_site import env

REPO = Path(__file__).resolve().parent.parent.parent
HOST = "boggle.example"
PRODUCTION = {"BOGGLE_SERVES_LOCAL_NETWORK": False, "ALLOWED_HOSTS": [HOST], "BOGGLE_LAN_HOST": ""}
BEHIND_PROXY = {"BOGGLE_PROXY_SSL_HEADER": "1", "BOGGLE_TRUSTED_PROXIES": "127.0.0.1"}
PROXY = env.security_settings(BEHIND_PROXY)["SECURE_PROXY_SSL_HEADER"]
# The test client's requests come from 127.0.0.1: the proxy, once declared.
TRUSTED_PROXY = {"SECURE_PROXY_SSL_HEADER": PROXY, "BOGGLE_TRUSTED_PROXIES": ["127.0.0.1/32"]}


def run_check_deploy(extra: dict[str, str]) -> subprocess.CompletedProcess[str]:
    variables = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "DJANGO_ALLOWED_HOSTS": "boggle.example.org",
        **extra,
    }
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=REPO,
        env=variables,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_production_over_https_passes_check_deploy() -> None:
    """docs/operations.md's HTTPS variables: a public https URL behind a proxy that sets
    X-Forwarded-Proto."""
    result = run_check_deploy({"BOGGLE_PUBLIC_URL": "https://boggle.example.org", **BEHIND_PROXY})
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_opener_policy_goes_only_with_https() -> None:
    """Cross-Origin-Opener-Policy over https; not on a LAN's plain http, where browsers
    ignore it and log an error on every page (a phone's console, in the Wi-Fi test)."""
    assert env.security_settings({})["SECURE_CROSS_ORIGIN_OPENER_POLICY"] is None
    over_https = env.security_settings({"BOGGLE_HTTPS": "1"})
    assert over_https["SECURE_CROSS_ORIGIN_OPENER_POLICY"] == "same-origin"


def create_room(client: Client, **headers: Any) -> dict:
    response = client.post(
        "/api/rooms", {"nickname": "Ann"}, content_type="application/json", **headers
    )
    assert response.status_code == 201, response.content
    return response.json()


def policy(header: str) -> dict[str, list[str]]:
    directives = [part.split() for part in header.split(";") if part.strip()]
    return {name: sources for name, *sources in directives}


@pytest.mark.django_db
@override_settings(**PRODUCTION, BOGGLE_PUBLIC_URL="")
def test_pages_carry_a_content_security_policy() -> None:
    client = Client()
    code = create_room(client, HTTP_HOST=HOST)["room"]["code"]
    for path in ("/", f"/r/{code}/"):
        response = client.get(path, HTTP_HOST=HOST)
        assert response.status_code == 200
        csp = policy(response["Content-Security-Policy"])
        assert csp["default-src"] == ["'self'"]
        assert csp["script-src"] == ["'self'"]  # no inline scripts, no eval
        assert csp["style-src"] == ["'self'"]
        # Only style="" attributes set by the room's scripts (a bar's width, an avatar's hue).
        assert csp["style-src-attr"] == ["'unsafe-inline'"]
        # The QR codes are inline SVG elements; blob: is for a photo the Solve page fetched.
        assert csp["img-src"] == ["'self'", "blob:"]
        # The room's websocket, named: older browsers' 'self' does not cover ws(s):.
        assert csp["connect-src"] == ["'self'", f"ws://{HOST}", f"wss://{HOST}"]
        assert csp["frame-ancestors"] == ["'none'"]
        assert csp["base-uri"] == ["'self'"]
        assert csp["form-action"] == ["'self'"]
        assert csp["object-src"] == ["'none'"]
        assert response["X-Frame-Options"] == "DENY"
        assert response["X-Content-Type-Options"] == "nosniff"
        assert response["Referrer-Policy"] == "same-origin"


@pytest.mark.django_db
@override_settings(**PRODUCTION, BOGGLE_PUBLIC_URL="")
def test_websocket_sources_keep_the_port_and_refused_hosts_get_none() -> None:
    client = Client()
    response = client.get("/", HTTP_HOST=f"{HOST}:8443")
    assert policy(response["Content-Security-Policy"])["connect-src"] == [
        "'self'",
        f"ws://{HOST}:8443",
        f"wss://{HOST}:8443",
    ]
    refused = client.get("/", HTTP_HOST="evil.example")
    assert refused.status_code == 400
    assert policy(refused["Content-Security-Policy"])["connect-src"] == ["'self'"]


@pytest.mark.django_db
@override_settings(**PRODUCTION, BOGGLE_PUBLIC_URL="", **TRUSTED_PROXY)
def test_join_links_follow_the_proxy_scheme() -> None:
    """Behind a TLS proxy (BOGGLE_PROXY_SSL_HEADER=1) a link made from the request is https."""
    client = Client()
    data = create_room(client, HTTP_HOST=HOST, HTTP_X_FORWARDED_PROTO="https")
    assert data["player"]["join_url"] == f"https://{HOST}/r/{data['room']['code']}/"
    page = client.get(f"/r/{data['room']['code']}/", HTTP_HOST=HOST, HTTP_X_FORWARDED_PROTO="https")
    assert f"https://{HOST}/r/{data['room']['code']}/" in page.content.decode()
    plain = create_room(client, HTTP_HOST=HOST, HTTP_X_FORWARDED_PROTO="http")
    assert plain["player"]["join_url"].startswith(f"http://{HOST}/r/")


@pytest.mark.django_db
@override_settings(**PRODUCTION, BOGGLE_PUBLIC_URL="https://play.example", **TRUSTED_PROXY)
def test_public_url_keeps_priority_over_the_proxy_scheme() -> None:
    data = create_room(Client(), HTTP_HOST=HOST, HTTP_X_FORWARDED_PROTO="http")
    assert data["player"]["join_url"] == f"https://play.example/r/{data['room']['code']}/"
