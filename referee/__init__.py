"""The gRPC referee service: bot sessions, the match runner, the admin API, authentication,
the fleet membership and the relay between referees.

It runs matches with :mod:`pitch_sdk.rules`, the same engine the bots use, and reaches
Redis only through :mod:`store`.
"""
