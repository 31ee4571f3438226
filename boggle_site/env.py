"""Read the site's configuration from environment variables.

Every function takes the environment as a mapping (normally ``os.environ``) so that tests
can pass a plain dict instead of reloading settings. With no variables set the result is a
self-contained development setup: SQLite, an in-memory channel layer, Celery tasks run
in-process. Setting ``DATABASE_URL`` or ``REDIS_URL`` means production, where a real
``DJANGO_SECRET_KEY`` is required.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import os
import secrets
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

Env = Mapping[str, str]

# Used only in development, where DEBUG is on; never accepted in production (see secret_key).
DEV_SECRET_KEY = "django-insecure-dev-only-not-for-production"

# Variables whose presence means "this is a real deployment".
PRODUCTION_VARS = ("DATABASE_URL", "REDIS_URL")

# PostgreSQL connections per process, from a pool (psycopg_pool): under ASGI each request
# runs in a thread of its own, so persistent per-thread connections would pile up until
# PostgreSQL refuses more ("too many clients"). Processes x DATABASE_POOL_SIZE must stay
# under the server's max_connections (100 by default): see docs/operations.md, Capacity.
DEFAULT_POOL_SIZE = 10
# Seconds a request waits for a free pooled connection before failing.
POOL_TIMEOUT_SECONDS = 30
# A migration's wait for a lock (migrate_lock_timeout), seconds.
DEFAULT_MIGRATE_LOCK_TIMEOUT = 0.5
MAX_MIGRATE_LOCK_TIMEOUT = 60

DEV_HOSTS = ["localhost", "127.0.0.1", "[::1]"]

# HSTS max-age when HTTPS is on (BOGGLE_HSTS_SECONDS): a year, as check --deploy expects.
DEFAULT_HSTS_SECONDS = 31536000

# Days an unused compiled dictionary version or uploaded word list is kept before the
# hourly clean-up deletes it (BOGGLE_DICTIONARY_RETENTION_DAYS; dictionaries.retention).
DEFAULT_DICTIONARY_RETENTION_DAYS = 30

# SQLite (the embedded default) with many writers at once: WAL lets readers go on during a
# write, IMMEDIATE transactions take the write lock when they begin (a deferred one that
# reads, then writes, fails at once with "database is locked" instead of waiting), and
# writers wait up to SQLITE_BUSY_SECONDS for the lock instead of failing.
SQLITE_BUSY_SECONDS = 30
SQLITE_ENGINE = "web.sqlite"
SQLITE_CONN_MAX_AGE = 300
# Pages the WAL may reach before a commit checkpoints it itself (SQLite's default: 1,000).
# That checkpoint runs inside the commit, under the process's write lock, so every writer
# waits for it: the verdicts of a crowd stalled 100-200 ms each time. Web processes
# checkpoint in the background instead (web.sqlite.checkpoint_wal); this bounds the
# WAL (some 40 MB) where nothing does.
SQLITE_WAL_AUTOCHECKPOINT_PAGES = 10_000
SQLITE_OPTIONS = {
    "timeout": SQLITE_BUSY_SECONDS,
    "transaction_mode": "IMMEDIATE",
    "init_command": (
        "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; "
        f"PRAGMA wal_autocheckpoint={SQLITE_WAL_AUTOCHECKPOINT_PAGES};"
    ),
}

# Seconds the channel layer's Redis client waits for a reply. channels_redis waits for
# messages with a blocking BZPOPMIN of 5 s; redis-py 8's default socket timeout is also 5 s,
# so an idle websocket's read timed out and the socket closed with 1011. Leave headroom.
REDIS_SOCKET_TIMEOUT = 15

# Celery's Redis connections (broker and results): seconds to wait for a reply or a
# connection, and how often an idle connection is checked before use. The worker's blocking
# read of the queue lasts 1 s, well under the reply timeout. The broker's visibility
# timeout stays kombu's hour: it must outlast the longest eta (a 30-minute round's end
# task), and a round does not wait for it (games.tasks).
CELERY_REDIS_SOCKET_TIMEOUT = 10.0
CELERY_REDIS_CONNECT_TIMEOUT = 3.0
CELERY_REDIS_HEALTH_CHECK_SECONDS = 10

# Redis connections one process's channel layer holds at most; more wait for a free one.
REDIS_MAX_CONNECTIONS = 50

# Channel layer sizing (see channel_layers).
CHANNEL_CAPACITY = 1000
CHANNEL_EXPIRY_SECONDS = 30


# The variables that choose the site's mode (embedded or production, public address,
# HTTPS): tools that start a site of their own (tests, benches) drop the caller's.
MODE_VARIABLES = frozenset(
    {
        "REDIS_URL",
        "BOGGLE_REDIS_PREFIX",
        "DATABASE_URL",
        "DJANGO_ALLOWED_HOSTS",
        "BOGGLE_PUBLIC_URL",
        "BOGGLE_LAN_HOST",
        "BOGGLE_HTTPS",
        "BOGGLE_PROXY_SSL_HEADER",
        "BOGGLE_TRUSTED_PROXIES",
        "BOGGLE_TRUSTED_PROXY_HOPS",
        "BOGGLE_HSTS_SECONDS",
        "BOGGLE_HSTS_INCLUDE_SUBDOMAINS",
        "BOGGLE_HSTS_PRELOAD",
    }
)


def get_str(env: Env, name: str, default: str = "") -> str:
    """Return the variable stripped of whitespace, or ``default`` when unset or blank."""
    value = env.get(name, "").strip()
    return value or default


def get_bool(env: Env, name: str, default: bool = False) -> bool:
    """Return True for 1/true/yes/on, False for 0/false/no/off (any case), else ``default``."""
    value = get_str(env, name).lower()
    if value in {"1", "true", "yes", "on"}:
        return True
    if value in {"0", "false", "no", "off"}:
        return False
    return default


def trusted_proxies(env: Env) -> list[str]:
    """BOGGLE_TRUSTED_PROXIES: the networks (comma-separated addresses or CIDRs, as uvicorn's
    ``--forwarded-allow-ips``) of the reverse proxies in front of Daphne. Only a request whose
    TCP peer is in one of them has its ``X-Forwarded-For`` and ``X-Forwarded-Proto`` read
    (``web.proxies``); default none: every client is the peer Daphne saw.

    The former ``BOGGLE_TRUSTED_PROXY_HOPS`` counted entries of ``X-Forwarded-For`` whoever
    sent it, so a client reaching Daphne directly chose its own address: a non-zero value is
    refused with the way to say the same thing safely."""
    hops = get_str(env, "BOGGLE_TRUSTED_PROXY_HOPS", "0")
    if hops != "0":
        raise ImproperlyConfigured(
            "BOGGLE_TRUSTED_PROXY_HOPS is no longer read: it trusted X-Forwarded-For from any "
            "client that reaches Daphne directly. Set BOGGLE_TRUSTED_PROXIES to the addresses "
            "of your reverse proxies instead (comma-separated CIDRs, e.g. 127.0.0.1/32 for a "
            "proxy on this machine) and unset BOGGLE_TRUSTED_PROXY_HOPS."
        )
    networks: list[str] = []
    for item in get_list(env, "BOGGLE_TRUSTED_PROXIES"):
        try:
            networks.append(str(ipaddress.ip_network(item, strict=False)))
        except ValueError:
            raise ImproperlyConfigured(
                "BOGGLE_TRUSTED_PROXIES is a comma-separated list of addresses or CIDRs "
                f"(such as 127.0.0.1/32,10.0.0.0/24), not {item!r}"
            ) from None
    return networks


def get_list(env: Env, name: str, default: list[str] | None = None) -> list[str]:
    """Split a comma-separated variable into its non-empty, stripped items."""
    items = [item.strip() for item in get_str(env, name).split(",") if item.strip()]
    return items or list(default or [])


def is_production(env: Env) -> bool:
    """True when any production service (PostgreSQL, Redis) is configured. A ``sqlite:``
    DATABASE_URL only moves the embedded default's database file."""
    url = get_str(env, "DATABASE_URL")
    return bool(get_str(env, "REDIS_URL")) or bool(url and not url.startswith("sqlite:"))


