"""``GET /api/v1/bots/{name}/status``: where a version of one of the account's bots stands
in the author's loop (:mod:`competitions.version_tests.status`), what ``pitch-bot status``
reads and polls.  ``?version=`` names the version (default: the bot's newest).  Only the
bot's owner may read it; another account's bot answers 404, as a missing one does."""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from competitions.version_tests.status import newest_version, version_status
from store.hosted import VERSION
from web.accounts.api import json_errors
from web.accounts.identity import accounts, require_account
from web.pages.common import arena


@json_errors
async def status(request: Request) -> Response:
    """The version's state, why, its hosted record and its test (``final`` once it is over)."""
    account = require_account(request)
    record = accounts(request).owned_bot(account, request.path_params["name"])
    store = arena(request).store
    asked = request.query_params.get("version", "")
    if asked and not VERSION.fullmatch(asked):
        raise HTTPException(400, "bad version: 1-64 letters, digits and ._+- (starting with a letter or digit)")
    version: str | None = asked or await run_in_threadpool(newest_version, store, record.bot_id)
    if version is None:
        raise HTTPException(404, "the bot has no version yet: submit one, or connect it")
    found = await run_in_threadpool(version_status, store, record.bot_id, version)
    if found is None:
        raise HTTPException(404, f"the bot has no version {version!r}")
    return JSONResponse(found.to_dict(), headers={"Cache-Control": "no-store"})


routes = [Route("/api/v1/bots/{name}/status", status, methods=["GET"])]
