"""Django settings for boggle_site.

All deployment choices come from environment variables, parsed in ``boggle_site.env``;
see docs/operations.md, "Environment variables", for the list.
"""

import os
from pathlib import Path

from boggle_site import env

BASE_DIR = Path(__file__).resolve().parent.parent
ENV = os.environ

# SQLite, collected static files and compiled dictionaries live here; a fresh clone lacks it.
(BASE_DIR / "var").mkdir(exist_ok=True)

SECRET_KEY = env.secret_key(ENV)
# The daily board's seed key (solver.daily): future boards stay secret.
BOGGLE_DAILY_SECRET = env.daily_secret(ENV, SECRET_KEY, BASE_DIR / "var")
DEBUG = env.debug_enabled(ENV)
ALLOWED_HOSTS = env.allowed_hosts(ENV)
CSRF_TRUSTED_ORIGINS = env.csrf_trusted_origins(ENV)
# Embedded default: answer this machine's addresses and local names (web.hosts).
BOGGLE_SERVES_LOCAL_NETWORK = env.serves_local_network(ENV)
# Base of join links and QR codes; else the request's address, never a loopback one.
BOGGLE_PUBLIC_URL = env.public_url(ENV)
BOGGLE_LAN_HOST = env.lan_host(ENV)
# Per-address limits (web.throttle): the proxies whose X-Forwarded-* headers are read
# (web.proxies), and a switch.
BOGGLE_TRUSTED_PROXIES = env.trusted_proxies(ENV)
BOGGLE_RATE_LIMITS = env.get_bool(ENV, "BOGGLE_RATE_LIMITS", True)
# Where the per-address limits are counted once for all web processes (web.limits_redis):
# the production Redis; unset, each process counts its own.
BOGGLE_LIMITS_REDIS_URL = env.get_str(ENV, "REDIS_URL")
BOGGLE_REDIS_PREFIX = env.redis_key_prefix(ENV)
# The Bearer token that reads /metrics from elsewhere than loopback (web.metrics).
BOGGLE_METRICS_TOKEN = env.metrics_token(ENV)

# HTTPS (BOGGLE_PUBLIC_URL https://, BOGGLE_HTTPS, BOGGLE_PROXY_SSL_HEADER, BOGGLE_HSTS_*):
# SECURE_SSL_REDIRECT, HSTS, secure cookies, nosniff, frame and referrer policies.
_security = env.security_settings(ENV)
SECURE_PROXY_SSL_HEADER = _security["SECURE_PROXY_SSL_HEADER"]
SECURE_SSL_REDIRECT = _security["SECURE_SSL_REDIRECT"]
SECURE_HSTS_SECONDS = _security["SECURE_HSTS_SECONDS"]
SECURE_HSTS_INCLUDE_SUBDOMAINS = _security["SECURE_HSTS_INCLUDE_SUBDOMAINS"]
SECURE_HSTS_PRELOAD = _security["SECURE_HSTS_PRELOAD"]
SESSION_COOKIE_SECURE = _security["SESSION_COOKIE_SECURE"]
CSRF_COOKIE_SECURE = _security["CSRF_COOKIE_SECURE"]
SECURE_CONTENT_TYPE_NOSNIFF = _security["SECURE_CONTENT_TYPE_NOSNIFF"]
SECURE_REFERRER_POLICY = _security["SECURE_REFERRER_POLICY"]
SECURE_CROSS_ORIGIN_OPENER_POLICY = _security["SECURE_CROSS_ORIGIN_OPENER_POLICY"]
X_FRAME_OPTIONS = _security["X_FRAME_OPTIONS"]
# security.W021 (no HSTS preload) is a choice: preloading commits the domain to HTTPS in
# browsers for months; BOGGLE_HSTS_PRELOAD=1 opts in.
SILENCED_SYSTEM_CHECKS = ["security.W021"]

INSTALLED_APPS = [
    # First, so that `manage.py runserver` is Daphne's ASGI server (websockets included).
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "web",
    "dictionaries",
    "games",
    "photos",
    "daily",
    "definitions",
    "dicesets",
    "solve",
    "profiles",
    "quickplay",
    "offline",
]

