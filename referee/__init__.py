"""The gRPC referee service (issue 3): bot sessions, match runner, admin API, auth.

It will run matches with :mod:`pitch_sdk.rules`, the same engine the bots use.
"""
