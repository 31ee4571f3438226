"""The production stack's tests: a failed test's report carries the stack's logs (the run
directory's logs/: nginx, each Daphne, the worker, beat, supervisord, the phones)."""

from __future__ import annotations

from collections.abc import Generator

import pytest


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    stack = getattr(item, "funcargs", {}).get("production")
    if report.failed and stack is not None:
        report.sections.append(("production stack logs", stack.logs()))
    return report
