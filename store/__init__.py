"""The shared store beneath every service: what the referee, the workers, the web arena and
the command line all read and write, and nothing else.

- :mod:`store.redis_store`: bots, token hashes, match results, logs and conduct in Redis
  (the one module that knows the store's key names);
- :mod:`store.versions`: each version of a bot rated apart;
- :mod:`store.fleet`: the directory of live referees and the bots connected to each;
- :mod:`store.seats`: the fleet-wide ledger of the seats each bot plays;
- :mod:`store.results`: a match result as the store keeps it (JSON) and as the protocol
  sends it;
- :mod:`store.settings`: settings dataclasses read from and written to the environment;
- :mod:`store.bearer`: the ``Authorization: Bearer`` credentials the referee and the web
  arena both read (one parser, the scheme in any case);
- :mod:`store.data_dir`, :mod:`store.redis_server`, :mod:`store.children`: where a
  standalone arena keeps its data, and the private Redis server it starts as an owned child.

It imports only the SDK, so every service stands on it without reaching into another.
"""
