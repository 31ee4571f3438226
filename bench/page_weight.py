"""The room page's weight: requests, bytes and time until it plays, on a slow connection,
with and without the ``<link rel="modulepreload">`` hints (offline/templatetags/modulepreload.py).

    python bench/page_weight.py [--runs 5] [--latency 100] [--down 10] [--up 5] [--debug] [--http2]

Two embedded sites on loopback (SQLite, tasks in the process) share one throwaway database
file and one secret key: "before" with ``BOGGLE_MODULEPRELOAD = False``, "after" with the
hints (the default). Both run as production's Daphnes do: ``production.serve``, DEBUG off,
the static files collected (``collectstatic`` into a temporary folder: hashed names,
imports rewritten, gzipped by WhiteNoise); ``--debug`` runs them with DEBUG on instead
(plain names from static/). The settings are boggle_site.settings with STATIC_ROOT and
BOGGLE_MODULEPRELOAD changed, in modules written to the temporary folder.

Daphne speaks HTTP/1.1, as does the nginx of deploy/nginx/ (its ``listen 443 ssl``, from
certbot, has no ``http2``): Chromium opens at most 6 connections to a host, so a page's
requests go 6 at a time whatever the hints. ``--http2`` puts an nginx (Debian's) in front of
each site on loopback, with TLS (a throwaway self-signed certificate, which the browser is
told to accept) and HTTP/2, where they all go at once on one connection.

A room is made once (``POST /api/rooms``); its host's session cookie opens the room page
in Debian's Chromium (Playwright) as a 360 x 640 phone, ``--runs`` times per site, the two
sites alternating (which goes first swaps each run). Each run is a new browser context, so
a cold cache; its service worker is blocked (it would fetch offline practice's files in the
background, outside the throttling). The connection is slowed with DevTools'
``Network.emulateNetworkConditions``: ``--latency`` ms added to each request, ``--down`` and
``--up`` Mbit/s. Per site it prints the median and the largest of:

- requests: what the page asked for over HTTP (the page, stylesheets, scripts' translations,
  modules; the websocket is not counted), until the network is idle after "ready";
- kB: the bytes those took on the wire (``encodedDataLength``: headers and gzipped bodies);
- DOMContentLoaded: after every module the page's scripts import has arrived and run
  (module scripts are deferred);
- ready: the room is on the screen (``#game`` shown) and its socket is open (the
  connection badge says ``open``): the player can play.

Times are ms from the start of the navigation (``performance.now()``), as the page counts
them. The load average is printed before and after. Nothing is left behind.
"""

from __future__ import annotations

import argparse
import os
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.browser.helpers import CHROMIUM_ARGS  # noqa: E402  (no calls home, loopback only)
from tests.servers import SiteServer  # noqa: E402

CHROMIUM = Path("/usr/bin/chromium")
SETTINGS = """from boggle_site.settings import *  # noqa: F403

STATIC_ROOT = {static_root!r}
BOGGLE_MODULEPRELOAD = {preload!r}
"""
# Runs in the page before its own scripts (Playwright's init scripts are not subject to the
# page's Content Security Policy): the first moment the room shows and its socket is open.
READY = """(() => {
  const check = () => {
    if (window.__ready) return;
    const badge = document.getElementById("connection");
    const game = document.getElementById("game");
    if (badge && game && badge.dataset.status === "open" && !game.hidden) {
      window.__ready = performance.now();
    }
  };
  new MutationObserver(check).observe(document, {
    subtree: true, childList: true, attributes: true, attributeFilter: ["data-status", "hidden"],
  });
})();"""
VARIANTS = ("before", "after")
NGINX = """worker_processes 1;
{user}pid {folder}/nginx.pid;
error_log {folder}/nginx-error.log warn;
daemon off;
events {{ worker_connections 256; }}
http {{
  access_log off;
  client_body_temp_path {folder}/nginx-body;
  proxy_temp_path {folder}/nginx-proxy;
  fastcgi_temp_path {folder}/nginx-fastcgi;
  uwsgi_temp_path {folder}/nginx-uwsgi;
  scgi_temp_path {folder}/nginx-scgi;
  map $http_upgrade $connection_upgrade {{ default upgrade; '' ''; }}
{servers}}}
"""
# As deploy/nginx/boggle.conf: HTTP/1.1 to the Daphne, connections kept alive.
NGINX_SERVER = """  upstream daphne_{variant} {{
    server 127.0.0.1:{daphne};
    keepalive 32;
  }}
  server {{
    listen 127.0.0.1:{port} ssl http2;
    ssl_certificate {folder}/cert.pem;
    ssl_certificate_key {folder}/key.pem;
    location / {{
      proxy_pass http://daphne_{variant};
      proxy_http_version 1.1;
      proxy_set_header Host $http_host;
      proxy_set_header Upgrade $http_upgrade;
      proxy_set_header Connection $connection_upgrade;
      proxy_read_timeout 1h;
    }}
  }}
"""


