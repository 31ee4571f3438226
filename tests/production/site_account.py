"""The site's user for the tests that start ``bin/start --production`` as root: created, and
let through the folders above the checkout and this machine's Python, as the start's own
check asks an operator to (a container's Python may live in /root, 0700): its group may
pass through them, list nothing and read nothing more."""

from __future__ import annotations

import os
import stat

from production import site_user
from production.site_user import Account


def site_account() -> Account | None:
    """The user boggle, with its way open (as root); None for a start as another user."""
    if not site_user.as_root():
        return None
    account = site_user.ensure()
    for folder in site_user.closed_folders(account):
        os.chown(folder, -1, account.gid)
        folder.chmod(stat.S_IMODE(folder.stat().st_mode) | stat.S_IXGRP)
        print(f"{folder}: group {account.name}, g+x (the site's user passes through)")
    return account
