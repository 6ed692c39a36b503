"""Hosted bots on one machine: how long a submission takes to play, what a sandboxed bot
costs per decision against the same bot connected remotely, its memory, and how many one
host holds.

Processes, all on loopback and all real: a private Redis, a referee (``pitch-arena
referee``), the web service (``pitch-arena web``, so a submission goes through the HTTP API
as an author's does), one bot host (``pitch-arena bot-host``, every version in its
bubblewrap sandbox with the default limits) and remote bots (``pitch-bot run heuristic``).
Matches are played with the referee's ``RunMatch`` admin call (no worker, no tournament):
what is timed is the hosting, not the scheduling.  Every match is a short ``partnership``
match (to 11 points).

1. *Submission to first match* (``--rounds`` rounds): an account (POST /api/v1/accounts)
   creates a bot (POST /api/v1/bots) and submits a package of the heuristic bot (POST
   /api/v1/bots/{name}/versions); the driver then watches Redis and the referee and times
   ``upload`` (the POST: read, inspect, store, record), ``claim`` (until a host holds the
   version's lease: at most one poll, ``--poll-s``), ``start`` (sandbox started and hello
   said: the referee lists the bot connected) and ``match`` (RunMatch with the version in
   seats 0 and 2 against two remote bots, until the referee has recorded it).  The version
   is stopped afterwards (DELETE), as an author would.
2. *Cost per decision*: the same heuristic bot hosted and as a remote ``pitch-bot run``
   process, each in seats 0 and 2 of the same seeded matches against the same two remote
   bots; rounds alternate which plays first.  Per phase: the referee's time per decision of
   the measured seats (``time_used_ms / decisions`` of the recorded result: request sent to
   answer read, so the hosted path includes the host's proxy), wall time per match, and
   CPU time per decision (hosted: the sandbox's processes plus the bot host process, which
   carries the proxy; remote: the bot process).  The ratios hosted/remote are taken within
   each round, since this shared machine's speed drifts.
3. *Memory*: the hosted bot's sandbox (cgroup ``memory.usage_in_bytes`` and its anonymous
   ``rss`` from ``memory.stat``; the PSS of its processes from ``/proc/<pid>/smaps_rollup``)
   against the remote process's PSS.
4. *Capacity* (``--counts``): K idle hosted versions (1, 4, 16, ...; submitted straight to
   Redis, as the API's submission rate limit would refuse so many in a minute): the time to
   start them, PSS and cgroup memory per bot, the host process's PSS per bot, idle CPU per
   bot over ``--seconds``; then K concurrent matches, match j seating bots j..j+3 (mod K), for
   ``--seconds``: decisions/s and where the CPU went (sandboxes, host, referee), whose sum
   against the machine's cores says what limits a host.

Run: ``.venv/bin/python bench/hosted_bots.py [--rounds 5] [--matches 4] [--counts 1,4,16]
[--seconds 5] [--json]``.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import random
import statistics
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cli.local_arena import LocalArena, Service, ServiceError
from competitions.referee_client import RefereeClient
from hosting.cgroups import SANDBOX_PREFIX
from hosting.identity import DEFAULT_UID_BASE, SLOTS, UID_BASE_VARIABLE
from hosting.limits import Limits
from hosting.runner import short_id
from pitch_sdk.packages.archive import pack
from store.artifacts import FileArtifacts
from store.hosted import HostedVersions
from store.redis_store import Store
from web.config import WebConfig

PREFIX = "bench-hosted:"
ADMIN = "bench-hosted-admin"
PRESET = "partnership"
OPTIONS = '{"target": 11}'
CAPACITY = 4
HEURISTIC = "from pitch_sdk.bots.heuristic import HeuristicBot as Bot\n"
MANIFEST = json.dumps({"bot": "bot.py:Bot"})
BIN = Path(sys.executable).parent
TICK = os.sysconf("SC_CLK_TCK")
UID_BASE = DEFAULT_UID_BASE + 90 * SLOTS
"""The bench host's sandbox uids: apart from those of hosts and test runs sharing the
machine (each sandbox's process rlimit counts every process of its uid)."""


# ------------------------------------------------------------------ /proc and cgroups
def cpu_seconds(pid: int) -> float:
    """User + system CPU a process has used so far (0 once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICK


def pss_mb(pid: int) -> float:
    """A process's proportional set size (shared pages split among their users), in MB."""
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def machine_busy() -> tuple[float, float]:
    """Seconds the machine's CPUs have been busy and in all, from ``/proc/stat``: their
    quotient over a window is the share of the machine used, by anyone."""
    fields = [int(f) for f in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]
    return (sum(fields) - idle) / TICK, sum(fields) / TICK


def cgroup_root(pid: int, controller: str = "memory") -> Path:
    """The ``controller`` cgroup folder of process ``pid`` (v1 when mounted, else v2): the
    bot host makes its sandboxes' groups beneath its own when it can."""
    for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        if controller in controllers.split(",") and Path(f"/sys/fs/cgroup/{controller}").is_dir():
            return Path(f"/sys/fs/cgroup/{controller}") / path.lstrip("/")
    for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines():
        if line.startswith("0::"):
            return Path("/sys/fs/cgroup") / line[3:].lstrip("/")
    raise RuntimeError(f"no {controller} cgroup for process {pid}")


@dataclass(frozen=True)
class SandboxGroup:
    """One hosted version's sandbox, seen from outside through its memory cgroup."""

    path: Path
    cpu_path: Path | None
    """Its cpu group (v1; ``None`` where the memory group holds every controller)."""

    @classmethod
    def find(cls, host_pid: int, bot_id: str, version: str) -> SandboxGroup:
        name = f"{SANDBOX_PREFIX}bot-{short_id(bot_id, version)}"
        for parent in (cgroup_root(host_pid), cgroup_root(os.getpid())):
            if (parent / name).is_dir():
                cpu = cgroup_root(host_pid, "cpu") / name
                return cls(parent / name, cpu if cpu.is_dir() and cpu != parent / name else None)
        raise RuntimeError(f"sandbox group {name} not found")

    def throttled(self) -> int:
        """Periods in which the sandbox used its whole CPU quota and was held back."""
        path = (self.cpu_path or self.path) / "cpu.stat"
        try:
            stat = dict(line.split() for line in path.read_text().splitlines())
        except OSError:
            return 0
        return int(stat.get("nr_throttled", "0"))

    def pids(self) -> list[int]:
        try:
            return [int(p) for p in (self.path / "cgroup.procs").read_text().split()]
        except OSError:
            return []

    def cpu(self) -> float:
        return sum(cpu_seconds(pid) for pid in self.pids())

    def pss_mb(self) -> float:
        return sum(pss_mb(pid) for pid in self.pids())

    def usage_mb(self) -> float:
        """Everything charged to the group (anonymous memory and the page cache it touched)."""
        for name in ("memory.usage_in_bytes", "memory.current"):
            if (self.path / name).exists():
                return int((self.path / name).read_text()) / 2**20
        return 0.0

    def anon_mb(self) -> float:
        """The group's anonymous memory: what the bot itself allocated."""
        stat = dict(line.split() for line in (self.path / "memory.stat").read_text().splitlines())
        return int(stat.get("total_rss", stat.get("rss", stat.get("anon", "0")))) / 2**20


def spread(values: list[float], digits: int = 2) -> dict[str, Any]:
    """Median and range of one figure over rounds."""
    return {"median": round(statistics.median(values), digits),
            "range": [round(min(values), digits), round(max(values), digits)], "n": len(values)}


def wait(condition: Callable[[], bool], timeout: float, what: str, services: Iterable[Service],
         step: float = 0.01) -> float:
    """Poll ``condition`` every ``step``; the ``time.perf_counter()`` at which it held."""
    deadline = time.monotonic() + timeout
    while not condition():
        for service in services:
            service.check()
        if time.monotonic() > deadline:
            raise ServiceError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(step)
    return time.perf_counter()


# ------------------------------------------------------------------ the arena
class Bench:
    """The arena's processes and the driver's clients."""

    def __init__(self, arena: LocalArena, work: Path, poll_s: float, slots: int) -> None:
        self.arena = arena
        self.work = work
        self.poll_s = poll_s
        redis_url = arena.start_redis()
        self.store = Store.from_url(redis_url, PREFIX)
        self.versions = HostedVersions(self.store)
        artifacts_dir = work / "artifacts"
        self.artifacts = FileArtifacts(artifacts_dir)
        common = {"PITCH_ARTIFACTS_DIR": str(artifacts_dir), "PITCH_DATA_DIR": str(work / "data")}
        self.referee = arena.start_referee(redis_url, PREFIX, ADMIN, common)
        self.client = RefereeClient(self.referee, ADMIN, match_timeout_s=120)
        web_env = WebConfig(redis_url=redis_url, store_prefix=PREFIX, referee=self.referee,
                            admin_token=ADMIN).to_env()
        self.web = arena.start_web({**web_env, **common})
        host_env = {**common, "REDIS_URL": redis_url, "PITCH_STORE_PREFIX": PREFIX, "PITCH_REFEREE": self.referee,
                    "PITCH_HOST_ID": "bench-host", "PITCH_HOST_DIR": str(work / "host"),
                    "PITCH_HOST_POLL_S": str(poll_s), "PITCH_HOST_LEASE_S": str(max(30.0, 4 * poll_s)),
                    # what is measured is the sandbox and the proxy: the compliance check (its
                    # practice matches, before a version's first) would be timed as its start
                    "PITCH_HOSTED_CHECK": "0",
                    UID_BASE_VARIABLE: os.environ.get(UID_BASE_VARIABLE, str(UID_BASE))}
        self.host = Service("bot-host", [str(BIN / "pitch-arena"), "bot-host", "--slots", str(slots),
                                         "--capacity", str(CAPACITY)], host_env, arena.log_dir)
        arena.services.append(self.host)
        self.remote: dict[str, Service] = {}
        folder = work / "package"
        folder.mkdir()
        (folder / "bot.py").write_text(HEURISTIC)
        (folder / "pitch-bot.json").write_text(MANIFEST)
        self.package = pack(folder)
        self.sha256 = self.artifacts.put(self.package)

    def start_remote(self, name: str, seed: int) -> str:
        """A remote ``pitch-bot run heuristic`` bot; its id."""
        registered = self.client.register(name, owner="bench")
        self.remote[registered.bot_id] = self.arena.start_bot(name, "heuristic", self.referee, registered.token, seed)
        return registered.bot_id

    def connected(self, bot_ids: Iterable[str]) -> bool:
        return set(bot_ids) <= set(self.client.connected_bots())

    def wait_connected(self, bot_ids: Iterable[str], timeout: float = 120) -> float:
        wanted = list(bot_ids)
        return wait(lambda: self.connected(wanted), timeout, "bots to connect", self.arena.services, step=0.05)

    def add_hosted(self, name: str) -> str:
        """A new bot with one hosted version of the heuristic package, straight into Redis."""
        bot_id = self.client.register(name, owner="bench").bot_id
        self.versions.add(bot_id, "v1", self.sha256, MANIFEST, "bench")
        return bot_id

    def play(self, seats: list[str], seed: int) -> tuple[Any, float]:
        """One match; its result and wall seconds."""
        started = time.perf_counter()
        result = self.client.play_match(PRESET, seats, seed=seed, options_json=OPTIONS)
        return result, time.perf_counter() - started

    def http(self, method: str, path: str, body: bytes | None = None, token: str = "",
             content_type: str = "application/json") -> dict[str, Any]:
        request = urllib.request.Request(self.web + path, data=body, method=method,
                                         headers={"Content-Type": content_type,
                                                  **({"Authorization": f"Bearer {token}"} if token else {})})
        with urllib.request.urlopen(request, timeout=60) as response:
            answer: dict[str, Any] = json.loads(response.read() or b"{}")
            return answer


# ------------------------------------------------------------------ 1. submission to first match
def submission_round(bench: Bench, token: str, number: int, opponents: list[str]) -> dict[str, float]:
    """One submission through the API, timed until its first recorded match.  It is sent at
    a random point of the host's poll cycle: the previous round ends on a poll (the one that
    stops its version), so submitting at once would always wait a whole poll."""
    name = f"hosted-{number}"
    bot_id = bench.http("POST", "/api/v1/bots", json.dumps({"name": name}).encode(), token)["bot_id"]
    time.sleep(random.Random(number).uniform(0, bench.poll_s))
    started = time.perf_counter()
    version = bench.http("POST", f"/api/v1/bots/{name}/versions", bench.package, token,
                         "application/gzip")["version"]
    uploaded = time.perf_counter()
    claimed = wait(lambda: bench.versions.holder(bot_id, version) is not None, 60, "the claim", bench.arena.services)
    connected = wait(lambda: bench.connected([bot_id]), 60, "the hosted bot's hello", bench.arena.services,
                     step=0.02)
    result, _ = bench.play([bot_id, opponents[0], bot_id, opponents[1]], seed=number)
    if not result.completed:
        raise RuntimeError(f"the first match of {name} did not complete")
    recorded = wait(lambda: bench.store.bot_match_count(bot_id) > 0, 30, "the recorded match", bench.arena.services)
    bench.http("DELETE", f"/api/v1/bots/{name}/versions/{version}", token=token)
    wait(lambda: not bench.connected([bot_id]), 30, "the stopped version to leave", bench.arena.services, step=0.05)
    return {"upload_s": uploaded - started, "claim_s": claimed - uploaded, "start_s": connected - claimed,
            "match_s": recorded - connected, "total_s": recorded - started}


def submissions(bench: Bench, rounds: int, opponents: list[str]) -> dict[str, Any]:
    account = bench.http("POST", "/api/v1/accounts", json.dumps({"name": "bench-author",
                                                                 "password": "a long bench password"}).encode())
    per_round = [submission_round(bench, account["token"], number, opponents) for number in range(rounds)]
    print(f"submission: {[round(r['total_s'], 2) for r in per_round]} s", file=sys.stderr)
    return {part: spread([r[part] for r in per_round]) for part in per_round[0]} | {"by_round": per_round}


# ------------------------------------------------------------------ 2. cost per decision
def phase(bench: Bench, subject: str, opponents: list[str], seeds: list[int],
          cpu: Callable[[], tuple[float, float]]) -> dict[str, float]:
    """The subject in seats 0 and 2 of the seeded matches: referee ms and CPU us per
    decision of its seats (the bot's processes, and the bot host's for a hosted bot), wall
    seconds per match."""
    decisions = used_ms = 0
    wall = 0.0
    cpu_before = cpu()
    for seed in seeds:
        result, seconds = bench.play([subject, opponents[0], subject, opponents[1]], seed)
        wall += seconds
        for seat in result.seats:
            if seat.bot_id == subject:
                decisions += seat.decisions
                used_ms += seat.time_used_ms
    bot_cpu, host_cpu = (after - before for after, before in zip(cpu(), cpu_before, strict=True))
    return {"referee_ms_per_decision": used_ms / decisions, "wall_s_per_match": wall / len(seeds),
            "cpu_us_per_decision": (bot_cpu + host_cpu) / decisions * 1e6,
            "bot_cpu_us_per_decision": bot_cpu / decisions * 1e6,
            "host_cpu_us_per_decision": host_cpu / decisions * 1e6,
            "decisions": decisions}


def per_decision(bench: Bench, rounds: int, matches: int, opponents: list[str]) -> dict[str, Any]:
    hosted = bench.add_hosted("hosted-heuristic")
    remote = bench.start_remote("remote-heuristic", seed=7)
    bench.wait_connected([hosted, remote])
    group = SandboxGroup.find(bench.host.process.pid, hosted, "v1")
    host_pid, remote_pid = bench.host.process.pid, bench.remote[remote].process.pid
    cpu: dict[str, Callable[[], tuple[float, float]]] = {"hosted": lambda: (group.cpu(), cpu_seconds(host_pid)),
                                                         "remote": lambda: (cpu_seconds(remote_pid), 0.0)}
    subjects = {"hosted": hosted, "remote": remote}
    bench.play([hosted, opponents[0], remote, opponents[1]], seed=999)  # warm both
    per_round: list[dict[str, dict[str, float]]] = []
    for number in range(rounds):
        seeds = [10_000 + 100 * number + i for i in range(matches)]
        order = ("hosted", "remote") if number % 2 == 0 else ("remote", "hosted")
        per_round.append({kind: phase(bench, subjects[kind], opponents, seeds, cpu[kind]) for kind in order})
        print(f"per decision, round {number + 1}: " + ", ".join(
            f"{kind} {r['referee_ms_per_decision']:.2f} ms {r['cpu_us_per_decision']:.0f} us"
            for kind, r in per_round[-1].items()), file=sys.stderr)
    figures = ("referee_ms_per_decision", "wall_s_per_match", "cpu_us_per_decision")
    report: dict[str, Any] = {kind: {f: spread([r[kind][f] for r in per_round], 3) for f in figures}
                              for kind in ("hosted", "remote")}
    for f in ("bot_cpu_us_per_decision", "host_cpu_us_per_decision"):
        report["hosted"][f] = spread([r["hosted"][f] for r in per_round], 3)
    report["decisions_per_phase"] = spread([r["hosted"]["decisions"] for r in per_round], 0)
    report["ratio_hosted_to_remote"] = {
        f: spread([r["hosted"][f] / r["remote"][f] for r in per_round]) | {
            "by_round": [round(r["hosted"][f] / r["remote"][f], 3) for r in per_round]} for f in figures}
    report["memory"] = {"hosted_sandbox_usage_mb": round(group.usage_mb(), 1),
                        "hosted_sandbox_anon_mb": round(group.anon_mb(), 1),
                        "hosted_sandbox_pss_mb": round(group.pss_mb(), 1),
                        "hosted_sandbox_processes": len(group.pids()),
                        "remote_process_pss_mb": round(pss_mb(remote_pid), 1)}
    bench.versions.stop(hosted, "v1")
    return report


# ------------------------------------------------------------------ 4. capacity
def load(bench: Bench, bots: list[str], seconds: float) -> tuple[int, float]:
    """K concurrent matches, match j seating bots j..j+3 (mod K), for ``seconds``: the
    decisions answered and the seconds the matches took."""
    count = len(bots)
    decisions = [0] * count
    deadline = time.perf_counter() + seconds

    def player(j: int) -> None:
        seats = [bots[(j + s) % count] for s in range(4)]
        seed = 50_000 + 1000 * j
        while time.perf_counter() < deadline:
            seed += 1
            result, _ = bench.play(seats, seed)
            decisions[j] += sum(seat.decisions for seat in result.seats)

    started = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(count) as pool:
        for future in [pool.submit(player, j) for j in range(count)]:
            future.result()
    return sum(decisions), time.perf_counter() - started


NAMES = ("bots", "host", "referee", "redis", "driver")
"""The CPU users of a load phase, as :func:`sample` reads them."""


def sample(groups: list[SandboxGroup], pids: list[int]) -> tuple[float, ...]:
    """CPU seconds so far of the sandboxes and of each of ``pids``, then the machine's busy
    and total CPU seconds."""
    return (sum(g.cpu() for g in groups), *(cpu_seconds(pid) for pid in pids), *machine_busy())


def capacity(bench: Bench, counts: list[int], seconds: float) -> list[dict[str, Any]]:
    host_pid, referee_pid = bench.host.process.pid, referee_process(bench).process.pid
    assert bench.arena.redis is not None
    redis_pid = bench.arena.redis.process.pid
    host_base = pss_mb(host_pid)
    bots: list[str] = []
    report = []
    for count in counts:
        started = time.perf_counter()
        new = [bench.add_hosted(f"idle-{len(bots) + i}") for i in range(count - len(bots))]
        bench.wait_connected(new, timeout=60 + 10 * len(new))
        start_s = time.perf_counter() - started
        bots += new
        groups = [SandboxGroup.find(host_pid, bot_id, "v1") for bot_id in bots]
        time.sleep(1.0)  # the last ones' imports settle
        cpu_before = sum(g.cpu() for g in groups), cpu_seconds(host_pid)
        time.sleep(seconds)
        idle_bots = (sum(g.cpu() for g in groups) - cpu_before[0]) / seconds / count
        idle_host = (cpu_seconds(host_pid) - cpu_before[1]) / seconds
        pss = [g.pss_mb() for g in groups]
        usage = [g.usage_mb() for g in groups]
        anon = [g.anon_mb() for g in groups]
        host_pss = pss_mb(host_pid)
        throttled = sum(g.throttled() for g in groups)
        pids = [host_pid, referee_pid, redis_pid, os.getpid()]
        before = sample(groups, pids)
        decisions, took = load(bench, bots, seconds)
        after = sample(groups, pids)
        throttled = sum(g.throttled() for g in groups) - throttled
        cores = {name: round((a - b) / took, 2) for name, a, b in zip(NAMES, after, before, strict=False)}
        busy = (after[-2] - before[-2]) / (after[-1] - before[-1])
        row = {"bots": count, "start_s": round(start_s, 2), "started_now": len(new),
               "pss_mb_per_bot": round(statistics.mean(pss), 1), "cgroup_usage_mb_per_bot": round(
                   statistics.mean(usage), 1), "cgroup_anon_mb_per_bot": round(statistics.mean(anon), 1),
               "host_pss_mb": round(host_pss, 1),
               "host_pss_mb_per_bot": round((host_pss - host_base) / count, 2),
               "idle_cpu_pct_per_bot": round(100 * idle_bots, 3), "idle_host_cpu_pct": round(100 * idle_host, 3),
               "matches_at_once": count, "decisions_per_s": round(decisions / took, 1),
               "cores_used": cores | {"total": round(sum(cores.values()), 2)},
               "machine_busy_cores": round(busy * (os.cpu_count() or 1), 2), "sandbox_throttled_periods": throttled}
        report.append(row)
        print(f"capacity {count}: {row}", file=sys.stderr)
    return report


def referee_process(bench: Bench) -> Service:
    return next(s for s in bench.arena.services if s.name == "referee")


# ------------------------------------------------------------------ report
def table(report: dict[str, Any]) -> str:
    """The report as text."""
    def rng(figure: dict[str, Any], unit: str = "", scale: float = 1.0) -> str:
        low, high = figure["range"]
        return f"{figure['median'] * scale:.2f}{unit} ({low * scale:.2f}-{high * scale:.2f})"

    lines = [f"hosted bots, {report['cores']} cores, load average {report['load_average']}, "
             f"sandbox limits {report['sandbox_limits']}", "",
             f"1. submission -> first recorded match ({report['submission']['total_s']['n']} rounds, "
             f"host poll {report['poll_s']} s), median (range):"]
    for part in ("upload_s", "claim_s", "start_s", "match_s", "total_s"):
        lines.append(f"   {part:<10} {rng(report['submission'][part], ' s')}")
    cost = report["per_decision"]
    lines += ["", f"2. per decision, hosted vs remote ({cost['hosted']['cpu_us_per_decision']['n']} rounds "
                  f"x {report['matches']} matches), median (range):",
              f"   {'':<24}{'hosted':>24}{'remote':>24}{'hosted/remote':>24}"]
    for figure in ("referee_ms_per_decision", "wall_s_per_match", "cpu_us_per_decision"):
        lines.append(f"   {figure:<24}{rng(cost['hosted'][figure]):>24}{rng(cost['remote'][figure]):>24}"
                     f"{rng(cost['ratio_hosted_to_remote'][figure], 'x'):>24}")
    lines.append(f"   hosted CPU us/decision: bot {rng(cost['hosted']['bot_cpu_us_per_decision'])}, "
                 f"bot host {rng(cost['hosted']['host_cpu_us_per_decision'])}")
    memory = cost["memory"]
    lines += ["", f"3. memory: sandbox cgroup {memory['hosted_sandbox_usage_mb']} MB (anonymous "
                  f"{memory['hosted_sandbox_anon_mb']} MB), PSS of its {memory['hosted_sandbox_processes']} "
                  f"processes {memory['hosted_sandbox_pss_mb']} MB; remote bot process PSS "
                  f"{memory['remote_process_pss_mb']} MB", "",
              "4. capacity of one host:",
              f"   {'bots':>5} {'start s':>8} {'PSS/bot':>8} {'cg/bot':>7} {'anon/bot':>8} {'host PSS':>9} "
              f"{'host/bot':>9} {'idle %/bot':>10} {'decisions/s':>12}  cores (bots, host, referee, redis, "
              "driver; machine busy), throttled"]
    for row in report["capacity"]:
        cores = row["cores_used"]
        lines.append(f"   {row['bots']:>5} {row['start_s']:>8} {row['pss_mb_per_bot']:>8} "
                     f"{row['cgroup_usage_mb_per_bot']:>7} {row['cgroup_anon_mb_per_bot']:>8} "
                     f"{row['host_pss_mb']:>9} {row['host_pss_mb_per_bot']:>9} {row['idle_cpu_pct_per_bot']:>10} "
                     f"{row['decisions_per_s']:>12}  {cores['bots']}, {cores['host']}, {cores['referee']}, "
                     f"{cores['redis']}, {cores['driver']}; {row['machine_busy_cores']}, "
                     f"{row['sandbox_throttled_periods']}")
    return "\n".join(lines)


def run(rounds: int, matches: int, counts: list[int], seconds: float, poll_s: float) -> dict[str, Any]:
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="bench-hosted-") as folder, LocalArena(Path(folder)) as arena:
        work = Path(folder)
        bench = Bench(arena, work, poll_s, slots=max(counts) + 2)
        opponents = [bench.start_remote(f"opponent-{i}", seed=i) for i in range(2)]
        bench.wait_connected(opponents)
        report: dict[str, Any] = {"submission": submissions(bench, rounds, opponents)}
        report["per_decision"] = per_decision(bench, rounds, matches, opponents)
        report["capacity"] = capacity(bench, counts, seconds)
    limits = Limits()
    return report | {
        "cores": os.cpu_count(), "load_average": [round(load_before, 1), round(os.getloadavg()[0], 1)],
        "poll_s": poll_s, "matches": matches, "seconds": seconds,
        "sandbox_limits": f"{limits.memory_mb} MB, {limits.cpu_cores} cores, {limits.pids} pids"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5, help="rounds of parts 1 and 2")
    parser.add_argument("--matches", type=int, default=4, help="matches per phase of part 2")
    parser.add_argument("--counts", default="1,4,16", help="idle hosted bots of part 4, growing")
    parser.add_argument("--seconds", type=float, default=5.0, help="idle window and load phase of part 4")
    parser.add_argument("--poll-s", type=float, default=2.0, help="the host's poll (its default: 2 s)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args()
    counts = sorted({int(c) for c in args.counts.split(",")})
    report = run(args.rounds, args.matches, counts, args.seconds, args.poll_s)
    print(json.dumps(report, indent=2) if args.json else table(report))


if __name__ == "__main__":
    main()
