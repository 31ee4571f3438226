"""Settings from environment variables, via boggle_site.env with explicit env dicts."""

from pathlib import Path

import pytest
from channels_redis.core import RedisChannelLayer
from django.core.exceptions import ImproperlyConfigured

from boggle_site import env

BASE = Path("/srv/boggle")
PROD = {
    "DJANGO_SECRET_KEY": "s3cret-for-tests",
    "DATABASE_URL": "postgres://boggle:pw@db.example:5432/boggle",
    "REDIS_URL": "redis://cache.example:6379/0",
}


def test_defaults_are_self_contained_development() -> None:
    """No variables: SQLite in var/, in-memory layer, eager Celery, DEBUG on."""
    assert env.debug_enabled({}) is True
    assert env.secret_key({}) == env.DEV_SECRET_KEY
    database = env.database_config({}, BASE)
    assert database["ENGINE"] == env.SQLITE_ENGINE  # Django's, writers queued per process
    assert database["NAME"] == BASE / "var" / "db.sqlite3"
    assert database["OPTIONS"] == env.SQLITE_OPTIONS
    assert database["TEST"]["NAME"].endswith(".sqlite3")  # a file, as the site uses
    assert env.channel_layers({})["default"]["BACKEND"] == "web.memory_layer.EmbeddedChannelLayer"
    celery = env.celery_config({})
    assert celery["task_always_eager"] is True
    assert celery["broker_url"] == "memory://"
    # Phones reach the embedded default by this machine's address (web.hosts).
    assert env.serves_local_network({}) is True
    assert env.allowed_hosts({}) == ["*"]
    assert env.dictionary_dir({}, BASE) == BASE / "var" / "dictionaries"


def test_database_url_selects_postgresql() -> None:
    """DATABASE_URL is parsed into a PostgreSQL config with persistent connections."""
    config = env.database_config(PROD, BASE)

    assert config["ENGINE"] == "django.db.backends.postgresql"
    assert (config["NAME"], config["HOST"], config["PORT"]) == ("boggle", "db.example", 5432)
    assert (config["USER"], config["PASSWORD"]) == ("boggle", "pw")
    # A pool per process instead of per-thread persistent connections (ASGI threads).
    assert config["CONN_MAX_AGE"] == 0
    assert config["OPTIONS"]["pool"]["max_size"] == env.DEFAULT_POOL_SIZE
    assert (
        env.database_config({**PROD, "DATABASE_POOL_SIZE": "4"}, BASE)["OPTIONS"]["pool"][
            "max_size"
        ]
        == 4
    )
    with pytest.raises(ImproperlyConfigured):
        env.database_config({**PROD, "DATABASE_POOL_SIZE": "lots"}, BASE)


def test_redis_url_selects_redis_layer_and_celery_broker() -> None:
    """REDIS_URL switches the channel layer and Celery's broker and results to Redis."""
    layer = env.channel_layers(PROD)["default"]
    assert layer["BACKEND"] == "web.channel_layer.PooledRedisChannelLayer"
    assert layer["CONFIG"] == {
        "hosts": [
            {
                "address": "redis://cache.example:6379/0",
                "socket_timeout": env.REDIS_SOCKET_TIMEOUT,
                "max_connections": env.REDIS_MAX_CONNECTIONS,
            }
        ],
        "capacity": env.CHANNEL_CAPACITY,
        "expiry": env.CHANNEL_EXPIRY_SECONDS,
    }
    # An idle websocket's blocking read must not time out before Redis answers it.
    assert RedisChannelLayer.brpop_timeout < env.REDIS_SOCKET_TIMEOUT

    celery = env.celery_config(PROD)
    assert celery["broker_url"] == "redis://cache.example:6379/0"
    assert celery["result_backend"] == "redis://cache.example:6379/0"
    assert celery["task_always_eager"] is False


def test_production_values() -> None:
    """A secret key turns DEBUG off; hosts, origins and the dictionary dir are read."""
    values = {
        **PROD,
        "DJANGO_ALLOWED_HOSTS": "boggle.example, www.boggle.example,",
        "DJANGO_CSRF_TRUSTED_ORIGINS": "https://boggle.example",
        "BOGGLE_DICTIONARY_DIR": "/data/dictionaries",
    }

    assert env.debug_enabled(values) is False
    assert env.secret_key(values) == "s3cret-for-tests"
    assert env.allowed_hosts(values) == ["boggle.example", "www.boggle.example"]
    assert env.csrf_trusted_origins(values) == ["https://boggle.example"]
    assert env.dictionary_dir(values, BASE) == Path("/data/dictionaries")


def test_debug_flag_overrides_secret_key() -> None:
    """DJANGO_DEBUG=1 turns DEBUG on even with a real key."""
    assert env.debug_enabled({**PROD, "DJANGO_DEBUG": "1"}) is True


