"""Board recognition from photos (a later issue)."""
