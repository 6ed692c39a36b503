"""The referee's limits per client (``referee/client_limits.py``) and its logs per client
(``referee/log_limit.py``), on their own: a token bucket per client, practice slots per bot
and per referee, the settings that set them, and log windows per client whose left-out
lines are counted in one line at the window's end."""

from __future__ import annotations

import asyncio
import logging

import grpc
import pytest

from referee.admission import RequestRefused
from referee.client_limits import ClientLimits, PracticeSlots, RateLimit, peer_client, practice_total
from referee.config import RefereeConfig
from referee.log_limit import LogLimiter


def test_a_bucket_allows_a_burst_then_one_action_per_refill_per_client() -> None:
    """"Every client-driven action gets a per-token rate limit": 20 a minute is a burst of 20,
    then one every 3 s; one client's empty bucket leaves another's full; refusals do not
    count; 0 means no limit; the refusal names the limit, its value and its setting."""
    limit = RateLimit("practice requests", 20, "PITCH_PRACTICE_PER_MINUTE")
    assert [limit.allow("a", now=100.0) for _ in range(21)] == [True] * 20 + [False]
    assert limit.allow("b", now=100.0)
    assert not limit.allow("a", now=102.9) and limit.allow("a", now=103.0) and not limit.allow("a", now=103.0)
    assert [limit.allow("a", now=1000.0) for _ in range(21)] == [True] * 20 + [False]  # full again, not more
    for _ in range(20):
        limit.check("c")
    with pytest.raises(RequestRefused) as refused:
        limit.check("c")
    assert refused.value.code == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert str(refused.value) == ("too many practice requests: at most 20 practice requests per minute per bot "
                                  "token (PITCH_PRACTICE_PER_MINUTE=20)")
    unlimited = RateLimit("x", 0, "PITCH_X")
    assert all(unlimited.allow("a", now=0.0) for _ in range(1000)) and len(unlimited) == 0


def test_a_bucket_tracks_at_most_its_clients_the_least_recent_forgotten_first() -> None:
    """At most ``max_clients`` buckets are kept: a flood of new clients cannot grow memory."""
    limit = RateLimit("x", 1, "PITCH_X", max_clients=3)
    for client in "abcd":
        assert limit.allow(client, now=0.0)
    assert len(limit) == 3
    assert limit.allow("a", now=0.0)  # forgotten: a full bucket again
    assert not limit.allow("d", now=0.0)


def test_practice_slots_bound_each_bot_and_the_referee() -> None:
    """"Practice matches get their own bounded share per bot and per referee": two at once
    per bot, the referee's share for all bots; a slot given back is free again; each
    refusal names its bound and setting."""
    slots = PracticeSlots(per_bot=2, total=3)
    slots.take("a")
    slots.take("a")
    with pytest.raises(RequestRefused, match=r"at most 2 at once per bot \(PITCH_PRACTICE_PER_BOT=2\)"):
        slots.take("a")
    slots.take("b")
    with pytest.raises(RequestRefused, match=r"PITCH_PRACTICE_SHARE: at most 3 at once"):
        slots.take("c")
    slots.give_back("a")
    slots.take("c")
    assert (slots.running, slots.of("a"), slots.of("b"), slots.of("c")) == (3, 1, 1, 1)
    for bot in "abc":
        slots.give_back(bot)
    assert slots.running == 0 and slots.of("a") == 0


def test_the_settings_come_from_the_environment_and_are_checked() -> None:
    """PITCH_PRACTICE_SHARE, PITCH_PRACTICE_PER_BOT, PITCH_PRACTICE_PER_MINUTE and
    PITCH_CONNECTS_PER_MINUTE set the limits (defaults 0.25, 2, 20, 30); the share of 256
    slots is 64, of 3 slots still one, of none none; bad values are refused naming them."""
    default = ClientLimits.from_config(RefereeConfig())
    assert (default.practice.total, default.practice.per_bot, default.practice_requests.per_minute,
            default.connects.per_minute) == (64, 2, 20, 30)
    config = RefereeConfig.from_env({"PITCH_PRACTICE_SHARE": "0.5", "PITCH_PRACTICE_PER_BOT": "1",
                                     "PITCH_PRACTICE_PER_MINUTE": "5", "PITCH_CONNECTS_PER_MINUTE": "7"})
    limits = ClientLimits.from_config(config)
    assert (limits.practice.total, limits.practice.per_bot, limits.practice_requests.per_minute,
            limits.connects.per_minute) == (128, 1, 5, 7)
    assert practice_total(RefereeConfig(max_matches=3)) == 1
    assert practice_total(RefereeConfig(practice_share=0.0)) == 0
    with pytest.raises(ValueError, match="practice_share must be between 0 and 1"):
        RefereeConfig(practice_share=1.5)
    with pytest.raises(ValueError, match="connects_per_minute must not be negative"):
        RefereeConfig(connects_per_minute=-1)


def test_a_peer_is_named_without_its_port() -> None:
    """A client known by its address only is one client whatever port it comes from."""
    assert peer_client("ipv4:127.0.0.1:5678") == peer_client("ipv4:127.0.0.1:9") == "peer ipv4:127.0.0.1"
    assert peer_client("ipv6:[::1]:5678") == "peer ipv6:[::1]"
    assert peer_client("unix:/tmp/socket") == "peer unix:/tmp/socket"


def test_log_lines_are_limited_per_client_and_counted_at_the_window_end(caplog: pytest.LogCaptureFixture) -> None:
    """Logs "rate-limit per client (token or peer), and log every refusal once per client per
    interval with a count": a noisy client's lines past its burst are left out and counted
    in one line when its window ends; another client's lines are logged meanwhile; at most
    ``max_clients`` windows are kept."""
    logger = logging.getLogger("test.client_limits")

    async def scenario() -> LogLimiter:
        limiter = LogLimiter(logger, burst=1, period_s=0.2, max_clients=50, what="refusal(s)")
        for number in range(100):
            limiter.log(logging.WARNING, "noisy refused %d", number, client="bot noisy")
        limiter.log(logging.WARNING, "quiet refused", client="bot quiet")
        await asyncio.sleep(0.4)
        limiter.log(logging.WARNING, "noisy refused again", client="bot noisy")
        for number in range(60):
            limiter.log(logging.WARNING, "client %d", number, client=f"peer {number}")
        return limiter

    with caplog.at_level(logging.WARNING, logger="test.client_limits"):
        limiter = asyncio.run(scenario())
    lines = [r.getMessage() for r in caplog.records]
    assert lines[:4] == ["noisy refused 0", "quiet refused",
                         "bot noisy: 99 more refusal(s) in 0.2 s, not logged one by one", "noisy refused again"]
    assert len(lines) == 64 and len(limiter) == 50
