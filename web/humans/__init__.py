"""A seat for a person: the web service plays people's games against bots through the
referee like any bot client, so the referee needs no special case for people.

- :mod:`web.humans.identities`: the registered identities the web service connects as
  (the people's seat and the house bots), created once and kept across restarts;
- :mod:`web.humans.seat`: the people's seat (one stream for every person's seat) and the
  table of one person's game, as the browser sees it;
- :mod:`web.humans.house`: the house bots (the SDK's ``heuristic`` and ``random``) the web
  service runs itself, so a person can play without any third-party bot connected;
- :mod:`web.humans.games`: starting a person's game (``RunMatch``), the limit of games at
  once, and connecting the streams only while people play.

Redis keys this package owns (the store's own layout is in :mod:`store.redis_store`)::

    {p}web:identity:{role}   hash: bot_id, name, token of the web service's identity for
                             ``role`` (people, house-heuristic, house-random). The token is
                             kept in clear because the service must connect with it after a
                             restart; whoever can read the arena's Redis can already write
                             any bot's token hash, so this grants nothing new.
    {p}web:identity-lock     a short lock while the identities are registered, so two web
                             processes starting together register each role once

People's matches are recorded by the referee like every ``RunMatch`` (``{p}match:{id}``) but
never rated: ratings are applied only by the Celery match task of a tournament
(:func:`workers.tasks.record_ratings`), which never sees these matches.
"""