def debug_enabled(env: Env) -> bool:
    """DEBUG is on when asked for with DJANGO_DEBUG=1, or in development (no secret key)."""
    return get_bool(env, "DJANGO_DEBUG") or not get_str(env, "DJANGO_SECRET_KEY")


def log_format(env: Env) -> str:
    """BOGGLE_LOG_FORMAT: ``json`` (one JSON object per line, web.log_format) or ``text``
    (a line for people). Default: json in production, text in the embedded default."""
    value = get_str(env, "BOGGLE_LOG_FORMAT", "json" if is_production(env) else "text").lower()
    if value not in ("json", "text"):
        raise ImproperlyConfigured(f"BOGGLE_LOG_FORMAT is json or text, not {value!r}")
    return value


# A shorter BOGGLE_METRICS_TOKEN could be guessed.
MIN_METRICS_TOKEN_CHARS = 24


def metrics_token(env: Env) -> str:
    """BOGGLE_METRICS_TOKEN: the Bearer token that reads /metrics from elsewhere than this
    machine (web.metrics); empty when unset (loopback only)."""
    token = get_str(env, "BOGGLE_METRICS_TOKEN")
    if token and (len(token) < MIN_METRICS_TOKEN_CHARS or not token.isascii() or " " in token):
        raise ImproperlyConfigured(
            f"BOGGLE_METRICS_TOKEN must be at least {MIN_METRICS_TOKEN_CHARS} ASCII characters"
            " without spaces (python -c 'import secrets; print(secrets.token_urlsafe(32))')"
        )
    return token


