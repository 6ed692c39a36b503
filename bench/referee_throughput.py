"""Referee throughput: decisions per second with trivial bots, against a bare gRPC echo.

Both servers run as separate processes on loopback and are driven from this process:

* ``referee`` - a real referee (private Redis) running N concurrent ``partnership`` matches
  between four trivial bots (hand-written on the generated stubs: every request is answered
  with legal action 0 at once), so the figure is the referee's own cost per decision; once
  with one message per write each way (as the echo), once with ``batching`` set in the
  bots' hello (the referee sends what is ready at once as one batch, and the bots answer
  a batch with one batch: what the SDK does);
* ``echo``    - a bare grpc.aio bidirectional stream that echoes bytes (on uvloop, like the
  referee, so both servers run the same event loop), with messages of the size of an
  average decision request (one decision = one round trip), N of them in flight over the
  streams the referee phases use: four, one per bot, each on its own channel, taking turns
  as the seats do (each echo passes the turn to the next stream, as a decision passes to
  the next seat).  A referee cannot spread N matches over more streams than there are
  bots, nor skip the hand-over from one bot's stream to the next; an echo that does both
  (N streams, one message in flight on each) pays less per message (more messages share a
  socket write, no turn passes between connections).  That layout, the comparison before
  2026-12-01, is measured in the same rounds and reported beside (``echo_per_match``).

Besides the rates, each phase reports the CPU time per decision (round trip) of the server
process and of this (client) process, read from ``/proc``: on a shared 2-core machine the
rates swing with whatever else runs, the CPU cost per decision much less.

Each concurrency runs ``--rounds`` rounds of the four phases (referee, batched referee,
echo, per-match echo) and reports medians; each ratio is taken within
its round, against the echo of the same round, since this machine's speed drifts from one
minute to the next.

Run: ``.venv/bin/python bench/referee_throughput.py [--concurrency 1 16] [--seconds 4] [--rounds 3]``.
Target: referee/echo >= 0.5 at the same concurrency (goal 0.7).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Callable, Coroutine
from pathlib import Path
from typing import IO, Any

import grpc
import uvloop

from cli.local_arena import free_port
from pitch_sdk.proto.pitch.v1 import arena_pb2, arena_pb2_grpc, bot_pb2, bot_pb2_grpc
from store.redis_server import RedisServer

ROOT = Path(__file__).resolve().parent.parent
ADMIN = "bench-admin"
ECHO_METHOD = "/bench.Echo/Echo"
BOTS = 4
"""Bots of the referee phases: four seats of ``partnership``, each bot one stream."""



# ----------------------------------------------------------------------------- echo server
async def serve_echo(port: int) -> None:
    """A bidirectional stream that sends every received message straight back."""

    async def echo(requests: AsyncIterator[bytes], context: grpc.aio.ServicerContext) -> AsyncIterator[bytes]:
        async for payload in requests:
            yield payload

    server = grpc.aio.server()
    handler = grpc.stream_stream_rpc_method_handler(echo)
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("bench.Echo", {"Echo": handler}),))
    server.add_insecure_port(f"127.0.0.1:{port}")
    await server.start()
    await server.wait_for_termination()


async def echo_rate(port: int, streams: int, in_flight: int, payload_size: int, seconds: float) -> tuple[int, float]:
    """Round trips over ``streams`` streams, each on its own channel (as each bot has one),
    with ``in_flight`` messages outstanding in all, and the seconds they took.

    Each echoed message passes the turn to the next stream, as a decision passes to the
    next seat's bot: at one match the streams take turns with a single message in flight,
    as the referee's four bots do."""
    payload = b"x" * payload_size
    channels = [grpc.aio.insecure_channel(f"127.0.0.1:{port}") for _ in range(streams)]
    turns: list[asyncio.Queue[bool]] = [asyncio.Queue() for _ in range(streams)]
    for turn in range(in_flight):
        turns[turn % streams].put_nowait(True)
    count = 0
    deadline = time.perf_counter() + seconds

    async def one_stream(index: int) -> None:
        nonlocal count
        call = channels[index].stream_stream(ECHO_METHOD)()
        while True:
            going_on = await turns[index].get()
            if going_on:
                await call.write(payload)
                await call.read()
                count += 1
                going_on = time.perf_counter() < deadline
            turns[(index + 1) % streams].put_nowait(going_on)  # the turn, or the stop, passes on
            if not going_on:
                break
        await call.done_writing()

    start = time.perf_counter()
    await asyncio.gather(*(one_stream(index) for index in range(streams)))
    elapsed = time.perf_counter() - start
    for channel in channels:
        await channel.close()
    return count, elapsed


def bot_layout(concurrency: int) -> tuple[int, int]:
    """(streams, messages in flight in all) of the referee phases: ``BOTS`` bots, one stream
    each, taking turns with the ``concurrency`` matches' pending decisions."""
    return BOTS, concurrency


