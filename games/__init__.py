"""Rooms, rounds and live play (models and consumers arrive with the rooms issue)."""
