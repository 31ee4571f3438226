"""The site's web toolkit, on the ground floor under every app: what any Django app here
needs to talk to browsers and API clients safely, and nothing about Boggle.

It imports no app of the project and is imported by them and by the project's wiring
(``boggle_site``: settings, urls, asgi, celery). See docs/architecture.md.
"""