def secret_key(env: Env) -> str:
    """Return DJANGO_SECRET_KEY, or the development key when that is safe.

    Raises ImproperlyConfigured in production (DATABASE_URL or REDIS_URL set) without
    DJANGO_DEBUG=1 when no key is given: a deployment must never sign with a public key.
    """
    key = get_str(env, "DJANGO_SECRET_KEY")
    if key:
        return key
    if is_production(env) and not get_bool(env, "DJANGO_DEBUG"):
        names = " or ".join(PRODUCTION_VARS)
        raise ImproperlyConfigured(f"DJANGO_SECRET_KEY must be set when {names} is set.")
    return DEV_SECRET_KEY


# What the default daily-board secret is derived from the secret key with (daily_secret).
DAILY_SECRET_PURPOSE = b"boggle_site.daily-board-secret"


def daily_secret(env: Env, django_secret_key: str, var_dir: Path) -> str:
    """BOGGLE_DAILY_SECRET: the key of the daily board's seed (solver.daily), so nobody can
    compute a date's board before that day. Unset: derived from the secret key (HMAC, so
    the key itself never leaves its role), which an install has of its own (bin/start
    writes var/secret_key; production requires DJANGO_SECRET_KEY). Under the public
    development key (a site started without bin/start) a random one is kept in
    ``var_dir/daily_secret`` instead. Set it to keep future boards unchanged when the
    secret key is rotated."""
    value = get_str(env, "BOGGLE_DAILY_SECRET")
    if value:
        return value
    if django_secret_key == DEV_SECRET_KEY:
        return _local_daily_secret(var_dir / "daily_secret")
    return hmac.new(django_secret_key.encode(), DAILY_SECRET_PURPOSE, hashlib.sha256).hexdigest()


def _local_daily_secret(path: Path) -> str:
    """The secret in ``path``, written first (readable by this user only) if absent. Safe
    when several processes start at once: the first link wins, the others read it."""
    if not path.exists():
        temporary = path.with_name(f".{path.name}.{os.getpid()}")
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as file:
            file.write(secrets.token_urlsafe(48))
        try:
            os.link(temporary, path)
        except FileExistsError:
            pass
        finally:
            temporary.unlink()
    return path.read_text().strip()


def serves_local_network(env: Env) -> bool:
    """True in the embedded default (no DJANGO_ALLOWED_HOSTS, no production service): the
    site answers any address of this machine and the local network's own names, so phones
    on the same Wi-Fi can play (``web.hosts`` refuses public names)."""
    return not get_str(env, "DJANGO_ALLOWED_HOSTS") and not is_production(env)


def allowed_hosts(env: Env) -> list[str]:
    """DJANGO_ALLOWED_HOSTS as a list. Unset: every Host in the embedded default (narrowed
    to local names by ``web.hosts.LocalNetworkHostMiddleware``), local names only
    in production."""
    if serves_local_network(env):
        return ["*"]
    return get_list(env, "DJANGO_ALLOWED_HOSTS", DEV_HOSTS)


def public_url(env: Env) -> str:
    """BOGGLE_PUBLIC_URL (``https://boggle.example.org``): the fixed base of join links and
    QR codes, without a trailing slash; empty when unset (links follow the request)."""
    value = get_str(env, "BOGGLE_PUBLIC_URL").rstrip("/")
    if value and not (
        value.startswith(("http://", "https://")) and "/" not in value.split("//", 1)[1]
    ):
        raise ImproperlyConfigured(
            "BOGGLE_PUBLIC_URL must be a scheme and host such as "
            f"https://boggle.example.org, not {value!r}"
        )
    return value


