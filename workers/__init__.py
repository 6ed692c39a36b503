"""The arena's server side beside the referee, grouped by concern.

- :mod:`workers.storage`: the Redis store of bots, tokens, match results and logs;
- :mod:`workers.ratings`: the rating model (live Elo, Bradley–Terry) and the leaderboards;
- :mod:`workers.tournaments`: schedules, launching and finishing tournaments, their store;
- :mod:`workers.celery`: the Celery app and tasks that play scheduled matches;
- :mod:`workers.processes`: the arena as local processes (demo, tests), a private Redis;
- :mod:`workers.cli`: the ``pitch-arena`` command line and its terminal views;
- :mod:`workers.config`, :mod:`workers.settings`, :mod:`workers.referee_client`: shared by all.
"""
