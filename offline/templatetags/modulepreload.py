"""``{% modulepreload "js/room/main.js" %}``: a ``<link rel="modulepreload">`` in the page's
head for every ES module an entry loads, itself included, followed import by import
(``offline.shell.module_graph``, the walk the service worker's list uses). The browser then
asks for them all at once, instead of finding them one import level at a time as each
module arrives.

The addresses are ``static()``'s, as the pages' script tags have them: plain names in
development, the manifest's hashed names in production (whose imports name hashed files
too, ``web.storage``), so a hint and the import it stands for are one request.

Worked out once per process for each set of entries (reading the modules takes about
20 ms): a module added or removed while the development server runs shows in the hints
after a restart (until then an added one still loads through its imports, a removed one's
hint answers 404).

It lives beside the walk it reuses, in the offline app (web/ knows none of the site's apps).

A page's links and base.html's are written once each: a module already hinted earlier in
the same page is left out. ``BOGGLE_MODULEPRELOAD = False`` in the settings writes none
(bench/page_weight.py's "before" column).
"""

from __future__ import annotations

from functools import cache

from django import template
from django.conf import settings
from django.templatetags.static import static
from django.utils.html import format_html_join
from django.utils.safestring import SafeString

from offline.shell import module_graph

register = template.Library()

# Where a page's render keeps the addresses hinted so far (shared by a page and the
# templates it extends).
_HINTED = "offline.modulepreload.hinted"


@cache
def preload_urls(entries: tuple[str, ...]) -> tuple[str, ...]:
    """The addresses of every module ``entries`` load, entries included, sorted."""
    return tuple(static(path) for path in module_graph(entries))


@register.simple_tag(takes_context=True)
def modulepreload(context: template.Context, *entries: str) -> SafeString:
    if not getattr(settings, "BOGGLE_MODULEPRELOAD", True):
        return SafeString("")
    hinted: set[str] | None = context.render_context.get(_HINTED)
    if hinted is None:
        hinted = context.render_context[_HINTED] = set()
    urls = [url for url in preload_urls(entries) if url not in hinted]
    hinted.update(urls)
    return format_html_join("", '<link rel="modulepreload" href="{}">', ((url,) for url in urls))
