"""Submitting bot versions for the arena to host, and reading them back: what ``pitch-bot
submit``, ``versions``, ``logs`` and ``stop`` call, and the upload form of a bot's page.

A submission is a bot package (a gzip'd tar with ``pitch-bot.json``,
:mod:`pitch_sdk.packages.archive`), sent as the body (``application/gzip``) or as the
``package`` field of a form.  It is read with a bound on its size, inspected before anything
is stored (sizes, file count, paths, links, special files, the manifest), stored by its
sha256 in the artifact store, and recorded as a new version of the bot for the bot hosts
to run.  Only the bot's owner may submit, list, read logs or stop; another account's bot
answers 404, as a missing one does."""

from __future__ import annotations

import json
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from pitch_sdk.packages.archive import MAX_PACKED_BYTES, PackageError, inspect
from store.accounts import Account
from store.artifacts import FileArtifacts
from store.hosted import HostedError, HostedVersion, HostedVersions
from store.rate_limits import SUBMISSIONS_PER_ACCOUNT, SUBMISSIONS_PER_CLIENT
from store.redis_store import BotRecord
from web.accounts.api import json_errors
from web.accounts.identity import accounts, client_address, limiter, require_account
from web.pages.common import arena


async def read_package(request: Request) -> bytes:
    """The package in the request's body or its form's ``package`` field, at most
    :data:`MAX_PACKED_BYTES` (413 beyond, counted as it arrives: a client that lies about
    its length is cut off too)."""
    declared = request.headers.get("content-length", "")
    if declared.isdecimal() and int(declared) > MAX_PACKED_BYTES + 64 * 1024:
        raise HTTPException(413, f"a package is at most {MAX_PACKED_BYTES // 2**20} MiB")
    if request.headers.get("content-type", "").startswith("multipart/form-data"):
        if not declared.isdecimal():
            raise HTTPException(411, "an upload form needs a Content-Length")
        form = await request.form(max_files=1, max_fields=5)
        upload = form.get("package")
        if upload is None or isinstance(upload, str):
            raise HTTPException(400, "the form has no 'package' file")
        data = await upload.read(MAX_PACKED_BYTES + 1)
    else:
        body = bytearray()
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_PACKED_BYTES:
                break
        data = bytes(body)
    if len(data) > MAX_PACKED_BYTES:
        raise HTTPException(413, f"a package is at most {MAX_PACKED_BYTES // 2**20} MiB")
    if not data:
        raise HTTPException(400, "the request has no package (send the .tar.gz as the body)")
    return data


def version_json(version: HostedVersion) -> dict[str, Any]:
    """A hosted version as the API shows it."""
    manifest = json.loads(version.manifest_json)
    return {"version": version.version, "sha256": version.sha256, "status": str(version.status),
            "detail": version.detail, "submitted": version.submitted, "updated": version.updated,
            "host": version.host, "restarts": version.restarts,
            "language": "python" if "bot" in manifest else "command",
            "checked": version.checked, "report": version.report}


def _owned(request: Request) -> tuple[Account, BotRecord]:
    account = require_account(request)
    return account, accounts(request).owned_bot(account, request.path_params["name"])


def submit_version(request: Request, account: Account, record: BotRecord, data: bytes,
                   version: str | None) -> HostedVersion:
    """Check, store and record one package as a new version of ``record`` (runs in a
    worker thread: inspecting a package decompresses it)."""
    limiter(request).hit(SUBMISSIONS_PER_ACCOUNT, account.key)
    limiter(request).hit(SUBMISSIONS_PER_CLIENT, client_address(request))
    try:
        info = inspect(data)
    except PackageError as refused:
        raise HTTPException(400, f"the package was refused: {refused}") from None
    sha256 = FileArtifacts.from_env().put(data)
    return HostedVersions(arena(request).store).add(record.bot_id, version or None, sha256,
                                                    info.manifest.to_json(), account.name)


@json_errors
async def submit(request: Request) -> Response:
    """A new version of one of the account's bots, from a package."""
    account, record = _owned(request)
    version = request.query_params.get("version")
    data = await read_package(request)
    try:
        hosted = await run_in_threadpool(submit_version, request, account, record, data, version)
    except HostedError as refused:
        raise HTTPException(409 if "already" in str(refused) else 400, str(refused)) from None
    return JSONResponse(version_json(hosted), status_code=201)


@json_errors
async def versions(request: Request) -> Response:
    """The bot's hosted versions, newest first."""
    _, record = _owned(request)
    found = HostedVersions(arena(request).store).versions_of(record.bot_id)
    return JSONResponse({"versions": [version_json(v) for v in found]})


def _version(request: Request, record: BotRecord) -> HostedVersion:
    found = HostedVersions(arena(request).store).get(record.bot_id, request.path_params["version"][:64])
    if found is None:
        raise HTTPException(404, f"the bot has no hosted version {request.path_params['version'][:40]!r}")
    return found


@json_errors
async def log(request: Request) -> Response:
    """The last kilobytes of a version's standard output and error (the owner's only)."""
    _, record = _owned(request)
    version = _version(request, record)
    text = HostedVersions(arena(request).store).log(record.bot_id, version.version)
    return Response(text, media_type="text/plain; charset=utf-8",
                    headers={"X-Content-Type-Options": "nosniff", "Cache-Control": "no-store"})


@json_errors
async def stop(request: Request) -> Response:
    """Stop hosting a version (its bot host ends its sandbox)."""
    _, record = _owned(request)
    version = _version(request, record)
    HostedVersions(arena(request).store).stop(record.bot_id, version.version)
    return Response(status_code=204)


routes = [
    Route("/api/v1/bots/{name}/versions", submit, methods=["POST"]),
    Route("/api/v1/bots/{name}/versions", versions, methods=["GET"]),
    Route("/api/v1/bots/{name}/versions/{version}/log", log, methods=["GET"]),
    Route("/api/v1/bots/{name}/versions/{version}", stop, methods=["DELETE"]),
]
