"""The author's loop in the JSON API.

``GET /api/v1/bots/{name}/status``: where a version of one of the account's bots stands
(:mod:`competitions.version_tests.status`), what ``pitch-bot status`` reads and polls;
``?version=`` names the version (default: the bot's newest).

``POST /api/v1/bots/{name}/pin`` with ``{"version": "v1"}`` (``null``: unpin): the version
the bot plays as whatever comes after it (``pitch-bot pin``): its current version on the
leaderboards, the one a seat naming the bot alone goes to, and, for a hosted bot, one its
host keeps running beside the newest.  Counted against the account's changes an hour.

Only the bot's owner may use either; another account's bot answers 404, as a missing one does."""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from competitions.version_tests.status import newest_version, version_status
from store.hosted import RESTING, VERSION, HostedVersions
from store.rate_limits import CHANGES_PER_ACCOUNT
from store.versions import BotVersions, VersionError
from web.accounts.api import json_errors, read_json
from web.accounts.identity import accounts, limiter, require_account
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


@json_errors
async def pin(request: Request) -> Response:
    """Pin a version of the account's bot as its current one, or unpin (``version`` null)."""
    account = require_account(request)
    record = accounts(request).owned_bot(account, request.path_params["name"])
    body = await read_json(request)
    version = body.get("version")
    if version is not None and (not isinstance(version, str) or not VERSION.fullmatch(version)):
        raise HTTPException(400, "bad version: 1-64 letters, digits and ._+- (starting with a letter or digit), "
                                 "or null to unpin")
    store = arena(request).store
    if version is not None:
        hosted = await run_in_threadpool(HostedVersions(store).get, record.bot_id, version)
        if hosted is not None and hosted.status in RESTING:
            raise HTTPException(409, f"version {version!r} is {hosted.status}: its host no longer runs it (submit "
                                     "it again as a new version to play it)")
    limiter(request).hit(CHANGES_PER_ACCOUNT, account.key)
    try:
        current = await run_in_threadpool(BotVersions(store).pin, record.bot_id, version)
    except VersionError as refused:
        raise HTTPException(404 if "no version" in str(refused) else 409, str(refused)) from None
    found = None if current is None else BotVersions(store).records([current]).get(current)
    return JSONResponse({"bot": record.name, "pinned": version, "current": found.version if found else None})


routes = [Route("/api/v1/bots/{name}/status", status, methods=["GET"]),
          Route("/api/v1/bots/{name}/pin", pin, methods=["POST"])]
