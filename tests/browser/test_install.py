"""The site installs as an app (a web app manifest with its icons, within the page's
Content Security Policy), and a round gives feedback beyond the screen: the screen kept
awake, tones and vibration for verdicts and the last seconds, and a remembered mute."""

from __future__ import annotations

import io
import json

import pytest
from PIL import Image
from playwright.sync_api import expect

from tests.browser.helpers import DESKTOP, PHONE, start_solo_round, type_word, watch_errors

pytestmark = pytest.mark.browser


def test_the_site_has_a_web_app_manifest(site, browser) -> None:
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    try:
        page = context.new_page()
        errors = watch_errors(page)
        page.goto(site.url + "/")
        href = page.locator('link[rel="manifest"]').get_attribute("href")
        assert href
        manifest_url = page.evaluate("href => new URL(href, location.href).href", href)
        response = page.request.get(manifest_url)
        assert response.ok
        assert "manifest+json" in response.headers["content-type"]
        manifest = json.loads(response.text())
        assert manifest["name"] and manifest["short_name"]
        assert manifest["start_url"] == "/"
        assert manifest["display"] == "standalone"
        theme = page.locator('meta[name="theme-color"]').first.get_attribute("content")
        assert manifest["theme_color"].lower() == theme.lower()
        sizes = set()
        for icon in manifest["icons"]:
            url = page.evaluate(
                "([src, base]) => new URL(src, base).href", [icon["src"], manifest_url]
            )
            image = page.request.get(url)
            assert image.ok, url
            assert image.headers["content-type"] == "image/png"
            width, height = Image.open(io.BytesIO(image.body())).size
            assert f"{width}x{height}" == icon["sizes"]
            sizes.add(icon["sizes"])
        assert {"192x192", "512x512"} <= sizes

        # Chromium's own reading of it: fetched under the page's CSP, parsed without errors.
        cdp = context.new_cdp_session(page)
        app = cdp.send("Page.getAppManifest")
        assert app["url"] == manifest_url
        assert app.get("errors", []) == [], app["errors"]
        assert json.loads(app["data"])["name"] == manifest["name"]
        # The room page links it too (it extends the same base template).
        start_solo_round(page, site.url, "Ann")
        assert page.locator('link[rel="manifest"]').count() == 1
        assert [e for e in errors if "Content Security Policy" in e] == []
        assert errors == []
    finally:
        context.close()


# Stand-ins for the Wake Lock API and vibration (which headless Chromium cannot show), and a
# spy on WebAudio: everything the page asks for goes into window.__log.
FAKE_DEVICE = """
window.__log = [];
Object.defineProperty(navigator, "wakeLock", {
  configurable: true,
  value: {
    request(type) {
      window.__log.push("lock:" + type);
      const lock = new EventTarget();
      lock.release = () => {
        window.__log.push("release");
        lock.dispatchEvent(new Event("release"));
        return Promise.resolve();
      };
      return Promise.resolve(lock);
    },
  },
});
Object.defineProperty(navigator, "vibrate", {
  configurable: true,
  value: (pattern) => { window.__log.push("vibrate:" + JSON.stringify(pattern)); return true; },
});
const createOscillator = AudioContext.prototype.createOscillator;
AudioContext.prototype.createOscillator = function () {
  window.__log.push("tone");
  return createOscillator.call(this);
};
"""

# Nothing of the kind: an old or locked-down browser.
NO_DEVICE = """
delete Navigator.prototype.wakeLock;
delete Navigator.prototype.vibrate;
delete window.AudioContext;
delete window.webkitAudioContext;
"""


def log(page) -> list[str]:
    return page.evaluate("window.__log")


