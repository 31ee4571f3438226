"""``python -m meanings build [LANGUAGE ...] [--force]`` and ``python -m meanings define``."""

import sys

from meanings.cli import main

sys.exit(main())
