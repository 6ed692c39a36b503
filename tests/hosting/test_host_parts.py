"""Parts of the bot host in process: its settings (the environment, flags over it, refusals
that name the setting), a host without Redis, what a silent bot's owner reads."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.main import app
from hosting.cache import PackageCache
from hosting.config import HostConfig
from hosting.host import STARTS_PER_POLL, BotHost, playing_versions
from hosting.limits import Limits
from hosting.proxy import MAX_SOCKET_PATH_BYTES, BotProxy, Upstream
from hosting.runner import SOCKET_NAME, RunnerContext, VersionRunner, short_id, socket_root
from store.artifacts import FileArtifacts
from store.hosted import HostedVersion, HostedVersions, Status
from store.redis_store import Store


def test_settings_come_from_the_environment_and_flags_override_it() -> None:
    config = HostConfig.from_env({"PITCH_HOST_SLOTS": "7", "PITCH_HOSTED_CAPACITY": "3", "PITCH_REFEREE": "r:1",
                                  "PITCH_SANDBOX_MEMORY_MB": "128", "PITCH_HOST_LEASE_S": ""}, slots=2)
    assert (config.slots, config.capacity, config.referee, config.lease_s) == (2, 3, "r:1", 30.0)
    assert config.limits == Limits(memory_mb=128)


@pytest.mark.parametrize(("value", "check"), [("", True), ("1", True), ("on", True), ("0", False),
                                              ("off", False), ("False", False)])
def test_the_compliance_check_is_on_unless_the_operator_switches_it_off(value: str, check: bool) -> None:
    assert HostConfig.from_env({"PITCH_HOSTED_CHECK": value}).check is check


@pytest.mark.parametrize(("env", "named"), [
    ({"PITCH_HOST_SLOTS": "0"}, "slots must be at least 1"),
    ({"PITCH_HOST_POLL_S": "-1"}, "poll_s must be positive"),
    ({"PITCH_HOST_LEASE_S": "3", "PITCH_HOST_POLL_S": "2"}, "lease_s (3) must be at least twice poll_s (2)"),
    ({"PITCH_REFEREE": "nowhere"}, "must be host:port"),
    ({"PITCH_HOSTED_CAPACITY": "many"}, "PITCH_HOSTED_CAPACITY='many' is not a valid int"),
    ({"PITCH_HOSTED_CHECK": "maybe"}, "PITCH_HOSTED_CHECK='maybe' is not a valid bool"),
    ({"PITCH_HOSTED_CHECK_S": "0"}, "check_timeout_s must be positive"),
])
def test_a_bad_setting_is_refused_naming_it(env: dict[str, str], named: str) -> None:
    with pytest.raises(ValueError) as refused:
        HostConfig.from_env(env)
    assert named in str(refused.value)


def test_the_command_refuses_a_bad_setting_with_exit_status_2() -> None:
    result = CliRunner().invoke(app, ["bot-host"], env={"PITCH_HOST_LEASE_S": "1"})
    assert result.exit_code == 2 and "lease_s (1) must be at least twice poll_s (2)" in result.output


def test_a_host_that_cannot_reach_redis_keeps_trying_and_stops_cleanly(tmp_path: Path,
                                                                        caplog: pytest.LogCaptureFixture) -> None:
    """A Redis outage is logged at every poll, never the end of the host (its bots would end
    with it); a stop during the outage still returns."""
    config = HostConfig(redis_url="redis://127.0.0.1:1/0", poll_s=0.05, lease_s=1, work_dir=str(tmp_path))
    host = BotHost(config, Store.from_url(config.redis_url), FileArtifacts(tmp_path / "artifacts"))

    async def run_briefly() -> None:
        stop = asyncio.Event()
        asyncio.get_running_loop().call_later(0.3, stop.set)
        await host.run(stop)

    with caplog.at_level(logging.WARNING, logger="pitch.hosting"):
        asyncio.run(run_briefly())
    outages = [record for record in caplog.records if "cannot reach Redis" in record.getMessage()]
    assert len(outages) >= 2 and "could not say it left" in caplog.text


def test_a_silent_bot_fails_saying_it_said_no_hello(redis_url: str, tmp_path: Path) -> None:
    """The supervisor's reason for a sandbox the hello watch stopped is "stopped by the host":
    the owner reads why instead, with the supervisor's count."""
    store = Store.from_url(redis_url, "test-silent:")
    versions = HostedVersions(store)
    bot, _ = store.register_bot("silent")
    version = versions.add(bot.bot_id, None, "0" * 64, '{"bot": "bot.py:Bot"}', "tester")
    config = HostConfig(hello_deadline_s=30)
    runner = VersionRunner(version, RunnerContext(config, versions, PackageCache(tmp_path, FileArtifacts(tmp_path)),
                                                  tmp_path))
    runner._no_hello = True  # as the hello watch leaves it when it stopped the sandbox
    asyncio.run(runner._on_status("restarting", "exited with status 1"))  # it ended by itself meanwhile
    assert versions.get(bot.bot_id, version.version).detail == "exited with status 1"  # type: ignore[union-attr]
    asyncio.run(runner._on_status("failing", "stopped by the host (5 times in 600 s)"))
    record = versions.get(bot.bot_id, version.version)
    said = "no hello within 30 s (5 times in 600 s)"
    assert record is not None and (record.status, record.detail) == ("failing", said)
    assert versions.log(bot.bot_id, version.version).endswith(f"--- failing: {said}\n".encode())


