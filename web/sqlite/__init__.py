"""SQLite for the embedded default, with one writer at a time per process (see base.py)."""
