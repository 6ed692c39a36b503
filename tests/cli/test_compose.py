"""compose.yaml, checked without Docker: it parses, every service's command is a real
command line of the CLI, and the environment wiring is consistent across services."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
import yaml
from typer.testing import CliRunner

from cli.main import app as pitch_arena
from competitions.config import ENVIRONMENT as WORKER_VARIABLES
from hosting.config import ENVIRONMENT as HOST_VARIABLES
from pitch_sdk.cli import app as pitch_bot
from referee.config import ENVIRONMENT as REFEREE_VARIABLES
from store.artifacts import ARTIFACTS_DIR_VARIABLE
from store.tls import ENVIRONMENT as TLS_VARIABLES
from web.config import ENVIRONMENT as WEB_VARIABLES

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = yaml.safe_load((ROOT / "compose.yaml").read_text())
SERVICES: dict[str, dict[str, Any]] = COMPOSE["services"]
PYTHON_SERVICES = {name: s for name, s in SERVICES.items() if s["command"][0] in ("pitch-arena", "pitch-bot")}
CLIS = {"pitch-arena": pitch_arena, "pitch-bot": pitch_bot}
#: Every variable the arena's processes read (a misspelt one would be silently ignored).
KNOWN = {*WORKER_VARIABLES.values(), *REFEREE_VARIABLES.values(), *WEB_VARIABLES.values(), *HOST_VARIABLES.values(),
         *TLS_VARIABLES.values(), ARTIFACTS_DIR_VARIABLE, "PITCH_BOT_TOKEN"}
TLS_OVERLAY: dict[str, dict[str, Any]] = yaml.safe_load((ROOT / "compose.tls.yaml").read_text())["services"]


def by_command(sub: str) -> list[dict[str, Any]]:
    """The services that run ``pitch-arena SUB`` / ``pitch-bot SUB``."""
    return [s for s in PYTHON_SERVICES.values() if s["command"][1] == sub]


def parse(command: list[str]) -> Any:
    """Parse a service's command line with the real CLI, as the process would, without
    running it (the click context): an unknown command, option or bad value raises."""
    group: Any = typer.main.get_command(CLIS[command[0]])
    parent = group.make_context(command[0], command[1:2])
    sub = group.get_command(parent, command[1])
    assert sub is not None, f"{command[0]} has no command {command[1]!r}"
    return sub.make_context(command[1], command[2:], parent=parent)


def test_compose_has_every_part_and_persistent_redis() -> None:
    """redis (append-only file on a volume), referee, a scalable worker, one beat, and the
    example bots; every Python service runs the image the root Dockerfile builds, and the
    Dockerfile installs both distributions."""
    assert {"redis", "referee", "worker", "beat", "web", "heuristic-bot", "random-bot"} <= set(SERVICES)
    redis_command = SERVICES["redis"]["command"]
    assert redis_command[redis_command.index("--appendonly") + 1] == "yes"
    assert any(volume.endswith(":/data") for volume in SERVICES["redis"]["volumes"])
    worker = SERVICES["worker"]
    assert "container_name" not in worker and worker["deploy"]["replicas"] >= 1, "workers must scale"
    assert "container_name" not in SERVICES["beat"] and SERVICES["beat"].get("deploy", {}).get("replicas", 1) == 1
    for service in PYTHON_SERVICES.values():
        assert service["build"] == "." and service["image"] == PYTHON_SERVICES["referee"]["image"]
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert re.search(r"pip install [^\n]*\./sdk \.", dockerfile)
    for package in ("sdk", "referee", "workers", "web", "hosting"):
        assert re.search(rf"^COPY {package} \./{package}$", dockerfile, re.MULTILINE), f"the image lacks {package}/"
    for service in SERVICES.values():
        depends = service.get("depends_on", {})
        assert set(depends) <= set(SERVICES), f"depends on an unknown service: {depends}"


@pytest.mark.parametrize("name", sorted(PYTHON_SERVICES))
def test_each_service_command_is_a_command_of_the_cli(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each command line parses with the real `pitch-arena` / `pitch-bot` app (commands,
    options and values; options read from the service's environment, with compose's
    ``${...}`` values filled in), and its `--help` works."""
    service = PYTHON_SERVICES[name]
    for variable, value in service.get("environment", {}).items():
        monkeypatch.setenv(variable, "from-env" if str(value).startswith("${") else str(value))
    command = service["command"]
    context = parse(command)
    assert context.command.name == command[1]
    result = CliRunner().invoke(CLIS[command[0]], [command[1], "--help"])
    assert result.exit_code == 0 and command[1] in result.stdout


