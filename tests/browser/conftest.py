"""Fixtures for the browser tests: Debian's Chromium through Playwright, and a Daphne
server with its own SQLite database (tests/browser/helpers.py).

Without /usr/bin/chromium the tests skip, saying how to get it, except under CI=true,
where a missing browser fails the run (CI must not pass without them).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

from boggle_site.env import get_bool

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext

    from tests.browser.helpers import OpenRoom

CHROMIUM_HINT = "install Debian's chromium (apt-get install -y chromium; bin/test does it as root)"


@pytest.fixture(scope="session")
def chromium_path() -> str:
    from tests.browser.helpers import CHROMIUM

    if not CHROMIUM.exists():
        message = f"{CHROMIUM} is missing: {CHROMIUM_HINT}"
        if get_bool(os.environ, "CI"):
            pytest.fail(f"{message}. CI=true: the browser tests must run.")
        pytest.skip(message)
    return str(CHROMIUM)


@pytest.fixture(scope="module")
def browser(chromium_path: str) -> Iterator:
    """One Chromium per test module; each test opens its own contexts (players).

    Not per session: while Playwright's sync API is running, its event loop counts as
    running in this thread, which would break the asyncio tests collected after these.
    """
    from playwright.sync_api import expect, sync_playwright

    from tests.browser.helpers import CHROMIUM_ARGS

    expect.set_options(timeout=10_000)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def site(chromium_path: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator:
    """A Daphne server for the session, killed at the end whatever happens."""
    from solver import dictionaries
    from tests.browser.helpers import DaphneServer

    dictionaries.build("english")  # compiled once here, not by the server mid-round
    server = DaphneServer(tmp_path_factory.mktemp("site"))
    server.migrate()
    try:
        server.start()
        yield server
    finally:
        server.stop()


@pytest.fixture
def host_and_guest(site, browser) -> Iterator[OpenRoom]:
    """Opens a room of two (``helpers.OpenRoom``): the host creates it in their browser (a
    laptop unless ``host_device`` says otherwise), the guest joins from theirs (a phone
    unless ``guest_device``), both pages watched for errors. Every browser context it
    opens, ``RoomOfTwo.new_context``'s too, is closed after the test."""
    from tests.browser.helpers import (
        LAPTOP,
        TOUCH_PHONE,
        RoomOfTwo,
        create_room,
        watch_errors,
    )

    contexts: list[BrowserContext] = []

    def new_context(**options: Any) -> BrowserContext:
        context = browser.new_context(**options)
        contexts.append(context)
        return context

    def open_room(
        host: str = "Ann",
        guest: str = "Bob",
        *,
        host_device: dict[str, Any] = LAPTOP,
        guest_device: dict[str, Any] = TOUCH_PHONE,
        join: bool = True,
    ) -> RoomOfTwo:
        host_page = new_context(**host_device).new_page()
        guest_page = new_context(**guest_device).new_page()
        host_errors, guest_errors = watch_errors(host_page), watch_errors(guest_page)
        code = create_room(host_page, site.url, host)
        room = RoomOfTwo(
            host=host_page,
            guest=guest_page,
            guest_nickname=guest,
            code=code,
            link=f"{site.url}/r/{code}/",
            host_errors=host_errors,
            guest_errors=guest_errors,
            new_context=new_context,
        )
        if join:
            room.join()
        return room

    try:
        yield open_room
    finally:
        for context in contexts:
            context.close()
