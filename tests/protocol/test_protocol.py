"""The published protocol: lint-clean, backward compatible, generated code current, and
usable from the .proto files alone."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
from pathlib import Path

from grpc_tools import protoc

from pitch_sdk.proto.pitch.v1 import arena_pb2, bot_pb2, game_pb2
from tests.referee.harness import ADMIN, RawBot, answer_first, running_arena

ROOT = Path(__file__).resolve().parents[2]
PROTOS = ROOT / "protos"
BUF = shutil.which("buf", path=str(Path(sys.executable).parent)) or "buf"


def test_generated_code_is_up_to_date() -> None:
    """The SDK's generated modules equal a fresh run of scripts/gen_protos.py."""
    check = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_protos.py"), "--check"],
                           capture_output=True, text=True, check=False)
    assert check.returncode == 0, check.stdout + check.stderr


def test_protos_pass_buf_lint() -> None:
    """Every message, field, enum and RPC follows buf's STANDARD and COMMENTS rules."""
    lint = subprocess.run([BUF, "lint"], cwd=PROTOS, capture_output=True, text=True, check=False)
    assert lint.returncode == 0, lint.stdout + lint.stderr


def test_protos_have_no_breaking_change_against_the_released_protocol() -> None:
    """`buf breaking` against protos/released/pitch-v1.json (the last release) is clean."""
    breaking = subprocess.run([BUF, "breaking", "--against", "released/pitch-v1.json"], cwd=PROTOS,
                              capture_output=True, text=True, check=False)
    assert breaking.returncode == 0, breaking.stdout + breaking.stderr