# ----------------------------------------------------------------------------- referee
async def answer_first_legal(call: Any, ready: asyncio.Event,
                             note: Callable[[bot_pb2.DecisionRequest], None]) -> None:
    """Read a bot stream to its end, answering every decision request with legal action 0
    at once (a batch with one batch) after ``note`` has seen it; ``ready`` is set at the
    welcome.  The raw-stub bot of this bench and of ``fleet_throughput.py``."""

    def answer(request: bot_pb2.DecisionRequest) -> bot_pb2.BotMessage:
        note(request)
        return bot_pb2.BotMessage(decision=bot_pb2.Decision(
            match_id=request.match_id, decision_id=request.decision_id, legal_action_index=0))

    while (message := await call.read()) is not grpc.aio.EOF:
        kind = message.WhichOneof("message")
        if kind == "welcome":
            ready.set()
        elif kind == "decision_request":
            await call.write(answer(message.decision_request))
        elif kind == "batch":
            answers = [answer(m.decision_request) for m in message.batch.messages if m.HasField("decision_request")]
            if answers:
                await call.write(bot_pb2.BotMessage(batch=bot_pb2.BotMessages(messages=answers)))


async def trivial_bot(address: str, token: str, ready: asyncio.Event, sizes: list[int],
                      stop: asyncio.Event, batching: bool) -> None:
    """A bot on the raw stubs that answers every request with legal action 0 at once.

    It drives its stream the way the echo client does (``write`` / ``read`` on the call,
    no request generator), so the two sides of the comparison pay the same client-side
    gRPC cost and the difference is the referee's.  With ``batching`` it takes the
    referee's batches and answers each with one batch."""
    async with grpc.aio.insecure_channel(address) as channel:
        metadata = (("authorization", f"Bearer {token}"),)
        call = bot_pb2_grpc.BotServiceStub(channel).Connect(metadata=metadata)
        await call.write(bot_pb2.BotMessage(hello=bot_pb2.Hello(
            bot_name="trivial", protocol_versions=["pitch.v1"], capacity=64, batching=batching)))
        stop_task = asyncio.create_task(stop.wait())
        stop_task.add_done_callback(lambda _: call.cancel())

        def note(request: bot_pb2.DecisionRequest) -> None:
            if len(sizes) < 2000:
                sizes.append(request.ByteSize())

        try:
            await answer_first_legal(call, ready, note)
        except asyncio.CancelledError:
            pass
        except grpc.aio.AioRpcError as exc:
            if exc.code() != grpc.StatusCode.CANCELLED:
                raise


