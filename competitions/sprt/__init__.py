"""SPRT runs between two bots: duplicate pairs on Celery, fed to :mod:`competitions.ratings.sprt`."""
