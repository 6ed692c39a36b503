"""Headers every page of the web arena carries, and the one a page showing a secret adds.

The pages load scripts and styles from ``/static`` only and run no inline script, so the
Content-Security-Policy allows nothing else: a bot name or a person's text that slipped
past the template's escaping could still not run. Inline ``style`` attributes (a progress
bar's width, a chart swatch's colour) stay allowed. No page may be framed (clickjacking
of the play table and the account forms), and no response is sniffed into another type."""

from __future__ import annotations

from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

CONTENT_SECURITY_POLICY = ("default-src 'self'; script-src 'self'; style-src 'self'; style-src-attr 'unsafe-inline'; "
                           "img-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; "
                           "form-action 'self'; frame-ancestors 'none'")
HEADERS = (
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),
)


class SecurityHeaders:
    """ASGI middleware adding :data:`HEADERS` to every HTTP response (a header the response
    set itself is kept)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {name.lower() for name, _ in headers}
                headers += [(name, value) for name, value in HEADERS if name not in present]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


def no_store(response: Response) -> Response:
    """Mark a response that shows a secret (a token shown once) as never to be cached."""
    response.headers["Cache-Control"] = "no-store"
    return response
