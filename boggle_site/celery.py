"""The Celery app: ``celery -A boggle_site worker`` and ``celery -A boggle_site beat``.

Options come from Django settings named ``CELERY_*``; tasks from each app's ``tasks.py``.
"""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "boggle_site.settings")

app = Celery("boggle_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