def test_a_bot_built_from_the_protos_alone_completes_a_match(tmp_path: Path, redis_url: str) -> None:
    """Code generated into a temporary directory from protos/ (no pitch_sdk) is enough to
    write a bot that connects, plays every seat of a cutthroat match and sees it end."""
    sources = [str(p.relative_to(PROTOS)) for p in PROTOS.rglob("*.proto")]
    include = Path(protoc.__file__).parent / "_proto"
    assert protoc.main(["protoc", f"-I{PROTOS}", f"-I{include}", f"--python_out={tmp_path}",
                        f"--grpc_python_out={tmp_path}", *sources]) == 0

    async def scenario() -> dict[str, object]:
        async with running_arena(redis_url) as arena:
            registered = await arena.register("proto-only")
            bot = await asyncio.create_subprocess_exec(
                sys.executable, str(Path(__file__).with_name("proto_only_bot.py")), str(tmp_path), arena.address,
                registered.token, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
            assert bot.stdout is not None
            first = await asyncio.wait_for(bot.stdout.readline(), timeout=30)
            assert first.strip() == b"WELCOMED"
            result = (await arena.run_match("cutthroat", [registered.bot_id] * 3, seed=7)).result
            out, err = await asyncio.wait_for(bot.communicate(), timeout=30)
            assert bot.returncode == 0, err.decode()
            assert result.completed and not result.forfeited
            return json.loads(out.decode().strip().splitlines()[-1])  # type: ignore[no-any-return]

    summary = asyncio.run(scenario())
    assert summary["pitch_sdk_imported"] is False
    assert summary["decisions"] and summary["result"] == {"completed": True, "statuses": [1, 1, 1]}


def test_a_card_whose_id_and_name_disagree_is_a_malformed_answer(redis_url: str) -> None:
    """As the .proto says of `Card`: an answer naming one card by `id` and another by `name`
    earns a malformed-answer strike naming both (before, the referee silently played the
    card of the id), and the referee plays its fallback; later answers play on."""
    strikes: list[bot_pb2.Strike] = []
    sent: list[str] = []

    def handle(bot: RawBot, message: bot_pb2.RefereeMessage) -> bool | None:
        if message.HasField("strike"):
            strikes.append(message.strike)
        if message.HasField("decision_request") and message.decision_request.kind == game_pb2.DECISION_KIND_PLAY \
                and not sent:
            request = message.decision_request
            card = request.legal_actions[0].play
            other = "2C" if card.name != "2C" else "3C"
            sent.append(f"{card.id}/{other}")
            bot.send(bot_pb2.BotMessage(decision=bot_pb2.Decision(
                match_id=request.match_id, decision_id=request.decision_id,
                action=game_pb2.Action(kind=game_pb2.DECISION_KIND_PLAY, play=game_pb2.Card(id=card.id, name=other)))))
            return None
        return answer_first(bot, message)

    async def scenario() -> bot_pb2.MatchResult:
        async with running_arena(redis_url) as arena:
            registered = await arena.register()
            hello = bot_pb2.Hello(bot_name="mismatch", protocol_versions=["pitch.v1"], capacity=3)
            bot = await RawBot(arena, registered.token, hello, handle).started()
            result = (await arena.run_match("cutthroat", [registered.bot_id] * 3, seed=3)).result
            await asyncio.wait_for(bot.task, 10)
            return result

    result = asyncio.run(scenario())
    assert len(sent) == 1 and len(strikes) == 1
    strike = strikes[0]
    card_id, other = sent[0].split("/")
    assert strike.reason == bot_pb2.STRIKE_REASON_MALFORMED
    assert f"card id {card_id} is" in strike.message and f"its name says '{other}'" in strike.message
    assert result.completed and not result.forfeited
    assert sorted(seat.strikes for seat in result.seats) == [0, 0, 1]


def test_get_match_log_holds_every_hand_dealt(redis_url: str) -> None:
    """GetMatchLog's JSON, read without the SDK, lists every deal of every game ("dealt"),
    and no empty "deals" beside it: each seat's hand there is the hand that seat was shown
    in its `hand_dealt` event."""
    shown: dict[tuple[int, int, int], list[str]] = {}  # (game, deal index, seat) -> names

    def handle(bot: RawBot, message: bot_pb2.RefereeMessage) -> bool | None:
        if message.HasField("decision_request"):
            request = message.decision_request
            for event in request.events:
                if event.HasField("hand_dealt"):
                    deals = sum(1 for (game, _, seat) in shown if game == event.game and seat == request.seat)
                    shown[(event.game, deals, request.seat)] = [card.name for card in event.hand_dealt.hand]
        return answer_first(bot, message)

    async def scenario() -> tuple[bot_pb2.MatchResult, list[str]]:
        async with running_arena(redis_url) as arena:
            registered = await arena.register()
            hello = bot_pb2.Hello(bot_name="reader", protocol_versions=["pitch.v1"], capacity=3)
            bot = await RawBot(arena, registered.token, hello, handle).started()
            result = (await arena.run_match("cutthroat", [registered.bot_id] * 3, seed=4, games=2,
                                            options_json='{"target": 5}', match_id="dealt-log")).result
            await asyncio.wait_for(bot.task, 10)
            logs = await arena.admin.GetMatchLog(arena_pb2.GetMatchLogRequest(match_id="dealt-log"), metadata=ADMIN)
            return result, list(logs.game_logs_json)

    result, logs = asyncio.run(scenario())
    assert result.completed and len(logs) == 2
    for game, raw in enumerate(logs, 1):
        data = json.loads(raw)
        assert data["dealt"] and "deals" not in data  # one list of deals, not an empty one beside it
        for index, deal in enumerate(data["dealt"]):
            assert len(deal["hands"]) == 3 and all(len(hand.split()) == 6 for hand in deal["hands"])
            assert len(deal["stock"].split()) == 52 - 18
            for seat, hand in enumerate(deal["hands"]):
                if (game, index, seat) in shown:  # a seat is shown only the deals it had a decision after
                    assert hand.split() == shown[(game, index, seat)]
    assert {(game, index) for game, index, _ in shown} >= {(1, 0), (2, 0)}
