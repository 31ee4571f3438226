"""pytest hooks that hold a test run to loopback and its simulated Wi-Fis (netlab.guard).

tests/conftest.py takes them in. A test, or one of its fixtures, that tried to connect, send
a datagram or look a name up anywhere else fails, naming the destination, even where the
code under test swallowed the refusal.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from netlab import guard


def _fail_on_violations(when: str) -> None:
    found = guard.take_violations()
    if found:
        listed = "; ".join(str(violation) for violation in found)
        pytest.fail(
            f"network guard ({when}): {listed}. Tests reach only loopback and the simulated"
            " Wi-Fi's hosts (netlab).",
            pytrace=False,
        )


def pytest_configure(config: pytest.Config) -> None:
    guard.install()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    result = yield
    _fail_on_violations("set-up")
    return result


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    result = yield
    _fail_on_violations("the test")
    return result


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Iterator[None]:
    result = yield
    _fail_on_violations("tear-down")
    return result
