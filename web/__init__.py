"""The web arena: leaderboards, bots, tournaments, replays, live matches and a seat for a
person, served by Starlette from the arena's own Redis store and referee.

Layout, one concern per place:

- :mod:`web.config`: the service's settings (``PITCH_*`` variables, like every service);
- :mod:`web.app`: the application factory that wires the pages, templates and assets;
- :mod:`web.arena`: what every page reads: the store modules and an ArenaService client;
- :mod:`web.pages`: one module per group of pages (its routes and handlers);
- :mod:`web.views`: pure view builders (charts, tables, the replay's card table), no I/O;
- ``templates/`` (Jinja2, autoescaped) and ``static/`` (CSS and a little JavaScript).
"""