def test_workers_have_a_liveness_check_on_their_heartbeat_file() -> None:
    """Each worker writes its heartbeat file (``PITCH_WORKER_ALIVE_FILE``) and its healthcheck
    is the `pitch-arena worker-alive` check of that file (tests/workers/test_worker_alive.py)."""
    for worker in by_command("worker"):
        assert worker["environment"]["PITCH_WORKER_ALIVE_FILE"]
        test = worker["healthcheck"]["test"]
        assert test[:3] == ["CMD", "pitch-arena", "worker-alive"]
        max_age = float(test[test.index("--max-age") + 1])
        assert max_age > 5 * 2, "the check must outlast a few heartbeats (every 5 s by default)"


def test_console_scripts_are_installed() -> None:
    """The commands compose runs exist as console scripts of the installed distributions."""
    for script in ("pitch-arena", "pitch-bot"):
        subprocess.run([str(Path(sys.executable).parent / script), "--help"], check=True, capture_output=True)


def test_environment_wiring_is_consistent() -> None:
    """Every variable is one the processes read; every service that touches the arena's
    data uses the same Redis (the redis service) and key prefix; the workers call the
    referee service on the port it listens on, with its admin token; beat and the workers
    agree on the automated round robins; each bot has the referee's address and a token."""
    env = {name: service.get("environment", {}) for name, service in PYTHON_SERVICES.items()}
    for name, variables in env.items():
        assert set(variables) <= KNOWN, f"{name}: unknown variables {set(variables) - KNOWN}"
    referee = parse(SERVICES["referee"]["command"]).params
    port = referee["address"].rsplit(":", 1)[1]
    assert any(published.startswith(f"{port}-") and published.endswith(f":{port}")
               for published in SERVICES["referee"]["ports"])
    web_port = parse(SERVICES["web"]["command"]).params["address"].rsplit(":", 1)[1]
    assert f"{web_port}:{web_port}" in SERVICES["web"]["ports"]
    stateful = [by_command("referee")[0], *by_command("worker"), *by_command("beat"), *by_command("web"),
                *by_command("bot-host")]
    for service in stateful:
        variables = service["environment"]
        assert re.fullmatch(r"redis://redis:6379/\d+", variables["REDIS_URL"])
        assert variables["REDIS_URL"] == env["referee"]["REDIS_URL"]
        assert variables["PITCH_STORE_PREFIX"] == env["referee"]["PITCH_STORE_PREFIX"]
    for worker in [*by_command("worker"), *by_command("web")]:
        assert worker["environment"]["PITCH_REFEREE"] == f"referee:{port}"
        assert worker["environment"]["PITCH_ADMIN_TOKEN"] == env["referee"]["PITCH_ADMIN_TOKEN"]
    for worker in by_command("worker"):
        for variable in ("PITCH_AUTO_PRESETS", "PITCH_AUTO_INTERVAL_S", "PITCH_AUTO_GAMES"):
            assert worker["environment"][variable] == SERVICES["beat"]["environment"][variable]
    assert "${PITCH_ADMIN_TOKEN" in env["referee"]["PITCH_ADMIN_TOKEN"], "the admin token comes from outside"
    bots = by_command("run")
    assert {bot["command"][2] for bot in bots} == {"heuristic", "random"}
    for bot in bots:
        assert bot["environment"]["PITCH_REFEREE"] == f"referee:{port}"
        assert bot["environment"]["PITCH_BOT_TOKEN"].startswith("${"), "tokens come from outside"
        assert "redis" not in bot.get("depends_on", []), "bots talk to the referee only"


def test_referees_scale_as_one_fleet_found_through_one_address() -> None:
    """``docker compose up --scale referee=N``: the referee has no container name nor fixed
    host port (its published port is a range, one per replica), listens on every interface
    so that it announces its container's hostname in the fleet directory (an explicit
    advertise address would be the same for every replica), shares the store with the
    workers (the directory is there), and every bot and worker dials the one service name."""
    referee = SERVICES["referee"]
    assert "container_name" not in referee and referee.get("deploy", {}).get("replicas", 1) >= 1
    start, _, rest = referee["ports"][0].partition("-")
    end, _, container_port = rest.partition(":")
    assert int(end) > int(start) and container_port == "50051"
    params = parse(referee["command"]).params
    assert params["address"] == "0.0.0.0:50051"
    assert "PITCH_REFEREE_ADVERTISE" not in referee["environment"]
    assert "REDIS_URL" in referee["environment"]
    for service in [*by_command("worker"), *by_command("web"), *by_command("run")]:
        assert service["environment"]["PITCH_REFEREE"] == "referee:50051"


