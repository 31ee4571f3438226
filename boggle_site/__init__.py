"""The boggle_site Django project."""

# Load the Celery app with Django so that @shared_task binds to it.
from boggle_site.celery import app as celery_app

__all__ = ("celery_app",)
