"""Serving the web arena with uvicorn (``pitch-arena web``, ``python -m web``)."""

from __future__ import annotations

import uvicorn

from web.app import create_app
from web.config import WebConfig


def serve(config: WebConfig, log_level: str = "info") -> None:
    """Serve until SIGINT/SIGTERM (uvicorn's graceful shutdown closes open streams)."""
    uvicorn.run(create_app(config), host=config.host, port=config.port, log_level=log_level,
                proxy_headers=False, server_header=False, timeout_graceful_shutdown=5)