def https_enabled(env: Env) -> bool:
    """BOGGLE_HTTPS: browsers reach the site over HTTPS only (a TLS proxy in front), so
    cookies are secure and HSTS is sent. By default on when BOGGLE_PUBLIC_URL is https://,
    except in the embedded default, where phones on the Wi-Fi use plain http (a tunnel may
    give the public URL) and would never send a Secure session cookie back."""
    derived = public_url(env).startswith("https://") and not serves_local_network(env)
    return get_bool(env, "BOGGLE_HTTPS", derived)


def hsts_seconds(env: Env) -> int:
    """BOGGLE_HSTS_SECONDS (default a year) when HTTPS is on; 0 (no HSTS) otherwise."""
    if not https_enabled(env):
        return 0
    value = get_str(env, "BOGGLE_HSTS_SECONDS", str(DEFAULT_HSTS_SECONDS))
    if not value.isdigit():
        raise ImproperlyConfigured(
            f"BOGGLE_HSTS_SECONDS must be a whole number of seconds, not {value!r}"
        )
    return int(value)


def security_settings(env: Env) -> dict[str, Any]:
    """Django's HTTPS and browser-protection settings, by name.

    The embedded default (plain http on a LAN) gets none of the HTTPS ones. Behind a TLS
    proxy Django sees plain http unless it trusts the proxy's X-Forwarded-Proto
    (BOGGLE_PROXY_SSL_HEADER=1, only if the proxy always sets it): without that, redirecting
    to https would loop for ever and HSTS would never be sent, so both need it.
    """
    https = https_enabled(env)
    proxy_header = (
        ("HTTP_X_FORWARDED_PROTO", "https") if get_bool(env, "BOGGLE_PROXY_SSL_HEADER") else None
    )
    # The header is read only from a declared proxy (web.proxies drops it from
    # anyone else): without one, every request would look like plain http, and the
    # redirect to https would loop.
    if proxy_header is not None and not trusted_proxies(env):
        raise ImproperlyConfigured(
            "BOGGLE_PROXY_SSL_HEADER=1 needs BOGGLE_TRUSTED_PROXIES: the addresses of the "
            "proxies whose X-Forwarded-Proto is believed (e.g. 127.0.0.1/32)"
        )
    return {
        "SECURE_PROXY_SSL_HEADER": proxy_header,
        "SECURE_SSL_REDIRECT": https and proxy_header is not None,
        "SECURE_HSTS_SECONDS": hsts_seconds(env),
        "SECURE_HSTS_INCLUDE_SUBDOMAINS": get_bool(env, "BOGGLE_HSTS_INCLUDE_SUBDOMAINS", True),
        # Preloading commits the whole domain to HTTPS in browsers for months: opt in only.
        "SECURE_HSTS_PRELOAD": get_bool(env, "BOGGLE_HSTS_PRELOAD"),
        "SESSION_COOKIE_SECURE": https,
        "CSRF_COOKIE_SECURE": https,
        "SECURE_CONTENT_TYPE_NOSNIFF": True,
        "SECURE_REFERRER_POLICY": "same-origin",
        # Browsers honour it only on a trustworthy origin; on a LAN's plain http they log an
        # error for it on every page a phone opens.
        "SECURE_CROSS_ORIGIN_OPENER_POLICY": "same-origin" if https else None,
        "X_FRAME_OPTIONS": "DENY",
    }


def lan_host(env: Env) -> str:
    """BOGGLE_LAN_HOST: the address or name phones use for this machine (instead of the one
    detected), for join links when the host's browser is on 127.0.0.1 or localhost."""
    return get_str(env, "BOGGLE_LAN_HOST").lower()


def csrf_trusted_origins(env: Env) -> list[str]:
    """DJANGO_CSRF_TRUSTED_ORIGINS as a list of scheme://host origins."""
    return get_list(env, "DJANGO_CSRF_TRUSTED_ORIGINS")