MIDDLEWARE = [
    # Outermost: every response gets the policy, even a refused Host's 400.
    "web.csp.ContentSecurityPolicyMiddleware",
    # First: refuse public Host names in the embedded default before anything reads them.
    "web.hosts.LocalNetworkHostMiddleware",
    # Before SecurityMiddleware reads X-Forwarded-Proto: drops X-Forwarded-* headers that
    # did not come from a declared proxy.
    "web.proxies.ForwardedHeadersMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # Right after SecurityMiddleware, as WhiteNoise asks: Daphne then serves static files.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # After sessions, before CommonMiddleware: the interface language from the
    # django_language cookie (the page's switch) or else Accept-Language.
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Signed-in staff get the admin pass that lets their uploads past 16 KiB
    # (web.body_limit: anonymous admin bodies are refused before they are read).
    "web.body_limit.AdminPassMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "boggle_site.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

ASGI_APPLICATION = "boggle_site.asgi.application"

DATABASES = {"default": env.database_config(ENV, BASE_DIR)}
# `manage.py migrate` on PostgreSQL: a migration's longest wait for a lock before it is
# rolled back and tried again (web.migration_locks).
BOGGLE_MIGRATE_LOCK_TIMEOUT = env.migrate_lock_timeout(ENV)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

CHANNEL_LAYERS = env.channel_layers(ENV)

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# The interface languages (names as their speakers write them, for the page's switch).
# A room's dictionary language is a room setting and does not follow these.
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("nl", "Nederlands"), ("fr", "Français")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# Load the board reader's models when a process that reads photos starts (the embedded
# Daphne, Celery's worker processes) rather than on the first photo: TensorFlow takes some
# 6 s of CPU and 550 MB, better spent before the games start than during a round.
PHOTOS_PRELOAD_READER = env.get_bool(ENV, "BOGGLE_PRELOAD_READER", True)
# Warm round preparation up as a process that prepares rounds starts (games.warm_up): the
# first round after a start otherwise spends some 1.9 s loading word frequencies.
GAMES_WARM_UP_ROUNDS = env.get_bool(ENV, "BOGGLE_WARM_UP_ROUNDS", True)

# Uploaded board photos (photos app); not served publicly.
MEDIA_URL = "media/"
MEDIA_ROOT = env.media_dir(ENV, BASE_DIR)
# Private whatever the process's umask (Django's default is 0644): the site's user and its
# group (the operator's backups), never every account of the machine.
FILE_UPLOAD_PERMISSIONS = 0o640
FILE_UPLOAD_DIRECTORY_PERMISSIONS = 0o750
# Photos cannot fill the disk (photos.budget): bytes an address and a room may send an
# hour, and the free space on MEDIA_ROOT's disk below which uploads are refused.
BOGGLE_PHOTO_BYTES_PER_ADDRESS_HOUR = env.photo_megabytes(ENV, "BOGGLE_PHOTO_MB_PER_ADDRESS_HOUR")
BOGGLE_PHOTO_BYTES_PER_ROOM_HOUR = env.photo_megabytes(ENV, "BOGGLE_PHOTO_MB_PER_ROOM_HOUR")
BOGGLE_PHOTO_MIN_FREE_BYTES = env.photo_megabytes(ENV, "BOGGLE_PHOTO_MIN_FREE_MB")

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "var" / "static"
# WhiteNoise warns at startup when STATIC_ROOT is missing (before the first collectstatic).
STATIC_ROOT.mkdir(exist_ok=True)
# In development serve straight from static/ so no collectstatic is needed.
WHITENOISE_USE_FINDERS = DEBUG
# The web app manifest's own type (WhiteNoise's table lacks it: application/octet-stream).
WHITENOISE_MIMETYPES = {".webmanifest": "application/manifest+json"}
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # Hashed, compressed names need `collectstatic` first, so only outside development.
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "web.storage.HashedStaticFilesStorage"
    },
}

