"""Placeholder while the replays pages are built in this session."""

from __future__ import annotations

from starlette.routing import BaseRoute

routes: list[BaseRoute] = []