def database_config(env: Env, base_dir: Path) -> dict[str, Any]:
    """The ``default`` database: DATABASE_URL if set, else SQLite at var/db.sqlite3.

    The caller must make sure ``base_dir / "var"`` exists before SQLite opens the file.
    """
    url = get_str(env, "DATABASE_URL")
    if url:
        # Health checks: a connection PostgreSQL dropped (a restart) is replaced, not used.
        config: dict[str, Any] = dict(dj_database_url.parse(url, conn_health_checks=True))
    else:
        config = {"ENGINE": "django.db.backends.sqlite3", "NAME": base_dir / "var" / "db.sqlite3"}
    if config["ENGINE"] == "django.db.backends.sqlite3":
        # Django's backend, with a process's write transactions queued (web.sqlite).
        config["ENGINE"] = SQLITE_ENGINE
        config["OPTIONS"] = {**SQLITE_OPTIONS, **config.get("OPTIONS", {})}
        # Kept open: the websocket thread pool's threads then skip reopening the file (and
        # its PRAGMAs) for every accepted word.
        config["CONN_MAX_AGE"] = SQLITE_CONN_MAX_AGE
        # Tests get a file too, not Django's shared in-memory database: that one locks whole
        # tables and ignores the busy timeout, unlike the real site's file with many threads.
        test_file = Path(tempfile.gettempdir()) / f"boggle-test-{os.getpid()}.sqlite3"
        config.setdefault("TEST", {"NAME": str(test_file)})
    elif config["ENGINE"] == "django.db.backends.postgresql":
        pool = {
            "min_size": 1,
            "max_size": pool_size(env),
            "timeout": POOL_TIMEOUT_SECONDS,
        }
        config["OPTIONS"] = {**config.get("OPTIONS", {}), "pool": pool}
    return config


def pool_size(env: Env) -> int:
    """DATABASE_POOL_SIZE: most PostgreSQL connections one process holds (default 10)."""
    value = get_str(env, "DATABASE_POOL_SIZE", str(DEFAULT_POOL_SIZE))
    if not value.isdigit() or int(value) < 1:
        raise ImproperlyConfigured(f"DATABASE_POOL_SIZE must be a positive integer, not {value!r}")
    return int(value)


def migrate_lock_timeout(env: Env) -> float:
    """BOGGLE_MIGRATE_LOCK_TIMEOUT: seconds a migration waits for a lock on PostgreSQL before
    it is rolled back and tried again (``web.migration_locks``; default 0.5, under
    PostgreSQL's 1 s deadlock_timeout; 0: wait without a bound, as Django does)."""
    value = get_str(env, "BOGGLE_MIGRATE_LOCK_TIMEOUT", str(DEFAULT_MIGRATE_LOCK_TIMEOUT))
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds <= MAX_MIGRATE_LOCK_TIMEOUT:
        raise ImproperlyConfigured(
            f"BOGGLE_MIGRATE_LOCK_TIMEOUT must be seconds from 0 to {MAX_MIGRATE_LOCK_TIMEOUT},"
            f" not {value!r}"
        )
    return seconds


def redis_key_prefix(env: Env) -> str:
    """BOGGLE_REDIS_PREFIX: put before every key the site keeps in Redis (the channel
    layer's, Celery's queues and results), so several sites, or a test run, can share one
    Redis database and tidy up their own keys only. Unset: the libraries' own names."""
    prefix = get_str(env, "BOGGLE_REDIS_PREFIX")
    if prefix and not all(char.isprintable() and not char.isspace() for char in prefix):
        raise ImproperlyConfigured("BOGGLE_REDIS_PREFIX must be printable, without spaces")
    return prefix


def channel_layers(env: Env) -> dict[str, Any]:
    """CHANNEL_LAYERS: Redis when REDIS_URL is set, else in-memory (one process only).

    Sized for a crowd: each socket's queue holds CHANNEL_CAPACITY messages (a room's events
    are coalesced to a few a second, so only a socket that stops reading fills it; then the
    oldest wait CHANNEL_EXPIRY_SECONDS at most before they are dropped)."""
    url = get_str(env, "REDIS_URL")
    sizing: dict[str, Any] = {"capacity": CHANNEL_CAPACITY, "expiry": CHANNEL_EXPIRY_SECONDS}
    if url:
        prefix = redis_key_prefix(env)
        return {
            "default": {
                "BACKEND": "web.channel_layer.PooledRedisChannelLayer",
                "CONFIG": {
                    "hosts": [
                        {
                            "address": url,
                            "socket_timeout": REDIS_SOCKET_TIMEOUT,
                            "max_connections": REDIS_MAX_CONNECTIONS,
                        }
                    ],
                    # channels_redis names its keys "<prefix>:group:…"; its default is "asgi".
                    **({"prefix": f"{prefix}asgi"} if prefix else {}),
                    **sizing,
                },
            }
        }
    return {"default": {"BACKEND": "web.memory_layer.EmbeddedChannelLayer", "CONFIG": sizing}}