_celery = env.celery_config(ENV)
CELERY_BROKER_URL = _celery["broker_url"]
CELERY_RESULT_BACKEND = _celery["result_backend"]
CELERY_TASK_ALWAYS_EAGER = _celery["task_always_eager"]
CELERY_TASK_EAGER_PROPAGATES = _celery["task_eager_propagates"]
# Production's connection options (timeouts, reconnecting): see env.celery_config.
for _name, _value in _celery.items():
    globals().setdefault(f"CELERY_{_name.upper()}", _value)
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
if "broker_transport_options" in _celery:
    # A message a worker took and never acknowledged (the worker killed whole) goes back to
    # the queue after this long. It must exceed the longest a worker holds a message
    # unacknowledged on purpose: end_round waits for its eta, up to a 30-minute round
    # (games.models.MAX_ROUND_SECONDS), and kombu would hand it to a worker again at every
    # timeout, once more each time. So not near a photo's reading limit: photos.stuck fails
    # a reading whose worker died long before (docs/operations.md, "Photo reading").
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        **_celery["broker_transport_options"],
        "visibility_timeout": 40 * 60,
    }
# The worker's broker consumer, which reconnects within a second after Redis comes back.
CELERY_WORKER_CONSUMER = "boggle_site.celery:Consumer"
# The worker and beat log through LOGGING below (JSON lines in production), not Celery's own.
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
CELERY_TIMEZONE = TIME_ZONE
# Periodic safety nets for production (`celery -A boggle_site beat`): end rounds whose
# scheduled end task was lost with its worker, delete rooms idle for a day, and delete the
# files nothing uses any more (games.housekeeping.delete_unused_files). The web processes'
# deadline watchers run the hourly two as well (games.deadlines), which is all the
# embedded default has.
CELERY_BEAT_SCHEDULE = {
    "end-overdue-rounds": {"task": "games.tasks.end_overdue_rounds", "schedule": 1.0},
    "cleanup-idle-rooms": {"task": "games.tasks.cleanup_idle_rooms", "schedule": 3600.0},
    "delete-unused-files": {"task": "games.tasks.delete_unused_files", "schedule": 3600.0},
    # Readings whose worker died (photos.stuck.SWEEP_EVERY_SECONDS); one sweep waiting is
    # enough when no worker takes them.
    "fail-stuck-photo-readings": {
        "task": "photos.tasks.fail_stuck_photo_readings",
        "schedule": 10.0,
        "options": {"expires": 10.0},
    },
}

BOGGLE_DICTIONARY_DIR = env.dictionary_dir(ENV, BASE_DIR)
# Compiled versions that are not current and no round used, and uploaded lists nothing
# refers to, are deleted once this many days old (dictionaries.retention).
BOGGLE_DICTIONARY_RETENTION_DAYS = env.dictionary_retention_days(ENV)

_log_level = env.get_str(ENV, "DJANGO_LOG_LEVEL", "INFO")
# BOGGLE_LOG_FORMAT: JSON lines in production (web.log_format), each with the request id of
# the request or socket it was written for; a line for people in the embedded default.
_log_format = env.log_format(ENV)
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"request_id": {"()": "web.log_format.RequestIdFilter"}},
    "formatters": {
        "plain": {"format": "{asctime} {levelname} {name}: {message}", "style": "{"},
        "json": {"()": "web.log_format.JsonFormatter"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "json" if _log_format == "json" else "plain",
            "filters": ["request_id"],
        }
    },
    "root": {"handlers": ["console"], "level": _log_level},
    "loggers": {
        # Replaces Django's own console handler on "django", which would print every line twice.
        "django": {"handlers": ["console"], "level": _log_level, "propagate": False},
        # A line per request and socket event (web.request_log). The embedded default's
        # console keeps Daphne's own access lines and shows only these warnings (5xx).
        **(
            {"web.request_log": {"level": "WARNING"}}
            if _log_format == "text" and not env.is_production(ENV)
            else {}
        ),
    },
}
