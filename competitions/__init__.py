"""The arena's competitions: what it plays and how it ranks, shared by the Celery workers
that play the matches, the web arena that shows and launches them, and the command line.

- :mod:`competitions.tournaments`: round-robin schedules, launching, playing and finishing them;
- :mod:`competitions.sprt`: SPRT runs between two versions, in duplicate pairs;
- :mod:`competitions.ladder`: continuous matchmaking, one small tournament per round;
- :mod:`competitions.ratings`: the Elo and Bradley–Terry model and the live leaderboards;
- :mod:`competitions.config`: the settings every worker, beat and launcher must agree on;
- :mod:`competitions.queue`: the Celery app a launcher sends matches through (task names,
  broker settings, beat's schedule); :mod:`competitions.broker`: what the broker still holds;
- :mod:`competitions.referee_client`: placing and running a match on the referee fleet.

It stands on :mod:`store` and the SDK, and imports no service: the workers, the web and
the command line build on it.
"""
