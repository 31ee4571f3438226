"""Benchmarks and measurements of the site, each run as a script: ``python bench/NAME.py``."""
