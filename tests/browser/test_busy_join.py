"""A classroom behind one address joins at once: the server answers some joins 429 with a
Retry-After, and the page waits that long and joins by itself (static/js/lib/api.js)."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import Route, expect

from tests.browser.helpers import OpenRoom

pytestmark = pytest.mark.browser


def test_a_join_answered_429_is_sent_again_after_retry_after(host_and_guest: OpenRoom) -> None:
    room = host_and_guest("Host", "Pat", join=False)
    host_page, phone_page, code = room.host, room.guest, room.code
    seen: list[str] = []

    def busy_once(route: Route) -> None:
        seen.append(route.request.method)
        if len(seen) == 1:  # as the server answers an address over its join limit
            route.fulfill(
                status=429,
                headers={"Retry-After": "1", "Content-Type": "application/json"},
                body=json.dumps(
                    {
                        "error": {
                            "code": "rate_limited",
                            "message": "too many joins from your address; try again in 1 s",
                        }
                    }
                ),
            )
        else:
            route.continue_()

    errors = room.guest_errors
    phone_page.route(f"**/api/rooms/{code}/join", busy_once)
    room.join()
    assert seen == ["POST", "POST"]
    expect(host_page.locator("#players")).to_contain_text("Pat")
    # The page's console reports the 429 resource load; nothing else went wrong.
    assert [error for error in errors if "429" not in error] == []
