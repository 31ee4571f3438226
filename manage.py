#!/usr/bin/env python
"""Django's command-line utility for administrative tasks."""

import os
import sys

# What the site creates (the SQLite database, compiled dictionaries, photos, logs) is
# private: the site's user and group only, never every account of the machine.
PRIVATE_UMASK = 0o027


def main() -> None:
    os.umask(PRIVATE_UMASK)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "boggle_site.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
