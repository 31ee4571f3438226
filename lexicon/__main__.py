"""``python -m lexicon build [LANGUAGE ...] [--force]`` and ``python -m lexicon define``."""

import sys

from lexicon.cli import main

sys.exit(main())
