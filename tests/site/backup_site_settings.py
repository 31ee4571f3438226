"""The settings of a site in a directory of a test's own (tests/site/test_backup.py): the
site's settings with BASE_DIR moved, since backup and restore find var/ (its secret key
and daily secret, the default archive folder) under BASE_DIR."""

import os
from pathlib import Path

from boggle_site.settings import *  # noqa: F403

BASE_DIR = Path(os.environ["BOGGLE_TEST_SITE_DIR"])
