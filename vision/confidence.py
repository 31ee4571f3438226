"""How sure a reading must be: below ``DOUBTFUL_BELOW`` a die is *doubtful*, and the site
marks it "?" for the host to check against the real board. Kept apart from the reader so
that the web processes can use it without loading OpenCV or the models."""

from __future__ import annotations

# The reader's confidence is well calibrated at this point: on the held-out photos nearly
# every wrong die falls below it (bench/vision.py counts those that do not: silent errors).
DOUBTFUL_BELOW = 0.8