@pytest.mark.parametrize("name", ["DATABASE_URL", "REDIS_URL"])
def test_missing_secret_key_in_production_fails_fast(name: str) -> None:
    """A production service without DJANGO_SECRET_KEY is a configuration error."""
    with pytest.raises(ImproperlyConfigured, match="DJANGO_SECRET_KEY"):
        env.secret_key({name: PROD[name]})


def test_missing_secret_key_allowed_when_debugging_production_services() -> None:
    """DJANGO_DEBUG=1 allows the development key, e.g. for a local PostgreSQL."""
    values = {"DATABASE_URL": PROD["DATABASE_URL"], "DJANGO_DEBUG": "1"}
    assert env.secret_key(values) == env.DEV_SECRET_KEY


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("1", True), ("TRUE", True), ("on", True), ("0", False), ("no", False), ("off", False)],
)
def test_get_bool(raw: str, expected: bool) -> None:
    """Common spellings parse whatever the default."""
    assert env.get_bool({"X": raw}, "X", default=not expected) is expected


def test_get_bool_blank_or_unknown_uses_default() -> None:
    """Blank, unset or unrecognised values give the default."""
    assert env.get_bool({"X": " "}, "X", default=True) is True
    assert env.get_bool({}, "X", default=True) is True
    assert env.get_bool({"X": "maybe"}, "X") is False


def test_media_dir_defaults_to_var_and_follows_the_environment(tmp_path) -> None:
    """Uploaded photos go to var/media unless BOGGLE_MEDIA_DIR names a shared directory."""
    from pathlib import Path

    from boggle_site import env as env_module

    assert env_module.media_dir({}, tmp_path) == tmp_path / "var" / "media"
    assert env_module.media_dir({"BOGGLE_MEDIA_DIR": "/srv/media"}, tmp_path) == Path("/srv/media")


def test_local_network_mode_only_in_the_embedded_default() -> None:
    """Production, or an explicit host list, answers exactly DJANGO_ALLOWED_HOSTS."""
    assert env.serves_local_network({"DATABASE_URL": "sqlite:////tmp/x.sqlite3"}) is True
    assert env.serves_local_network(PROD) is False
    assert env.allowed_hosts(PROD) == ["localhost", "127.0.0.1", "[::1]"]
    assert env.serves_local_network({"DJANGO_ALLOWED_HOSTS": "a.example"}) is False
    assert env.allowed_hosts({"DJANGO_ALLOWED_HOSTS": "a.example"}) == ["a.example"]


def test_sqlite_database_url_is_not_production() -> None:
    """A sqlite: URL moves the embedded database; it needs no secret key and gets the
    options that let SQLite take concurrent writes."""
    values = {"DATABASE_URL": "sqlite:////tmp/boggle.sqlite3"}
    assert env.is_production(values) is False
    assert env.secret_key(values) == env.DEV_SECRET_KEY
    options = env.database_config(values, BASE)["OPTIONS"]
    assert options["transaction_mode"] == "IMMEDIATE"
    assert "journal_mode=WAL" in options["init_command"]
    assert options["timeout"] == env.SQLITE_BUSY_SECONDS


def test_public_url_and_lan_host() -> None:
    assert env.public_url({}) == ""
    assert env.public_url({"BOGGLE_PUBLIC_URL": "https://boggle.example/"}) == (
        "https://boggle.example"
    )
    for bad in ("boggle.example", "https://boggle.example/path", "ftp://boggle.example"):
        with pytest.raises(ImproperlyConfigured, match="BOGGLE_PUBLIC_URL"):
            env.public_url({"BOGGLE_PUBLIC_URL": bad})
    assert env.lan_host({"BOGGLE_LAN_HOST": " Laptop.local "}) == "laptop.local"


# A proxy on this machine, the one whose X-Forwarded-Proto is believed.
BEHIND_PROXY = {"BOGGLE_PROXY_SSL_HEADER": "1", "BOGGLE_TRUSTED_PROXIES": "127.0.0.1"}
HTTPS = {**PROD, "BOGGLE_PUBLIC_URL": "https://boggle.example", **BEHIND_PROXY}


def test_embedded_default_stays_plain_http() -> None:
    """bin/start on a LAN has no TLS: no redirect, no HSTS, cookies sent over http."""
    for values in ({}, PROD, {**PROD, "BOGGLE_PUBLIC_URL": "http://boggle.example"}):
        security = env.security_settings(values)
        assert security["SECURE_SSL_REDIRECT"] is False
        assert security["SECURE_HSTS_SECONDS"] == 0
        assert security["SESSION_COOKIE_SECURE"] is False
        assert security["CSRF_COOKIE_SECURE"] is False
        assert security["SECURE_PROXY_SSL_HEADER"] is None
        # Harmless over http, so always on.
        assert security["SECURE_CONTENT_TYPE_NOSNIFF"] is True
        assert security["X_FRAME_OPTIONS"] == "DENY"


