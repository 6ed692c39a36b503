"""A bot written against the published .proto files alone (no pitch_sdk import).

Usage: python proto_only_bot.py GENERATED_DIR ADDRESS TOKEN

GENERATED_DIR holds modules protoc generated from protos/ (``pitch/v1/*_pb2*.py``).  The
bot plays the first legal action of every request (or, for a card-set request sent as a
constraint, the required cards plus the fewest allowed ones), leaves after its first
match ends, and prints a JSON summary; it fails if pitch_sdk was ever imported.
"""

import json
import queue
import sys

sys.path.insert(0, sys.argv[1])

import grpc
from pitch.v1 import bot_pb2, bot_pb2_grpc, game_pb2


def main() -> None:
    address, token = sys.argv[2], sys.argv[3]
    outbox: queue.Queue[bot_pb2.BotMessage | None] = queue.Queue()
    outbox.put(bot_pb2.BotMessage(hello=bot_pb2.Hello(
        bot_name="proto-only", bot_version="1", sdk="protoc-generated python",
        protocol_versions=["pitch.v1"], capacity=4)))

    def requests():
        while (message := outbox.get()) is not None:
            yield message

    summary = {"decisions": 0, "welcomed": False, "result": None}
    with grpc.insecure_channel(address) as channel:
        stub = bot_pb2_grpc.BotServiceStub(channel)
        for message in stub.Connect(requests(), metadata=(("authorization", f"Bearer {token}"),)):
            kind = message.WhichOneof("message")
            if kind == "welcome":
                summary["welcomed"] = True
                print("WELCOMED", flush=True)
            elif kind == "decision_request":
                request = message.decision_request
                decision = bot_pb2.Decision(match_id=request.match_id, decision_id=request.decision_id)
                if request.legal_actions:
                    decision.legal_action_index = 0
                else:
                    rule = request.card_set
                    extra = [c for c in rule.allowed if c.id not in {r.id for r in rule.required}]
                    chosen = list(rule.required) + extra[:max(0, rule.min_count - len(rule.required))]
                    decision.action.CopyFrom(game_pb2.Action(
                        kind=game_pb2.DECISION_KIND_CHOOSE_CARDS, cards=game_pb2.CardSet(cards=chosen)))
                outbox.put(bot_pb2.BotMessage(decision=decision))
                summary["decisions"] += 1
            elif kind == "match_ended":
                summary["result"] = {"completed": message.match_ended.result.completed,
                                     "statuses": [s.status for s in message.match_ended.result.seats]}
                outbox.put(None)
                break
    summary["pitch_sdk_imported"] = any(name.startswith("pitch_sdk") for name in sys.modules)
    print(json.dumps(summary), flush=True)


if __name__ == "__main__":
    main()
