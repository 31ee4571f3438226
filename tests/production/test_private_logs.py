"""The production stack's logs are private (issue 48, item 8): ``bin/start --production``
runs nginx, supervisord and every process with umask 027, so the logs of its run directory
(nginx's access and error logs, each Daphne's, the worker's, beat's, supervisord's) are
never readable by every account of the machine (they were 0644). The stack is
tests/production's, started for real with phones on a simulated Wi-Fi; a phone creates a
room through nginx, so that its access log has a line."""

from __future__ import annotations

import stat

import pytest

from netlab import SimulatedWifi
from tests.production.test_stack_on_the_wifi import Phone, ProductionStack, production

pytestmark = pytest.mark.integration

# The fixture is tests/production's (imported, so that pytest finds it here too).
__all__ = ["production"]


def test_the_stacks_logs_are_not_world_readable(
    production: ProductionStack, module_wifi: SimulatedWifi
) -> None:
    phone = Phone(module_wifi.add_host("private"), production, "Ann")
    created = phone.wait_for("player", phone.do("create", nickname="Ann"))
    assert created["status"] == 201, created
    logs = sorted((production.run_dir / "logs").glob("*.log"))
    names = {path.name for path in logs}
    assert {"nginx.log", "supervisord.log"} <= names, names
    readable = {
        path.name: oct(path.stat().st_mode & 0o777)
        for path in logs
        if path.stat().st_mode & stat.S_IRWXO and not path.name.startswith("phone-")
    }
    assert readable == {}
