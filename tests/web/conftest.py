"""Fixtures of the web tests: one real arena with a played tournament and its web service
per test process, a headless Chromium, and a page per test that fails on any script dialog
(an ``alert`` would mean a bot's name ran as code)."""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cli.local_arena import free_port
from store.redis_store import Store
from tests.web.harness import CHROMIUM, CHROMIUM_ARGS, WebArena, screenshot_dir, served, web_arena
from web.app import create_app
from web.arena import WebArena as AppArena
from web.config import WebConfig


@pytest.fixture()
def store(redis_url: str) -> Iterator[Store]:
    """A store under a fresh key prefix, for tests of the app without a whole arena; its keys
    are deleted afterwards."""
    store = Store.from_url(redis_url, f"web-test-{uuid.uuid4().hex[:8]}:")
    yield store
    for key in store.client.scan_iter(f"{store.prefix}*"):
        store.client.delete(key)


@pytest.fixture(scope="module")
def arena_url(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Store]]:
    """The web application over real HTTP (no referee behind it), with a store of its own and
    an artifact folder, for the ``pitch-bot`` commands that call the web's API: its URL and store."""
    os.environ["PITCH_ARTIFACTS_DIR"] = str(tmp_path_factory.mktemp("artifacts"))
    store = Store.from_url(redis_url, f"served-{uuid.uuid4().hex[:8]}:")
    config = WebConfig(redis_url=redis_url, store_prefix=store.prefix, referee=f"127.0.0.1:{free_port()}",
                       admin_token="served-admin")
    with served(create_app(config, AppArena(config, store))) as url:
        yield url, store
    for key in store.client.scan_iter(f"{store.prefix}*"):
        store.client.delete(key)
    del os.environ["PITCH_ARTIFACTS_DIR"]


@pytest.fixture(scope="session")
def arena(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebArena]:
    """The arena after a partnership round robin of four bot processes, with its web service."""
    with web_arena(redis_url, tmp_path_factory.mktemp("web-arena")) as running:
        yield running


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's Chromium, headless, driven by Playwright (no browser download).  One per test
    module: Playwright's synchronous API keeps an event loop running in this thread while it
    is open, so a test after it in the same process could not call ``asyncio.run``."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as driver:
        chromium = driver.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield chromium
        chromium.close()


@pytest.fixture()
def page(browser: Any) -> Iterator[Any]:
    """A fresh browser page; any script dialog (alert, confirm) fails the test."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    tab = context.new_page()
    dialogs: list[str] = []
    tab.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    refused: list[str] = []  # what the Content-Security-Policy blocked: a page that needs more than it allows
    tab.on("console", lambda message: refused.append(message.text)
           if message.type == "error" and "Content Security Policy" in message.text else None)
    yield tab
    context.close()
    assert not dialogs, f"a page opened a script dialog: {dialogs}"
    assert not errors, f"a page raised a JavaScript error: {errors}"
    assert not refused, f"the Content-Security-Policy blocked part of a page: {refused}"


@pytest.fixture(scope="session")
def screenshots() -> Path:
    """The folder the run's screenshots go to (printed at the end of the run)."""
    return screenshot_dir()


STARTED = time.time()


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Say where the screenshots are, when this run took any."""
    folder = screenshot_dir()
    shots = [shot for shot in folder.glob("*.png") if shot.stat().st_mtime >= STARTED]
    if shots:
        terminalreporter.write_line(f"web screenshots ({len(shots)}): {folder}")
