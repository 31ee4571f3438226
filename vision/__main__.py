"""``python -m vision``: see ``vision.cli``."""

import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

from vision.cli import main

sys.exit(main())