def test_bot_hosts_scale_share_the_packages_and_hold_no_admin_token() -> None:
    """The bot host: scalable, playing through the referee service, reading the packages the
    web service stores (the same volume and path, read-only on the host), with the
    privileges bubblewrap needs in a container and no admin token (least privilege: it
    issues its bots' expiring tokens in Redis); the image installs bubblewrap."""
    host, web = SERVICES["bot-host"], SERVICES["web"]
    assert "container_name" not in host and parse(host["command"]).params["slots"] >= 1
    assert host["environment"]["PITCH_REFEREE"] == "referee:50051"
    assert "PITCH_ADMIN_TOKEN" not in host["environment"]
    path = web["environment"][ARTIFACTS_DIR_VARIABLE]
    assert host["environment"][ARTIFACTS_DIR_VARIABLE] == path
    volume = next(v for v in web["volumes"] if v.split(":")[1] == path).split(":")[0]
    assert f"{volume}:{path}:ro" in host["volumes"] and volume in COMPOSE["volumes"]
    assert "SYS_ADMIN" in host["cap_add"] and "seccomp=unconfined" in host["security_opt"]
    assert re.search(r"apt-get install[^\n]*bubblewrap", (ROOT / "Dockerfile").read_text())


def test_only_referees_hold_the_relay_token_and_it_is_not_the_admin_token() -> None:
    """The rule: each service holds only the credentials it needs.  A relay writes to bots
    and reads their answers, so its token (``PITCH_RELAY_TOKEN``) goes to the referees and
    to no other service; it comes from outside, apart from the admin token."""
    relay = REFEREE_VARIABLES["relay_token"]
    holders = {name for name, service in SERVICES.items() if relay in service.get("environment", {})}
    assert holders == {"referee"}
    variable = SERVICES["referee"]["environment"][relay]
    assert variable.startswith("${PITCH_RELAY_TOKEN") and "PITCH_ADMIN_TOKEN" not in variable
    assert not any(relay in service.get("environment", {}) for service in TLS_OVERLAY.values() if service
                   is not TLS_OVERLAY["referee"])


def test_the_tls_overlay_secures_every_grpc_connection_and_keeps_the_relay_identity_on_referees() -> None:
    """compose.tls.yaml: every service of compose.yaml that dials a referee trusts the
    arena's CA under the referee's certificate name; the referee serves its certificate and
    relays on a mutual-TLS port; the relay identity's certificate and every private key are
    mounted on the referee only; the CLI parses the referee's relay settings."""
    dialling = {name for name, service in PYTHON_SERVICES.items()
                if "PITCH_REFEREE" in service.get("environment", {}) or name == "worker"}
    assert dialling <= set(TLS_OVERLAY), dialling - set(TLS_OVERLAY)
    for name, service in TLS_OVERLAY.items():
        assert name in SERVICES and set(service["environment"]) <= KNOWN
        assert service["environment"]["PITCH_TLS_CA"] == "/run/pitch-tls/ca.pem"
        assert service["environment"]["PITCH_TLS_SERVER_NAME"] == "referee"
        keys = [volume for volume in service["volumes"] if "key" in volume or "referee.pem" in volume]
        assert (name == "referee") == bool(keys), (name, keys)
    referee = TLS_OVERLAY["referee"]["environment"]
    assert referee["PITCH_RELAY_ADDRESS"].endswith(":50061") and referee["PITCH_RELAY_CERT"].endswith("referee.pem")
    assert not any(port.endswith(":50061") for port in SERVICES["referee"]["ports"]), "relays stay inside"
    for bot in by_command("run"):  # pitch-bot run takes the CA from the environment
        params = parse([*bot["command"], "--referee", "referee:50051", "--token", "t", "--tls-ca", "ca.pem",
                        "--tls-server-name", "referee"]).params
        assert (params["tls_ca"], params["tls_server_name"]) == ("ca.pem", "referee")