class ServedSite(SiteServer):
    """A site under production.serve, production's Daphne (listen backlog 1024, ready before
    it listens), instead of Daphne's own command (backlog 50: behind HTTP/2 a page's ~60
    requests at once overflowed it, and a dropped connection waited a second to be tried
    again)."""

    def server_command(self) -> list[str]:
        return [sys.executable, "-m", "production.serve", "-b", self.bind, "-p", str(self.port)]

    def start(self, timeout: float = 60.0) -> None:  # it warms up before it listens
        super().start(timeout)


def load_average() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def settings_module(folder: Path, name: str, static_root: Path, preload: bool) -> None:
    (folder / f"{name}.py").write_text(
        SETTINGS.format(static_root=str(static_root), preload=preload)
    )


def servers(folder: Path, debug: bool) -> dict[str, ServedSite]:
    """The two sites, "before" and "after", migrated (one database) and their static files
    collected; not started."""
    static_root = folder / "static"
    secret = "page-weight-bench-" + os.urandom(16).hex()
    made = {}
    for variant in VARIANTS:
        module = f"page_weight_{variant}"
        settings_module(folder, module, static_root, preload=variant == "after")
        made[variant] = ServedSite(
            folder,
            extra_env={
                "DJANGO_SETTINGS_MODULE": module,
                "PYTHONPATH": os.pathsep.join([str(folder), str(REPO)]),
                "DJANGO_DEBUG": "1" if debug else "0",
                "DJANGO_SECRET_KEY": secret,
                "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
                "DJANGO_LOG_LEVEL": "WARNING",
            },
        )
    first = made[VARIANTS[0]]
    first.migrate()
    if not debug:
        subprocess.run(
            [sys.executable, "manage.py", "collectstatic", "--noinput", "--verbosity", "0"],
            cwd=REPO,
            env=first.env(),
            check=True,
            timeout=300,
        )
    return made


