"""Deciding whether a hand ended the game, and who won it.

Seeds disagree here, so each reading is a ``WinMode``: seed 004 counts points in order
(pitcher first, then High, Low, Jack, Game) and the first eligible party to reach the
target wins; seed 002 lets a making party at the target win regardless, and otherwise the
non-maker with the most points at the target.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from operator import add

from pitch_sdk.rules.records import WinReason
from pitch_sdk.rules.ruleset import Backdoor, CountOrder, Ruleset, WhoMayWin, WinMode
from pitch_sdk.rules.scoring import Settlement, scored_points, side_members

_NO_BACKDOOR = Backdoor.NONE  # per hand: an Enum member lookup costs ~0.1 us on Python 3.11


def decide_winner(rules: Ruleset, scores_before: Sequence[int], settlement: Settlement,
                  pitching_party: int | None, hands_played: int,
                  sides: Sequence[int] | None = None) -> tuple[int | None, WinReason | None]:
    """Return ``(winning party, reason)``, ``(None, reason)`` for a draw, or ``(None, None)``
    when play continues.  ``sides`` (party -> side) when the bidder called a partner: the
    partner belongs to the pitching side, and is counted right after the pitcher."""
    win = rules.win
    final = list(map(add, scores_before, settlement.score_changes))

    if settlement.moon_decides and pitching_party is not None:
        if settlement.made:
            return pitching_party, WinReason.SHOT_THE_MOON
        return best_score(final, exclude=side_members(pitching_party, len(final), sides)), WinReason.FAILED_MOON

    if max(final) < win.target:  # the usual hand: nobody can have reached the target
        pass
    elif win.win_mode is WinMode.MAKER_FIRST:
        decided = _maker_first(rules, final, pitching_party,
                               _eligible(rules, pitching_party, settlement.made, sides))
        if decided is not None:
            return decided
    else:
        eligible = _eligible(rules, pitching_party, settlement.made, sides)
        running = list(scores_before)
        for party, change in counting_steps(rules, settlement, pitching_party, sides):
            running[party] += change
            if (party in eligible and running[party] >= win.target
                    and final[party] >= win.target and _leads_by(final, party, win.win_by)):
                return party, WinReason.REACHED_TARGET

    if win.backdoor is not _NO_BACKDOOR:
        backdoor = _backdoor(rules, final)
        if backdoor is not None:
            return backdoor
    if hands_played >= win.max_hands:
        return best_score(final), WinReason.HAND_LIMIT
    return None, None


def _maker_first(rules: Ruleset, final: Sequence[int], pitching_party: int | None,
                 eligible: set[int]) -> tuple[int, WinReason] | None:
    """Seed 002: a making party at the target wins "regardless of the other players'
    scores"; else the party with the most points at the target, a tie playing on.  The
    ``who_may_win`` and ``win_by`` options still apply: an option the ruleset accepts must
    not be ignored because the seed 002 rule decides."""
    win = rules.win
    if (pitching_party is not None and final[pitching_party] >= win.target
            and pitching_party in eligible and _leads_by(final, pitching_party, win.win_by)):
        return pitching_party, WinReason.MAKER_AT_TARGET
    at_target = [p for p, score in enumerate(final) if score >= win.target]
    best = max(final[p] for p in at_target)
    leaders = [p for p in at_target if final[p] == best]
    if len(leaders) == 1 and leaders[0] in eligible and _leads_by(final, leaders[0], win.win_by):
        return leaders[0], WinReason.MOST_AT_TARGET
    return None


def _backdoor(rules: Ruleset, final: Sequence[int]) -> tuple[int | None, WinReason] | None:
    """Seed 004: a party at or below the backdoor score (minus the target by default)
    wins (the lowest such score), loses (the best other party wins), or draws the game."""
    win = rules.win
    line = win.backdoor_score or -win.target
    low = min(final)
    if low > line:
        return None
    lowest = [p for p, score in enumerate(final) if score == low]
    if win.backdoor is Backdoor.DRAW:
        return None, WinReason.BACKDOOR
    if win.backdoor is Backdoor.WINS:
        return (lowest[0] if len(lowest) == 1 else None), WinReason.BACKDOOR
    return best_score(final, exclude=lowest[:1]) if len(lowest) == 1 else None, WinReason.BACKDOOR


def counting_steps(rules: Ruleset, settlement: Settlement, pitching_party: int | None,
                   sides: Sequence[int] | None = None) -> list[tuple[int, int]]:
    """The hand's score changes as ``(party, change)`` in counting order: applying them in
    turn gives the new scores, and the first eligible party to cross the target wins.

    Seed 004 counts the pitcher's points first (or its set-back), then High, Low, Jack and
    Game; ``CountOrder.CATEGORIES`` counts the categories strictly in order, a set-back
    first.  Points a party does not score (no junk points, a failed moon) are skipped.
    With called partners each party scores its side's total, so the pitching side is
    counted first (the pitcher, then the partner), then the others in seat order."""
    changes, points_won, awards = settlement.score_changes, settlement.points_won, settlement.awards
    if sides is not None and pitching_party is not None:
        team = side_members(pitching_party, len(changes), sides)
        order = [pitching_party] + [p for p in team if p != pitching_party]
        order += [p for p in range(len(changes)) if p not in team]
        return [(party, changes[party]) for party in order if changes[party]]
    # What a party scores award by award; a revoke's set-back (and a defender's sweep bonus
    # under no junk points) is counted as one step, before the awards.
    scored = scored_points(settlement) if rules.play.revoke_penalty or rules.scoring.sweep_bonus else points_won
    steps: list[tuple[int, int]] = []
    if rules.win.count_order is CountOrder.PITCHER_FIRST and pitching_party is not None:
        steps.append((pitching_party, changes[pitching_party]))
        steps.extend((party, change) for party, change in enumerate(changes)
                     if party != pitching_party and change and change != scored[party])
        steps.extend((award.party, award.value) for award in awards
                     if award.party != pitching_party and changes[award.party] == scored[award.party]
                     and changes[award.party])
    else:
        if pitching_party is not None and changes[pitching_party] != scored[pitching_party]:
            steps.append((pitching_party, changes[pitching_party]))  # set back: counted first
        steps.extend((party, change) for party, change in enumerate(changes)
                     if party != pitching_party and change and change != scored[party])
        steps.extend((award.party, award.value) for award in awards
                     if changes[award.party] == scored[award.party] and changes[award.party])
    return steps


def _eligible(rules: Ruleset, pitching_party: int | None, made: bool | None,
              sides: Sequence[int] | None) -> set[int]:
    who = rules.win.who_may_win
    if who is WhoMayWin.ANY:
        return set(range(rules.parties))
    if pitching_party is None:
        return set()
    pitching_side = set(side_members(pitching_party, rules.parties, sides))
    if who is WhoMayWin.BID_MADE_OR_SET and made is False:  # the defenders set the bidder
        return set(range(rules.parties)) - pitching_side
    if who is not WhoMayWin.PITCHING_PARTY and not made:
        return set()
    return pitching_side


def _leads_by(scores: Sequence[int], party: int, margin: int) -> bool:
    """Whether ``party`` is ahead of every other party by ``margin`` (win by two).

    ``win_by=1`` asks for no margin at all: the counting order, not the final totals,
    decides, so a pitcher going out may have fewer points than a defender (seed 000:
    "it's possible for the winning player to have fewer points than a losing player";
    seed 004: points "accrue strictly in the order given ... preventing ties")."""
    if margin <= 1:
        return True
    others = [s for p, s in enumerate(scores) if p != party]
    return all(scores[party] - s >= margin for s in others)


def best_score(scores: Sequence[int], exclude: Collection[int] = ()) -> int | None:
    """The party with the unique highest score among those not in ``exclude`` (``None`` on
    a tie: a draw); used when a game is cut off by the hand limit, or lost by a side."""
    candidates = [p for p in range(len(scores)) if p not in exclude]
    best = max(scores[p] for p in candidates)
    leaders = [p for p in candidates if scores[p] == best]
    return leaders[0] if len(leaders) == 1 else None