def celery_config(env: Env) -> dict[str, Any]:
    """Celery options (lower-case Celery names) for broker, results and eagerness.

    Without REDIS_URL tasks run eagerly in the calling process, so development needs no
    broker or worker; with it they go through Redis to ``celery worker`` processes.
    """
    url = get_str(env, "REDIS_URL")
    if url:
        prefix = redis_key_prefix(env)
        # kombu and Celery's result store put this before each of their keys.
        keyprefix = {"global_keyprefix": prefix} if prefix else {}
        return {
            "broker_url": url,
            "result_backend": url,
            "task_always_eager": False,
            "task_eager_propagates": False,
            # A Redis restart must not stop a worker for good: it reconnects for ever, at
            # most RECONNECT_MAX_SECONDS apart (boggle_site.celery.Consumer).
            "broker_connection_retry": True,
            "broker_connection_max_retries": None,
            "broker_connection_timeout": CELERY_REDIS_CONNECT_TIMEOUT,
            "broker_transport_options": {
                # Without a socket timeout a publish to a Redis that vanished without
                # closing its connections (failover, a NAT or firewall dropping it) waits
                # for ever; the health checks find such connections in the worker.
                "socket_timeout": CELERY_REDIS_SOCKET_TIMEOUT,
                "socket_connect_timeout": CELERY_REDIS_CONNECT_TIMEOUT,
                "socket_keepalive": True,
                "retry_on_timeout": True,
                "health_check_interval": CELERY_REDIS_HEALTH_CHECK_SECONDS,
                **keyprefix,
            },
            "result_backend_transport_options": keyprefix,
            "redis_socket_timeout": CELERY_REDIS_SOCKET_TIMEOUT,
            "redis_socket_connect_timeout": CELERY_REDIS_CONNECT_TIMEOUT,
            "redis_retry_on_timeout": True,
            "redis_backend_health_check_interval": CELERY_REDIS_HEALTH_CHECK_SECONDS,
            # The tasks are short and idempotent: one running when the broker goes away
            # finishes (its acknowledgement is lost, so it may run again: harmless) rather
            # than being killed half-way.
            "worker_cancel_long_running_tasks_on_connection_loss": False,
        }
    return {
        "broker_url": "memory://",
        "result_backend": None,
        "task_always_eager": True,
        # Surface task errors at the call site, as a worker's log would in production.
        "task_eager_propagates": True,
    }


def dictionary_dir(env: Env, base_dir: Path) -> Path:
    """Where compiled dictionaries live: BOGGLE_DICTIONARY_DIR or var/dictionaries."""
    value = get_str(env, "BOGGLE_DICTIONARY_DIR")
    return Path(value) if value else base_dir / "var" / "dictionaries"


def dictionary_retention_days(env: Env) -> int:
    """BOGGLE_DICTIONARY_RETENTION_DAYS: how long a compiled version no round used and that
    is not current, or an uploaded list nothing refers to, is kept (default 30 days)."""
    value = get_str(env, "BOGGLE_DICTIONARY_RETENTION_DAYS", str(DEFAULT_DICTIONARY_RETENTION_DAYS))
    if not value.isdigit() or int(value) < 1:
        raise ImproperlyConfigured(
            f"BOGGLE_DICTIONARY_RETENTION_DAYS must be a whole number of days, 1 or more, not {value!r}"
        )
    return int(value)


def media_dir(env: Env, base_dir: Path) -> Path:
    """Where uploaded board photos live: BOGGLE_MEDIA_DIR or var/media. In production it
    must be shared by the web processes (which save) and the workers (which read)."""
    value = get_str(env, "BOGGLE_MEDIA_DIR")
    return Path(value) if value else base_dir / "var" / "media"


# Photos cannot fill the disk (photos.budget): megabytes of photos an address, and a room,
# may send within any hour, and the free space (MB) below which no photo is stored.
PHOTO_MEGABYTES = {
    "BOGGLE_PHOTO_MB_PER_ADDRESS_HOUR": 200,
    "BOGGLE_PHOTO_MB_PER_ROOM_HOUR": 300,
    "BOGGLE_PHOTO_MIN_FREE_MB": 1000,
}


def photo_megabytes(env: Env, name: str) -> int:
    """One of PHOTO_MEGABYTES, in bytes: a whole number of MB (0 turns the floor off)."""
    value = get_str(env, name, str(PHOTO_MEGABYTES[name]))
    if not value.isdigit():
        raise ImproperlyConfigured(f"{name} must be a whole number of megabytes, not {value!r}")
    return int(value) * 1_000_000
