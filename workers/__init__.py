"""The Celery workers and beat: the app they run and the tasks that play, finish and sweep
the arena's competitions (the competitions themselves live in :mod:`competitions`)."""