def test_a_work_directory_too_long_for_a_socket_still_gets_one(tmp_path: Path) -> None:
    """A Unix socket's path holds at most 107 bytes: a host whose work directory is deeper
    than that allows (as pytest's temporary folders are) put its sockets there, and every
    version it claimed failed to start, over and over."""
    deep = tmp_path / ("d" * 90)
    root = socket_root(deep)
    assert root == socket_root(deep) and root.stat().st_mode & 0o777 == 0o700
    socket_path = root / short_id("a bot", "v1") / SOCKET_NAME
    assert len(str(socket_path).encode()) <= MAX_SOCKET_PATH_BYTES
    assert socket_root(tmp_path) == tmp_path.resolve() / "s"  # a short one stays in the work directory

    async def serve_once() -> None:
        socket_path.parent.mkdir()
        proxy = BotProxy(socket_path, Upstream("127.0.0.1:1", "token", "v1", 1))
        await proxy.start()
        await proxy.stop()

    asyncio.run(serve_once())


def test_a_version_the_host_cannot_start_is_handed_back_saying_why(redis_url: str, tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A start that fails on the host's side (not the package's) leaves no version marked
    "starting" with no host: it is queued again, with the reason, for any host to take."""
    store = Store.from_url(redis_url, "test-unstartable:")
    versions = HostedVersions(store)
    bot, _ = store.register_bot("unstartable")
    version = versions.add(bot.bot_id, None, "0" * 64, '{"bot": "bot.py:Bot"}', "tester")

    async def fail(self: VersionRunner) -> bool:
        raise OSError("no space left on device")

    monkeypatch.setattr(VersionRunner, "start", fail)
    host = BotHost(HostConfig(work_dir=str(tmp_path)), store, FileArtifacts(tmp_path / "artifacts"))
    asyncio.run(host.poll())
    record = versions.get(bot.bot_id, version.version)
    assert record is not None and record.host is None
    assert (record.status, record.detail) == ("queued", "its bot host could not start it (OSError)")


def test_a_poll_starts_a_bounded_number_of_versions(redis_url: str, tmp_path: Path) -> None:
    """A host with room for many claims at most STARTS_PER_POLL versions a poll, so its
    next poll (which renews the leases it holds) is never far behind."""
    store = Store.from_url(redis_url, "test-bounded-starts:")
    versions = HostedVersions(store)
    for index in range(STARTS_PER_POLL + 5):
        bot, _ = store.register_bot(f"bounded-{index}")
        versions.add(bot.bot_id, None, "0" * 64, '{"bot": "bot.py:Bot"}', "tester")
    host = BotHost(HostConfig(work_dir=str(tmp_path), slots=64), store, FileArtifacts(tmp_path / "artifacts"))
    first = host._survey()
    assert len(first.start) == STARTS_PER_POLL
    assert len(host._survey().start) == 5  # the rest, the next poll (the first ones hold their leases)


def _version(bot_id: str, version: str, submitted: float) -> HostedVersion:
    return HostedVersion(bot_id, version, "0" * 64, "{}", "tester", submitted, Status.RUNNING, "", submitted, 0,
                         None)


def test_a_bots_previous_version_runs_until_the_newest_ones_test_is_over() -> None:
    """Each bot's newest version runs; the one before it too while the newest's automatic
    test is not over (it is the test's opponent), never an older one; with the test over
    (or the automatic SPRTs off: every version settled) the newest alone."""
    versions = [_version("a", "1", 1.0), _version("a", "2", 2.0), _version("a", "3", 3.0), _version("b", "1", 1.5)]
    playing, replaced = playing_versions(versions, lambda version: False)
    assert sorted((v.bot_id, v.version) for v in playing) == [("a", "2"), ("a", "3"), ("b", "1")]
    assert [(old.version, new.version) for old, new in replaced] == [("1", "3")]
    playing, replaced = playing_versions(versions, lambda version: True)
    assert sorted((v.bot_id, v.version) for v in playing) == [("a", "3"), ("b", "1")]
    assert sorted((old.version, new.version) for old, new in replaced) == [("1", "3"), ("2", "3")]
    assert HostConfig.from_env({"PITCH_AUTO_SPRT": "0"}).auto_sprt == 0


def test_a_pinned_version_keeps_running_beside_the_newest() -> None:
    """"the bot's current version is the newest one that was not rejected (or the one its
    owner pins)": the pinned version is not replaced by the newest."""
    versions = [_version("a", "1", 1.0), _version("a", "2", 2.0), _version("a", "3", 3.0)]
    playing, replaced = playing_versions(versions, lambda version: True, {"a": "1"})
    assert sorted(v.version for v in playing) == ["1", "3"]
    assert [(old.version, new.version) for old, new in replaced] == [("2", "3")]
