"""Solve a board outside any room, and referee a game played on paper (docs/api.md,
"Solve a board"): the Solve page and its API, thin adapters around ``solver``."""
