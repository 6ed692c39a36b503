"""The dense observation encoding for learning bots (layout ``pitch.v1.dense.1``).

The layout is documented on ``ObservationTensor`` in ``protos/pitch/v1/game.proto``; this
is its one implementation, used by the referee when it sends a decision request.  Seats
are relative to the observer so a network sees every seat the same way.
"""

from __future__ import annotations

from pitch_sdk.rules import Observation
from pitch_sdk.rules.state import Phase

DENSE_LAYOUT = "pitch.v1.dense.1"
_CARDS = 54
#: The phases with a slot of their own; every other phase (look, offer, discard, the
#: sub-trump, call-card, pass-leftovers, dealer-pick, burn, muck) sets the sixth, "other":
#: the layout is fixed (a new slot would be a new layout), and the legal actions' kind
#: already tells those decisions apart.
_PHASES = (Phase.BIDDING, Phase.DECLARE_TRUMP, Phase.EXCHANGE, Phase.PLAY, Phase.GAME_OVER)


def dense_size(players: int) -> int:
    """Length of the encoding for ``players`` seats."""
    return _CARDS + 2 * _CARDS * players + 4 + 6 + 4 * players + 1 + players


def encode_observation(observation: Observation) -> list[float]:
    """Encode ``observation`` in the ``pitch.v1.dense.1`` layout."""
    players = observation.players
    me = max(observation.viewer, 0)

    def relative(seat: int) -> int:
        return (seat - me) % players

    values = [0.0] * dense_size(players)
    for held in observation.hand:
        values[held] = 1.0
    played = _CARDS
    for trick in observation.tricks:
        for seat, card in trick.plays:
            values[played + relative(seat) * _CARDS + card] = 1.0
    table = played + players * _CARDS
    for seat, card in observation.current_trick:
        values[table + relative(seat) * _CARDS + card] = 1.0
    offset = table + players * _CARDS
    if observation.trump is not None:
        values[offset + int(observation.trump)] = 1.0
    offset += 4
    phase_index = _PHASES.index(observation.phase) if observation.phase in _PHASES else 5
    values[offset + phase_index] = 1.0
    offset += 6
    values[offset + relative(observation.dealer)] = 1.0
    offset += players
    if observation.pitcher is not None:
        values[offset + relative(observation.pitcher)] = 1.0
    offset += players
    if observation.to_move >= 0:
        values[offset + relative(observation.to_move)] = 1.0
    offset += players
    high = observation.bid or max((amount or 0 for _, amount in observation.bids), default=0)
    values[offset] = high / 10
    offset += 1
    for seat in range(players):
        values[offset + relative(seat)] = observation.scores[seat % observation.parties] / 100
    return values