def deadline_in(site, code: str, seconds: float) -> None:
    """Move the running round's deadline to ``seconds`` from now (the page learns it on
    its next full state, e.g. a reload)."""
    import sqlite3
    from datetime import UTC, datetime, timedelta

    when = (datetime.now(UTC) + timedelta(seconds=seconds)).strftime("%Y-%m-%d %H:%M:%S.%f")
    with sqlite3.connect(site.db_path, timeout=10) as db:
        changed = db.execute(
            "UPDATE games_round SET ends_at = ? WHERE status = 'running' AND room_id = "
            "(SELECT id FROM games_room WHERE code = ?)",
            (when, code),
        ).rowcount
    assert changed == 1


def test_a_round_keeps_the_screen_on_and_sounds(site, browser) -> None:
    """The screen is kept awake during the round and let go at its end; a verdict plays a
    tone and vibrates; so does each of the last ten seconds, and the end."""
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    context.add_init_script(FAKE_DEVICE)
    try:
        page = context.new_page()
        errors = watch_errors(page)
        code, _ = start_solo_round(page, site.url, "Ann")
        expect(page.locator("#sound-toggle")).to_be_visible()
        expect(page.locator("#sound-toggle")).to_have_attribute("aria-pressed", "false")
        entries = log(page)
        assert "lock:screen" in entries
        assert "vibrate:25" in entries  # the accepted word
        assert "tone" in entries

        deadline_in(site, code, 13)
        page.reload()
        expect(page.locator("#entry")).to_be_enabled()
        page.locator("#entry").press("a")  # a key: browsers start audio only after one
        page.wait_for_function("() => window.__log.includes('release')", timeout=30_000)
        expect(page.locator("#results-panel")).to_be_visible(timeout=15_000)
        entries = log(page)
        assert entries.count("lock:screen") >= 1
        assert entries.count("vibrate:15") >= 5, entries  # ticks from 10 s down to 4 s
        assert entries.count("vibrate:40") == 3, entries  # 3, 2, 1
        assert entries.count("vibrate:[200,80,200]") == 1, entries  # time's up
        assert entries.count("tone") >= 8, entries
        assert entries.index("release") > entries.index("vibrate:[200,80,200]")
        assert errors == []
    finally:
        context.close()


def test_mute_is_remembered(site, browser) -> None:
    context = browser.new_context(viewport=DESKTOP)
    context.add_init_script(FAKE_DEVICE)
    try:
        page = context.new_page()
        errors = watch_errors(page)
        start_solo_round(page, site.url, "Ann")
        toggle = page.locator("#sound-toggle")
        toggle.click()
        expect(toggle).to_have_attribute("aria-pressed", "true")
        assert page.evaluate("localStorage.getItem('boggle.muted')") == "true"
        page.evaluate("window.__log = []")
        type_word(page, "zzyzx")
        expect(page.locator('#my-words li.word.bad[data-word="zzyzx"]')).to_be_visible()
        page.wait_for_timeout(300)
        assert [e for e in log(page) if e == "tone" or e.startswith("vibrate")] == []

        page.reload()
        expect(page.locator("#sound-toggle")).to_have_attribute("aria-pressed", "true")
        page.locator("#sound-toggle").click()
        expect(page.locator("#sound-toggle")).to_have_attribute("aria-pressed", "false")
        assert page.evaluate("localStorage.getItem('boggle.muted')") == "false"
        assert errors == []
    finally:
        context.close()


def test_no_wake_lock_sound_or_vibration_is_no_error(site, browser) -> None:
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    context.add_init_script(NO_DEVICE)
    try:
        page = context.new_page()
        errors = watch_errors(page)
        code, _ = start_solo_round(page, site.url, "Ann")
        assert page.evaluate("'wakeLock' in navigator || 'AudioContext' in window") is False
        type_word(page, "zzyzx")
        expect(page.locator('#my-words li.word.bad[data-word="zzyzx"]')).to_be_visible()
        page.locator("#sound-toggle").click()
        site.end_round_now(code)
        expect(page.locator("#results-panel")).to_be_visible()
        assert errors == []
    finally:
        context.close()
