"""The production stack on one machine, as operators run it (docs/operations.md).

``deploy/`` holds the files operators install: the nginx site, the systemd units and the
environment template. This package runs them: ``production.run`` is the one place each
process's command line is written (the units and the supervisor both call it),
``production.render`` fills in the nginx site and writes the supervisor's configuration, and
``python -m production start`` (``bin/start --production``) runs the whole stack here under
supervisord, behind nginx. ``production.serve`` runs one Daphne: it loads the site (Django)
when it runs; everything else here is plain Python that imports no Django.
"""
