"""Every seat's clock is public: each view of the current version carries all of them."""

from __future__ import annotations

import time

from services.common.settings import Settings
from services.game.tests.helpers import Replica, create
from warroom.v1 import common_pb2, game_pb2


def _live_clock(seconds: int) -> common_pb2.ClockSpec:
    return common_pb2.ClockSpec(
        mode=common_pb2.ClockSpec.MODE_LIVE,
        initial_seconds=seconds,
        fallback=common_pb2.ClockSpec.FALLBACK_BOT,
        fallback_bot=common_pb2.BotSpec(kind="random"),
    )


async def test_every_view_shows_every_seats_clock(replica: Replica, settings: Settings) -> None:
    seats = [
        game_pb2.SeatSpec(player_id="alice", clock=_live_clock(600)),
        game_pb2.SeatSpec(player_id="bob", clock=_live_clock(300)),
    ]
    created = await create(replica.stub, settings, seats=seats, seed=11)
    gid = created.game_id
    tokens = list(created.seat_tokens)

    async def view(token: str) -> game_pb2.SeatView:
        request = game_pb2.GetViewRequest(game_id=gid, token=token)
        return (await replica.stub.GetView(request)).view

    before = time.time() * 1000
    # The toy duel opens with a decision both seats owe: both clocks run, each its own.
    first = [await view(token) for token in (*tokens, created.spectator_token)]
    after = time.time() * 1000
    allowance = (600_000, 300_000)
    deadlines = []
    for seen in first:
        assert sorted(seen.decision.seats) == [0, 1]
        for seat, message in enumerate(seen.seats):
            # Every seat's deadline, not only the viewer's own (and a spectator sees them too).
            assert message.has_clock and message.clock_running, (seen.seat, message)
            deadline = message.clock_deadline.ToMilliseconds()
            assert before - 5_000 < deadline - allowance[seat] <= after, (seat, deadline)
            deadlines.append(deadline)
    assert len(set(deadlines[0::2])) == 1 and len(set(deadlines[1::2])) == 1, deadlines
    # Seat 0 answers: its clock stops with what was left; seat 1's runs on, unchanged.
    mine = first[0]
    option = next(o for o in mine.decision.options if o.id != "undo")
    answer = await replica.stub.SubmitAction(
        game_pb2.SubmitActionRequest(
            game_id=gid,
            token=tokens[0],
            expected_version=mine.version,
            decision_id=mine.decision.decision_id,
            option_id=option.id,
        )
    )
    later = [answer.view] + [await view(t) for t in (tokens[1], created.spectator_token)]
    for seen in later:
        assert seen.version == answer.view.version
        assert list(seen.decision.seats) == [1], "the duel's opening waits for seat 1 alone"
        stopped, running = seen.seats
        assert stopped.has_clock and not stopped.clock_running, stopped
        assert not stopped.HasField("clock_deadline")
        assert allowance[0] - 10_000 < stopped.clock_remaining_ms <= allowance[0]
        assert running.clock_running
        assert running.clock_deadline.ToMilliseconds() == deadlines[1]


async def test_a_game_without_clocks_shows_none(replica: Replica, settings: Settings) -> None:
    created = await create(replica.stub, settings, seed=12)
    request = game_pb2.GetViewRequest(game_id=created.game_id, token=created.spectator_token)
    seen = (await replica.stub.GetView(request)).view
    assert seen.seats and not any(s.has_clock or s.clock_running for s in seen.seats)