def test_https_public_url_behind_a_proxy_turns_on_https_settings() -> None:
    security = env.security_settings(HTTPS)
    assert security["SECURE_PROXY_SSL_HEADER"] == ("HTTP_X_FORWARDED_PROTO", "https")
    assert security["SECURE_SSL_REDIRECT"] is True
    assert security["SECURE_HSTS_SECONDS"] == 31536000
    assert security["SECURE_HSTS_INCLUDE_SUBDOMAINS"] is True
    assert security["SECURE_HSTS_PRELOAD"] is False
    assert security["SESSION_COOKIE_SECURE"] is True
    assert security["CSRF_COOKIE_SECURE"] is True


def test_https_settings_can_be_tuned() -> None:
    assert (
        env.security_settings({**HTTPS, "BOGGLE_HSTS_SECONDS": "300"})["SECURE_HSTS_SECONDS"] == 300
    )
    assert env.security_settings({**HTTPS, "BOGGLE_HTTPS": "0"})["SECURE_SSL_REDIRECT"] is False
    # BOGGLE_HTTPS=1 without an https public URL (links follow the request).
    forced = env.security_settings({**PROD, "BOGGLE_HTTPS": "1", **BEHIND_PROXY})
    assert forced["SESSION_COOKIE_SECURE"] is True and forced["SECURE_SSL_REDIRECT"] is True
    with pytest.raises(ImproperlyConfigured, match="BOGGLE_HSTS_SECONDS"):
        env.security_settings({**HTTPS, "BOGGLE_HSTS_SECONDS": "a year"})


def test_https_without_the_proxy_header_does_not_redirect() -> None:
    """Behind a TLS proxy that Django cannot see, every request would look like http and
    redirect to itself for ever; HTTPS cookies still apply (the browser is on https)."""
    security = env.security_settings({**PROD, "BOGGLE_PUBLIC_URL": "https://boggle.example"})
    assert security["SECURE_SSL_REDIRECT"] is False
    assert security["SESSION_COOKIE_SECURE"] is True
    assert security["CSRF_COOKIE_SECURE"] is True


def test_embedded_default_with_an_https_public_url_keeps_cookies_on_http() -> None:
    """bin/start with a tunnel's https URL: phones on the Wi-Fi still use plain http, where
    a Secure session cookie would never come back (no player could join)."""
    security = env.security_settings({"BOGGLE_PUBLIC_URL": "https://tunnel.example"})
    assert security["SESSION_COOKIE_SECURE"] is False
    assert security["SECURE_HSTS_SECONDS"] == 0
    forced = env.security_settings({"BOGGLE_PUBLIC_URL": "https://x.example", "BOGGLE_HTTPS": "1"})
    assert forced["SESSION_COOKIE_SECURE"] is True


def test_dictionary_retention_is_thirty_days_unless_set() -> None:
    """BOGGLE_DICTIONARY_RETENTION_DAYS: whole days, 1 or more; anything else stops startup."""
    assert env.dictionary_retention_days({}) == env.DEFAULT_DICTIONARY_RETENTION_DAYS == 30
    assert env.dictionary_retention_days({"BOGGLE_DICTIONARY_RETENTION_DAYS": " 7 "}) == 7
    for wrong in ("0", "-3", "a month", "1.5"):
        with pytest.raises(ImproperlyConfigured, match="BOGGLE_DICTIONARY_RETENTION_DAYS"):
            env.dictionary_retention_days({"BOGGLE_DICTIONARY_RETENTION_DAYS": wrong})


def test_trusted_proxies_are_networks() -> None:
    assert env.trusted_proxies({}) == []
    assert env.trusted_proxies({"BOGGLE_TRUSTED_PROXIES": " 127.0.0.1, 10.0.0.0/8,::1 "}) == [
        "127.0.0.1/32",
        "10.0.0.0/8",
        "::1/128",
    ]
    with pytest.raises(ImproperlyConfigured, match="BOGGLE_TRUSTED_PROXIES"):
        env.trusted_proxies({"BOGGLE_TRUSTED_PROXIES": "proxy.internal"})


def test_the_former_hop_count_is_refused_with_the_way_out() -> None:
    """BOGGLE_TRUSTED_PROXY_HOPS believed X-Forwarded-For from anyone: an operator who still
    sets it learns at start what to set instead, rather than losing the limits silently."""
    assert env.trusted_proxies({"BOGGLE_TRUSTED_PROXY_HOPS": "0"}) == []
    with pytest.raises(ImproperlyConfigured, match="BOGGLE_TRUSTED_PROXIES"):
        env.trusted_proxies({"BOGGLE_TRUSTED_PROXY_HOPS": "1"})


def test_the_proxy_ssl_header_needs_a_trusted_proxy() -> None:
    with pytest.raises(ImproperlyConfigured, match="BOGGLE_TRUSTED_PROXIES"):
        env.security_settings({**PROD, "BOGGLE_PROXY_SSL_HEADER": "1"})
