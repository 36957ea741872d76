"""Shared service infrastructure: settings, logging, server bootstrap, database, Celery, auth."""