async def referee_rate(address: str, concurrency: int, seconds: float, sizes: list[int], batching: bool
                       ) -> tuple[int, float]:
    """Decisions made with ``concurrency`` matches kept running for ``seconds``, and the
    seconds they took (the matches running at the deadline are finished)."""
    metadata = (("authorization", f"Bearer {ADMIN}"),)
    async with grpc.aio.insecure_channel(address) as channel:
        admin = arena_pb2_grpc.ArenaServiceStub(channel)
        stop = asyncio.Event()
        bots, tasks = [], []
        for _ in range(BOTS):
            registered = await admin.RegisterBot(
                arena_pb2.RegisterBotRequest(name=f"trivial-{uuid.uuid4().hex[:12]}"), metadata=metadata)
            ready = asyncio.Event()
            tasks.append(asyncio.create_task(trivial_bot(address, registered.token, ready, sizes, stop, batching)))
            await asyncio.wait_for(ready.wait(), 10)
            bots.append(registered.bot_id)
        decisions = 0
        deadline = time.perf_counter() + seconds
        seed = 0

        async def match_loop() -> None:
            nonlocal decisions, seed
            while time.perf_counter() < deadline:
                seed += 1
                result = (await admin.RunMatch(arena_pb2.RunMatchRequest(
                    preset="partnership", seat_bot_ids=bots, seed=seed, options_json='{"target": 11}'),
                    metadata=metadata)).result
                decisions += sum(s.decisions for s in result.seats)

        start = time.perf_counter()
        await asyncio.gather(*(match_loop() for _ in range(concurrency)))
        elapsed = time.perf_counter() - start
        stop.set()
        await asyncio.gather(*tasks)
        return decisions, elapsed


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used so far (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measured(phase: Coroutine[Any, Any, tuple[int, float]], server: subprocess.Popen[bytes]) -> dict[str, float]:
    """Run one phase: its rate, and the server's and this process's CPU microseconds per
    unit (decision or round trip)."""
    server_before, client_before = cpu_seconds(server.pid), time.process_time()
    units, elapsed = asyncio.run(phase)
    return {"rate": units / elapsed, "server_us": (cpu_seconds(server.pid) - server_before) / units * 1e6,
            "client_us": (time.process_time() - client_before) / units * 1e6}


def summary(concurrency: int, payload: int, rounds: list[dict[str, dict[str, float]]]) -> dict[str, Any]:
    """One concurrency's report: medians over the rounds, each ratio taken within its round
    (the machine's speed drifts between rounds, much less within one)."""

    def median_of(phase: str, key: str) -> int:
        return round(statistics.median(r[phase][key] for r in rounds))

    def ratios(phase: str, echo: str = "echo") -> list[float]:
        return [round(r[phase]["rate"] / r[echo]["rate"], 3) for r in rounds]

    streams, in_flight = bot_layout(concurrency)
    report: dict[str, Any] = {
        "concurrency": concurrency, "payload_bytes": payload, "rounds": len(rounds),
        "echo_layout": f"{streams} streams taking turns, {in_flight} message(s) in flight in all",
        "echo_round_trips_per_s": median_of("echo", "rate"),
        "referee_decisions_per_s": median_of("single", "rate"),
        "referee_batching_decisions_per_s": median_of("batched", "rate"),
        "ratio": statistics.median(ratios("single")), "ratios": ratios("single"),
        "ratio_batching": statistics.median(ratios("batched")), "ratios_batching": ratios("batched"),
        "cpu_us_per_decision": {
            "echo_server": median_of("echo", "server_us"), "echo_client": median_of("echo", "client_us"),
            "referee": median_of("single", "server_us"), "referee_bots": median_of("single", "client_us"),
            "referee_batching": median_of("batched", "server_us"),
            "referee_batching_bots": median_of("batched", "client_us")}}
    report["echo_per_match"] = {
        "layout": f"{concurrency} stream(s), one message in flight on each",
        "round_trips_per_s": median_of("echo_per_match", "rate"),
        "ratio": statistics.median(ratios("single", "echo_per_match")),
        "ratio_batching": statistics.median(ratios("batched", "echo_per_match")),
        "server_us": median_of("echo_per_match", "server_us"),
        "client_us": median_of("echo_per_match", "client_us")}
    return report


def spawn(args: list[str], env: dict[str, str], port: int) -> subprocess.Popen[bytes]:
    """Start a server process and wait until it accepts connections on ``port`` (a fixed
    pause was too short on a loaded machine).  Its stderr goes to a temporary file, so a
    server that exits or never listens is reported with its own last words."""
    errors = tempfile.TemporaryFile()  # noqa: SIM115 - kept open while the server runs
    process = subprocess.Popen([sys.executable, *args], env={**os.environ, **env}, cwd=ROOT,
                               stdout=subprocess.DEVNULL, stderr=errors)
    deadline = time.monotonic() + 60
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"{args} exited at start (status {process.returncode}):\n{_tail(errors)}")
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return process
        if time.monotonic() > deadline:
            process.kill()
            process.wait()
            raise RuntimeError(f"{args} did not listen on port {port} within 60 s:\n{_tail(errors)}")
        time.sleep(0.05)


def _tail(file: IO[bytes], limit: int = 4000) -> str:
    """The last ``limit`` characters a server wrote to ``file``."""
    file.seek(0)
    return file.read().decode(errors="replace")[-limit:]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 16])
    parser.add_argument("--seconds", type=float, default=4.0, help="length of each phase")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the three phases per concurrency")
    parser.add_argument("--serve-echo", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_echo:
        uvloop.run(serve_echo(args.serve_echo))  # the same event loop as the referee process
        return
    report = []
    with RedisServer() as redis_server:
        referee_port, echo_port = free_port(), free_port()
        referee = spawn(["-m", "referee", "--address", f"127.0.0.1:{referee_port}"],
                        {"REDIS_URL": redis_server.url, "PITCH_ADMIN_TOKEN": ADMIN, "PITCH_STORE_PREFIX": "bench:"},
                        referee_port)
        try:
            echo = spawn([__file__, "--serve-echo", str(echo_port)], {}, echo_port)
        except RuntimeError:
            referee.terminate()
            raise
        try:
            address = f"127.0.0.1:{referee_port}"
            for concurrency in args.concurrency:
                sizes: list[int] = []
                rounds = []
                streams, in_flight = bot_layout(concurrency)
                for _ in range(args.rounds):
                    single = measured(referee_rate(address, concurrency, args.seconds, sizes, batching=False), referee)
                    batched = measured(referee_rate(address, concurrency, args.seconds, [], batching=True), referee)
                    payload = round(sum(sizes) / len(sizes))
                    echoed = measured(echo_rate(echo_port, streams, in_flight, payload, args.seconds), echo)
                    per_match = measured(echo_rate(echo_port, concurrency, concurrency, payload, args.seconds), echo)
                    rounds.append({"single": single, "batched": batched, "echo": echoed, "echo_per_match": per_match})
                report.append(summary(concurrency, payload, rounds))
        finally:
            for process in (referee, echo):
                process.terminate()
                process.wait(timeout=10)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
