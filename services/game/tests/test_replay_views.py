"""GetReplayViews: every version of a finished game from version 0, in pages, as the public view
or the caller's own seat's; never for a running game; bad ranges refused with a reason."""

from __future__ import annotations

import asyncio
import hashlib
import random
from typing import Any

import grpc
import pytest

from services.game.tests.helpers import Referee, Replica, create, play_random, status_of
from warroom.engine.match import Match, MatchState
from warroom.engine.registry import get_rules
from warroom.v1 import game_pb2


async def _play(replica: Replica, seed: int, moves: int) -> tuple[str, list[str], str, Referee]:
    """A toy game with `moves` options played, then seat 1 resigns: (id, tokens, spectator)."""
    stub = replica.stub
    created = await create(stub, replica.settings, seed=seed)
    gid, tokens = created.game_id, list(created.seat_tokens)
    referee = Referee("toy", created.seed, "duel")
    await play_random(stub, gid, tokens, referee, random.Random(seed), moves)
    return gid, tokens, created.spectator_token, referee


async def _all_views(
    replica: Replica, gid: str, token: str, seat: int | None, count: int
) -> list[game_pb2.SeatView]:
    """Every page of GetReplayViews from version 0."""
    views: list[game_pb2.SeatView] = []
    start = 0
    while True:
        request = game_pb2.GetReplayViewsRequest(
            game_id=gid, token=token, from_version=start, count=count
        )
        if seat is not None:
            request.seat = seat
        page = await replica.stub.GetReplayViews(request)
        assert [v.version for v in page.views] == list(range(start, page.next_version))
        views.extend(page.views)
        start = page.next_version
        if start > page.final_version:
            return views


def _states(referee: Referee) -> list[MatchState[object]]:
    """The referee's state at every option version (0 .. the last option)."""
    match = Match(get_rules("toy"))
    state = match.start(referee.seed, referee.variant, referee.options)
    out = [state]
    for action in referee.actions:
        state = match.apply(state, action.seat, action.option_id).state
        out.append(state)
    return out


async def _code(call: object) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call  # type: ignore[misc]
    return status_of(caught.value)


async def test_every_version_from_zero_public_and_own_seat(replica: Replica) -> None:
    stub = replica.stub
    gid, tokens, spectator, referee = await _play(replica, seed=41, moves=6)
    # a running game's views are never served, to anyone
    running = game_pb2.GetReplayViewsRequest(game_id=gid, token=tokens[0], seat=0)
    assert await _code(stub.GetReplayViews(running)) == (
        grpc.StatusCode.FAILED_PRECONDITION,
        "GAME_NOT_OVER",
    )
    public_running = game_pb2.GetReplayViewsRequest(game_id=gid, token=spectator)
    assert (await _code(stub.GetReplayViews(public_running)))[1] == "GAME_NOT_OVER"
    resigned = await stub.Resign(game_pb2.ResignRequest(game_id=gid, token=tokens[1]))
    final = resigned.version
    assert final == len(referee.actions) + 1
    states = _states(referee)
    states.append(states[-1])  # the resignation changes no state

    replay = await stub.GetReplay(game_pb2.GetReplayRequest(game_id=gid, token=tokens[0]))
    public = await _all_views(replica, gid, spectator, None, count=3)
    assert [v.version for v in public] == list(range(final + 1))
    for view, state in zip(public, states, strict=True):
        assert view.seat == -1
        referee.check_view(view, None, state)
    # the public views are those GetReplay hashed, version 0 included
    assert [hashlib.sha256(v.view.value).digest() for v in public] == list(replay.view_hashes)
    # a seat token with seat -1 gets the same public views; its own seat's views by default
    assert await _all_views(replica, gid, tokens[0], -1, count=100) == public
    own = await _all_views(replica, gid, tokens[0], None, count=2)
    assert own == await _all_views(replica, gid, tokens[0], 0, count=50)
    for view, state in zip(own, states, strict=True):
        assert view.seat == 0
        referee.check_view(view, 0, state)
    assert own[0].view != public[0].view  # the seat sees its hand from the setup on
    # each version carries its own events only: the pages together hold each event once
    assert all(e.version == v.version for v in own for e in v.events)
    assert own[-1].events[-1].kind == "resign"
    # the final version equals GetView's (apart from the events: GetView's are the recent ones)
    for token, views in ((tokens[0], own), (spectator, public)):
        now = (await stub.GetView(game_pb2.GetViewRequest(game_id=gid, token=token))).view
        last = game_pb2.SeatView()
        last.CopyFrom(views[-1])
        del last.events[:], now.events[:]
        assert last == now
        assert views[-1].result.finished_at.seconds > 0

    # after the game left memory, the views are rebuilt from the SQL log, identical
    replica.authority.games.pop(gid)
    replica.authority.queries._replays.clear()
    assert await _all_views(replica, gid, tokens[0], None, count=7) == own
    # viewers arriving together share one rebuild of the frames
    replica.authority.games.pop(gid)
    replica.authority.queries._replays.clear()
    cache = replica.authority.cache
    builds: list[int] = []
    build = cache.frames

    async def counted(live: Any, after: int, upto: int) -> Any:
        builds.append(upto)
        return await build(live, after, upto)

    cache.frames = counted  # type: ignore[method-assign]
    pages = await asyncio.gather(
        *(_all_views(replica, gid, tokens[0], None, count=100) for _ in range(5))
    )
    assert pages == [own] * 5
    assert builds == [final]


