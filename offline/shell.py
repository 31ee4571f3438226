"""What the service worker keeps so that offline practice and the profile open with no
network: their pages, and every file those load (stylesheets, the ES modules followed
import by import, icons, the manifest) at the addresses the pages ask for: hashed names in
production (``web.storage`` rewrites the imports too), plain ones in development.

The word lists are not here: a browser keeps the one it plays with (static/js/offline/).
"""

from __future__ import annotations

import hashlib
import json
import posixpath
import re
from functools import cache

from django.conf import settings
from django.contrib.staticfiles import finders
from django.templatetags.static import static
from django.urls import reverse

# The pages, and the scripts' translations in the language the worker is installed in (a
# page asks for them with its language in the address: the worker answers from this copy
# when offline and it has no copy of that address).
PAGES = ("offline:page", "profiles:page", "javascript-catalog")
# The modules each kept page loads (base.html's and its own); their imports follow.
ENTRY_MODULES = (
    "js/offline/main.js",
    "js/profile/main.js",
    "js/language-menu.js",
    "js/keep-offline.js",
)
OTHER_FILES = (
    "css/site.css",
    "css/language.css",
    "css/offline.css",
    "css/profile.css",
    "manifest.webmanifest",
    "img/favicon.svg",
    "img/icon-192.png",
    "img/icon-512.png",
)
# `import … from "./x.js"`, `export … from "../y.js"`, `import "./z.js"`: relative only.
_IMPORT = re.compile(r"""(?:\bfrom|\bimport)\s*["'](\.{1,2}/[^"']+)["']""")


def module_graph(entries: tuple[str, ...] = ENTRY_MODULES) -> list[str]:
    """Every module ``entries`` load, themselves included, as static paths, sorted."""
    seen: set[str] = set()
    waiting = list(entries)
    while waiting:
        module = waiting.pop()
        if module in seen:
            continue
        seen.add(module)
        found = finders.find(module)
        if not found:
            raise FileNotFoundError(f"static/{module} is imported but missing")
        with open(found, encoding="utf-8") as source:
            for target in _IMPORT.findall(source.read()):
                waiting.append(
                    posixpath.normpath(posixpath.join(posixpath.dirname(module), target))
                )
    return sorted(seen)


def _urls() -> tuple[list[str], str]:
    files = [*module_graph(), *OTHER_FILES]
    urls = [reverse(name) for name in PAGES] + [static(path) for path in files]
    return urls, hashlib.sha256(json.dumps(urls).encode()).hexdigest()[:12]


_cached_urls = cache(_urls)


def shell() -> tuple[list[str], str]:
    """The addresses to keep, and a tag that changes whenever they do (a deploy with new
    files gives new hashed names). Worked out once per process, except in development,
    where the files change under a running server."""
    return _urls() if settings.DEBUG else _cached_urls()