def start_nginx(folder: Path, daphnes: dict[str, ServedSite]) -> tuple[subprocess.Popen, dict]:
    """nginx on loopback, TLS and HTTP/2, one port in front of each site; its process and
    each site's https:// address."""
    from web.network import free_port

    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
         "-keyout", str(folder / "key.pem"), "-out", str(folder / "cert.pem")],
        check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    ports = {variant: free_port() for variant in daphnes}
    servers = "".join(
        NGINX_SERVER.format(variant=variant, port=ports[variant], folder=folder, daphne=site.port)
        for variant, site in daphnes.items()
    )
    user = "user root;\n" if os.getuid() == 0 else ""  # workers that can read the folder
    (folder / "nginx.conf").write_text(NGINX.format(user=user, folder=folder, servers=servers))
    log = folder / "nginx-error.log"
    command = ["nginx", "-p", str(folder), "-e", str(log), "-c", str(folder / "nginx.conf")]
    process = subprocess.Popen(
        command,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    urls = {variant: f"https://127.0.0.1:{port}" for variant, port in ports.items()}
    deadline = time.monotonic() + 10
    while not all(_answers(url) for url in urls.values()):
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise RuntimeError(f"nginx did not start: {log.read_text() if log.exists() else ''}")
        time.sleep(0.1)
    return process, urls


def _answers(url: str) -> bool:
    """True when ``url`` answers (an https one's certificate is the bench's own, not checked)."""
    try:
        with urllib.request.urlopen(url + "/", timeout=2, context=ssl._create_unverified_context()):
            return True
    except OSError:
        return False


def make_room(browser, url: str) -> dict:
    """A room made by a browser: its host's cookies (Playwright's storage state)."""
    context = browser.new_context(ignore_https_errors=True)
    answer = context.request.post(f"{url}/api/rooms", data={"nickname": "Bench"})
    assert answer.status == 201, answer.text()
    code = answer.json()["room"]["code"]
    state = context.storage_state()
    context.close()
    return {"code": code, "state": state}


def measure(browser, url: str, room: dict, latency: float, down: float, up: float) -> dict:
    """One cold visit of the room page on the throttled connection."""
    context = browser.new_context(
        viewport={"width": 360, "height": 640},
        device_scale_factor=2,
        is_mobile=True,
        has_touch=True,
        service_workers="block",
        storage_state=room["state"],
        ignore_https_errors=True,
    )
    page = context.new_page()
    page.add_init_script(READY)
    cdp = context.new_cdp_session(page)
    sent: dict[str, str] = {}
    sizes: dict[str, float] = {}
    cdp.on(
        "Network.requestWillBeSent",
        lambda event: sent.setdefault(event["requestId"], event["request"]["url"]),
    )
    cdp.on(
        "Network.loadingFinished",
        lambda event: sizes.__setitem__(event["requestId"], event["encodedDataLength"]),
    )
    cdp.send("Network.enable")
    cdp.send(
        "Network.emulateNetworkConditions",
        {
            "offline": False,
            "latency": latency,
            "downloadThroughput": down * 1e6 / 8,
            "uploadThroughput": up * 1e6 / 8,
        },
    )
    page.goto(f"{url}/r/{room['code']}/", wait_until="domcontentloaded")
    page.wait_for_function("() => window.__ready", timeout=60_000)
    page.wait_for_load_state("networkidle", timeout=60_000)
    figures = page.evaluate(
        """() => ({
          ready: window.__ready,
          dcl: performance.getEntriesByType("navigation")[0].domContentLoadedEventStart,
          scripts: performance.getEntriesByType("resource").filter((e) => e.initiatorType === "script" || e.initiatorType === "link").length,
          hints: document.querySelectorAll('link[rel="modulepreload"]').length,
          protocol: performance.getEntriesByType("navigation")[0].nextHopProtocol,
        })"""
    )
    context.close()
    missing = [sent[key] for key in sent if key not in sizes]
    assert not missing, f"unfinished requests: {missing}"
    return {
        "requests": len(sent),
        "kB": sum(sizes.values()) / 1000,
        "dcl": figures["dcl"],
        "ready": figures["ready"],
        "hints": figures["hints"],
        "protocol": figures["protocol"],
    }


def spread(values: list[float], digits: int = 0) -> str:
    return f"{statistics.median(values):,.{digits}f} / {max(values):,.{digits}f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="cold visits per site")
    parser.add_argument("--latency", type=float, default=100, help="ms added to each request")
    parser.add_argument("--down", type=float, default=10, help="Mbit/s down")
    parser.add_argument("--up", type=float, default=5, help="Mbit/s up")
    parser.add_argument("--debug", action="store_true", help="DEBUG on: plain names from static/")
    parser.add_argument("--http2", action="store_true", help="nginx in front: TLS and HTTP/2")
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "boggle_site.settings")
    import django

    django.setup()
    from playwright.sync_api import sync_playwright

    from solver import dictionaries

    dictionaries.build("english")  # compiled once here, not by a site mid-request
    mode = "DEBUG on, plain names" if args.debug else "DEBUG off, collected hashed files"
    mode += ", nginx with TLS and HTTP/2 in front" if args.http2 else ", Daphne's HTTP/1.1"
    print(
        f"room page, 360 px phone, {args.latency:g} ms per request, {args.down:g}/{args.up:g} "
        f"Mbit/s, {args.runs} cold runs per site, {mode}; {time.strftime('%Y-%m-%d %H:%M')}, "
        f"load average {load_average()}"
    )
    results: dict[str, list[dict]] = {variant: [] for variant in VARIANTS}
    with tempfile.TemporaryDirectory(prefix="boggle-page-weight-") as temporary:
        sites = servers(Path(temporary), args.debug)
        started: list[ServedSite] = []
        nginx = None
        try:
            for site in sites.values():
                site.start()
                started.append(site)
            urls = {variant: site.url for variant, site in sites.items()}
            if args.http2:
                nginx, urls = start_nginx(Path(temporary), sites)
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path=str(CHROMIUM), args=CHROMIUM_ARGS
                )
                room = make_room(browser, urls["after"])
                for variant in VARIANTS:  # one visit each, not counted: the sites' first pages
                    measure(browser, urls[variant], room, 0, 1000, 1000)
                for run in range(args.runs):
                    order = VARIANTS if run % 2 == 0 else VARIANTS[::-1]
                    for variant in order:
                        result = measure(
                            browser, urls[variant], room, args.latency, args.down, args.up
                        )
                        results[variant].append(result)
                        print(
                            f"  run {run + 1} {variant:>6}: {result['requests']} requests, "
                            f"{result['kB']:.0f} kB, {result['hints']} hints, {result['protocol']}, "
                            f"DOMContentLoaded {result['dcl']:.0f} ms, ready {result['ready']:.0f} ms"
                        )
                browser.close()
        finally:
            if nginx is not None:
                nginx.terminate()
                nginx.wait(timeout=10)
            for site in started:
                site.stop()
    print("\nmedian / max of the runs")
    print("| room page | requests | kB | DOMContentLoaded (ms) | ready (ms) |")
    print("| --- | --- | --- | --- | --- |")
    for variant in VARIANTS:
        rows = results[variant]
        label = "before (no hints)" if variant == "before" else "after (modulepreload)"
        print(
            f"| {label} | {spread([r['requests'] for r in rows])} | {spread([r['kB'] for r in rows])} "
            f"| {spread([r['dcl'] for r in rows])} | {spread([r['ready'] for r in rows])} |"
        )
    print(f"\nload average {load_average()}")


if __name__ == "__main__":
    main()
