"""A full New Cold War game through gRPC, four test clients taking random legal options.

Every seat's and the spectator's GetView is checked against the rules' own view of the
referee's state at every step (no secret of another seat, no foreign options or events).
"""

from __future__ import annotations

import asyncio
import random

import pytest

from services.common.auth import service_metadata
from services.game.tests.helpers import Referee, Replica, pick
from services.game.tests.test_full_game import collect
from warroom.engine.match import Action
from warroom.engine.registry import get_rules
from warroom.v1 import common_pb2, game_pb2


def _ncw_available() -> bool:
    try:
        get_rules("ncw")
    except Exception:
        return False
    return True


@pytest.mark.slow
@pytest.mark.skipif(not _ncw_available(), reason="warroom.games.ncw.rules does not import yet")
async def test_full_ncw_game_through_grpc(replica: Replica) -> None:
    stub = replica.stub
    created = await stub.CreateGame(
        game_pb2.CreateGameRequest(
            game=common_pb2.GAME_KIND_NEW_COLD_WAR,
            variant="4p",
            seed=2024,
            allow_spectators=True,
            seats=[game_pb2.SeatSpec(player_id=f"p{i}") for i in range(4)],
        ),
        metadata=service_metadata(replica.settings),
    )
    referee = Referee("ncw", created.seed, "4p")
    rng = random.Random(5)
    tokens = list(created.seat_tokens)
    watchers = [
        asyncio.create_task(collect(replica, created.game_id, token))
        for token in (*tokens, created.spectator_token)
    ]
    for _ in range(20_000):
        state = referee.state()
        views = []
        for seat, token in enumerate(tokens):
            view = (
                await stub.GetView(game_pb2.GetViewRequest(game_id=created.game_id, token=token))
            ).view
            referee.check_view(view, seat, state)
            views.append(view)
        spectator = await stub.GetView(
            game_pb2.GetViewRequest(game_id=created.game_id, token=created.spectator_token)
        )
        referee.check_view(spectator.view, None, state)
        if views[0].HasField("result"):
            break
        seat = rng.choice([s for s, v in enumerate(views) if v.decision.options])
        option = pick(views[seat], rng)
        assert option is not None
        answer = await stub.SubmitAction(
            game_pb2.SubmitActionRequest(
                game_id=created.game_id,
                token=tokens[seat],
                expected_version=views[seat].version,
                decision_id=views[seat].decision.decision_id,
                option_id=option.id,
            )
        )
        referee.actions.append(Action(seat, option.id))
        assert answer.version == len(referee.actions)
    else:
        raise AssertionError("the NCW game did not end")
    streams = await asyncio.wait_for(asyncio.gather(*watchers), 60)
    for viewer, updates in zip((0, 1, 2, 3, None), streams, strict=True):
        assert [u.version for u in updates] == list(
            range(updates[0].version, len(referee.actions) + 1)
        )
        prefix = Referee("ncw", created.seed, "4p")
        for update in updates:
            prefix.actions = referee.actions[: update.version]
            prefix.check_view(update.view, viewer)
            for event in update.events:
                assert event.public or (viewer is not None and viewer in event.visible_to)
    replay = await stub.GetReplay(
        game_pb2.GetReplayRequest(game_id=created.game_id, token=tokens[2])
    )
    assert replay.game == common_pb2.GAME_KIND_NEW_COLD_WAR
    rules = get_rules("ncw")
    rerun = Referee("ncw", replay.seed, replay.variant, dict(replay.options))
    rerun.actions = [Action(a.seat, a.option_id) for a in replay.actions]
    assert rules.encode_bytes(rerun.state().game) == rules.encode_bytes(referee.state().game)


@pytest.mark.skipif(not _ncw_available(), reason="warroom.games.ncw.rules does not import yet")
async def test_ncw_resign_uses_the_game_hook(replica: Replica) -> None:
    created = await replica.stub.CreateGame(
        game_pb2.CreateGameRequest(
            game=common_pb2.GAME_KIND_NEW_COLD_WAR,
            variant="4p",
            seed=77,
            seats=[game_pb2.SeatSpec(player_id=f"p{i}") for i in range(4)],
        ),
        metadata=service_metadata(replica.settings),
    )
    eu = 1
    answer = await replica.stub.Resign(
        game_pb2.ResignRequest(game_id=created.game_id, token=created.seat_tokens[eu])
    )
    rules = get_rules("ncw")
    expected = rules.resign(Referee("ncw", created.seed, "4p").state().game, eu)  # type: ignore[attr-defined]
    ranks = {s.seat: s.rank for s in answer.result.seats}
    assert ranks == dict(expected.ranks)
    assert ranks[eu] == max(ranks.values()) and ranks[0] < ranks[eu], "the ally is not ranked down"
    assert {s.seat for s in answer.result.seats if s.winner} == set(expected.winners)
    assert answer.result.reason == "resignation"