async def test_refusals_name_their_reason(replica: Replica) -> None:
    stub = replica.stub
    gid, tokens, spectator, _ = await _play(replica, seed=43, moves=2)
    final = (await stub.Resign(game_pb2.ResignRequest(game_id=gid, token=tokens[0]))).version
    cases = [
        (
            {"token": tokens[0], "from_version": -1},
            grpc.StatusCode.INVALID_ARGUMENT,
            "BAD_FROM_VERSION",
        ),
        (
            {"token": tokens[0], "from_version": final + 1},
            grpc.StatusCode.INVALID_ARGUMENT,
            "BAD_FROM_VERSION",
        ),
        ({"token": tokens[0], "count": 101}, grpc.StatusCode.INVALID_ARGUMENT, "BAD_PAGE"),
        ({"token": tokens[0], "count": -5}, grpc.StatusCode.INVALID_ARGUMENT, "BAD_PAGE"),
        ({"token": tokens[0], "count": 2**31 - 1}, grpc.StatusCode.INVALID_ARGUMENT, "BAD_PAGE"),
        ({"token": tokens[0], "seat": 2}, grpc.StatusCode.INVALID_ARGUMENT, "BAD_SEAT"),
        ({"token": tokens[0], "seat": -2}, grpc.StatusCode.INVALID_ARGUMENT, "BAD_SEAT"),
        ({"token": tokens[0], "seat": 1}, grpc.StatusCode.PERMISSION_DENIED, "SEAT_VIEW_DENIED"),
        ({"token": spectator, "seat": 0}, grpc.StatusCode.PERMISSION_DENIED, "SEAT_VIEW_DENIED"),
        ({"token": "wr.nope"}, grpc.StatusCode.PERMISSION_DENIED, "BAD_TOKEN"),
    ]
    for fields, code, reason in cases:
        request = game_pb2.GetReplayViewsRequest(game_id=gid, **fields)  # type: ignore[arg-type]
        assert await _code(stub.GetReplayViews(request)) == (code, reason), fields
    # the last version alone, and count 0 = the default page
    tail = await stub.GetReplayViews(
        game_pb2.GetReplayViewsRequest(game_id=gid, token=spectator, from_version=final)
    )
    assert [v.version for v in tail.views] == [final]
    assert tail.next_version == final + 1 == tail.final_version + 1


async def test_spectators_wait_for_the_replay_delay(replica: Replica) -> None:
    stub = replica.stub
    gid, tokens, spectator, _ = await _play(replica, seed=47, moves=1)
    await stub.Resign(game_pb2.ResignRequest(game_id=gid, token=tokens[0]))
    replica.authority.settings = replica.settings.model_copy(
        update={"game_replay_spectator_delay_seconds": 3600}
    )
    request = game_pb2.GetReplayViewsRequest(game_id=gid, token=spectator)
    assert await _code(stub.GetReplayViews(request)) == (
        grpc.StatusCode.FAILED_PRECONDITION,
        "REPLAY_DELAYED",
    )
    own = await stub.GetReplayViews(game_pb2.GetReplayViewsRequest(game_id=gid, token=tokens[1]))
    assert own.views[0].version == 0 and own.views[0].seat == 1
