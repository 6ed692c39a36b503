"""Hosted versions on a bot's page, for its owner only: each version's status (checking
and rejected among them), restarts, its compliance check's report, where its automatic SPRT
against the previous version stands (:mod:`competitions.version_tests.status`) and the last
kilobytes of its output, and a form that uploads a package as a new version.
Visitors who do not own the bot see none of it."""

from __future__ import annotations

from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from competitions.version_tests.status import version_status
from store.accounts import Account
from store.hosted import HostedError, HostedVersions
from store.rate_limits import RateLimited
from store.redis_store import BotRecord
from store.sessions import Session
from web.accounts.identity import accounts, check_csrf, session_account, session_of
from web.hosted.api import read_package, submit_version
from web.pages.common import arena, not_found
from web.templating import path_for

#: Output shown per version on the page (the API serves all that is kept).
SHOWN_LOG_BYTES = 4096
#: The newest versions whose output and test the page shows (every version is listed).
DETAILED_VERSIONS = 5


def signed_in_owner(request: Request, record: BotRecord) -> tuple[Session, Account] | None:
    """The signed-in browser's session and account when that account owns the bot, else
    ``None``: what decides who sees a bot's hosted versions, their reports and their output,
    on the bot's page and on each version's (:mod:`web.pages.versions`).

    Ownership is the account's own record of the bot (:meth:`Accounts.account_of`), never
    the bot's ``owner`` text: the operator may register a bot under any owner text, an
    account's name among them, and that must not hand the bot to the account."""
    signed_in = session_account(request)
    if signed_in is None or accounts(request).account_of(record.bot_id) != signed_in[1].key:
        return None
    return signed_in


def owner_panel(request: Request, record: BotRecord) -> dict[str, Any] | None:
    """What the bot's page shows its owner about hosted versions, or ``None`` for anyone else."""
    signed_in = signed_in_owner(request, record)
    if signed_in is None:
        return None
    session, _ = signed_in
    hosted = HostedVersions(arena(request).store)
    versions = hosted.versions_of(record.bot_id)
    newest = versions[-DETAILED_VERSIONS:]  # in the order submitted: an author works on the latest
    logs = {v.version: hosted.log(record.bot_id, v.version)[-SHOWN_LOG_BYTES:].decode("utf-8", "replace")
            for v in newest}
    loop = {v.version: version_status(arena(request).store, record.bot_id, v.version) for v in newest}
    return {"versions": versions, "logs": logs, "loop": loop, "detailed": DETAILED_VERSIONS, "csrf": session.csrf}


async def upload(request: Request) -> Response:
    """The bot page's upload form: a package as a new version of the owner's bot."""
    web = arena(request)
    record = web.store.bot(request.path_params["bot_id"][:64])
    signed_in = None if record is None else signed_in_owner(request, record)
    if record is None or signed_in is None:
        raise not_found("bot", request.path_params["bot_id"])
    form = await request.form(max_files=1, max_fields=5)
    csrf = form.get("csrf")
    check_csrf(request, session_of(request), csrf if isinstance(csrf, str) else "")
    version = form.get("version")
    data = await read_package(request)
    try:
        await run_in_threadpool(submit_version, request, signed_in[1], record, data,
                                version if isinstance(version, str) and version else None)
    except (HostedError, RateLimited) as refused:
        raise HTTPException(429 if isinstance(refused, RateLimited) else 400, str(refused)) from None
    return RedirectResponse(str(path_for(request, "bot", bot_id=record.bot_id)) + "#hosted", status_code=303)


routes = [Route("/bots/{bot_id}/versions", upload, name="upload_version", methods=["POST"])]
