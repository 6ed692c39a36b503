"""Celery: the app, the match and tournament tasks, and what the broker still holds."""
