"""The bot host's settings: the environment, flags over it, and refusals that name the setting."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from cli.main import app
from hosting.config import HostConfig
from hosting.limits import Limits


def test_settings_come_from_the_environment_and_flags_override_it() -> None:
    config = HostConfig.from_env({"PITCH_HOST_SLOTS": "7", "PITCH_HOSTED_CAPACITY": "3", "PITCH_REFEREE": "r:1",
                                  "PITCH_SANDBOX_MEMORY_MB": "128", "PITCH_HOST_LEASE_S": ""}, slots=2)
    assert (config.slots, config.capacity, config.referee, config.lease_s) == (2, 3, "r:1", 30.0)
    assert config.limits == Limits(memory_mb=128)


@pytest.mark.parametrize(("env", "named"), [
    ({"PITCH_HOST_SLOTS": "0"}, "slots must be at least 1"),
    ({"PITCH_HOST_POLL_S": "-1"}, "poll_s must be positive"),
    ({"PITCH_HOST_LEASE_S": "3", "PITCH_HOST_POLL_S": "2"}, "lease_s (3) must be at least twice poll_s (2)"),
    ({"PITCH_REFEREE": "nowhere"}, "must be host:port"),
    ({"PITCH_HOSTED_CAPACITY": "many"}, "PITCH_HOSTED_CAPACITY='many' is not a valid int"),
])
def test_a_bad_setting_is_refused_naming_it(env: dict[str, str], named: str) -> None:
    with pytest.raises(ValueError) as refused:
        HostConfig.from_env(env)
    assert named in str(refused.value)


def test_the_command_refuses_a_bad_setting_with_exit_status_2() -> None:
    result = CliRunner().invoke(app, ["bot-host"], env={"PITCH_HOST_LEASE_S": "1"})
    assert result.exit_code == 2 and "lease_s (1) must be at least twice poll_s (2)" in result.output
