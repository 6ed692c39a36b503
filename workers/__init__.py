"""The Celery tournament workers (issue 4): schedules, match tasks, ratings, the Redis store."""
