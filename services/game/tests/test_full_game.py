"""Full games through gRPC: every seat a test client, views checked for leaks at every step."""

from __future__ import annotations

import asyncio
import random

from services.game.tests.helpers import Referee, Replica, create, pick
from warroom.engine.match import Action
from warroom.engine.registry import get_rules
from warroom.v1 import game_pb2


async def collect(replica: Replica, game_id: str, token: str) -> list[game_pb2.WatchGameResponse]:
    """Every update of a WatchGame stream until the game ends."""
    updates = []
    async for update in replica.stub.WatchGame(
        game_pb2.WatchGameRequest(game_id=game_id, token=token, from_version=0)
    ):
        updates.append(update)
    return updates


async def play(
    replica: Replica, created: game_pb2.CreateGameResponse, referee: Referee, seed: int
) -> game_pb2.SeatView:
    """Play to the end: each seat reads its view and answers when it must act."""
    rng = random.Random(seed)
    stub = replica.stub
    tokens = list(created.seat_tokens)
    for _ in range(500):
        state = referee.state()
        spectator = await stub.GetView(
            game_pb2.GetViewRequest(game_id=created.game_id, token=created.spectator_token)
        )
        referee.check_view(spectator.view, None, state)
        views = []
        for seat, token in enumerate(tokens):
            response = await stub.GetView(
                game_pb2.GetViewRequest(game_id=created.game_id, token=token)
            )
            referee.check_view(response.view, seat, state)
            views.append(response.view)
        if views[0].HasField("result"):
            return views[0]
        seat = rng.choice([s for s, v in enumerate(views) if v.decision.options])
        view = views[seat]
        option = pick(view, rng)
        assert option is not None
        answer = await stub.SubmitAction(
            game_pb2.SubmitActionRequest(
                game_id=created.game_id,
                token=tokens[seat],
                expected_version=view.version,
                decision_id=view.decision.decision_id,
                option_id=option.id,
                idempotency_key=f"k{view.version}-{seat}",
            )
        )
        assert answer.version == view.version + 1
        referee.actions.append(Action(seat, option.id))
        referee.check_view(answer.view, seat)
    raise AssertionError("the game did not end")


async def test_full_toy_game_with_watchers_and_replay(replica: Replica) -> None:
    created = await create(replica.stub, replica.settings, seed=11)
    referee = Referee("toy", created.seed, "duel")
    watchers = [
        asyncio.create_task(collect(replica, created.game_id, token))
        for token in (*created.seat_tokens, created.spectator_token)
    ]
    final = await play(replica, created, referee, 3)
    assert final.result.reason == "three rounds played"
    streams = await asyncio.wait_for(asyncio.gather(*watchers), 20)
    for viewer, updates in zip((0, 1, None), streams, strict=True):
        assert updates[-1].version == len(referee.actions)
        versions = [u.version for u in updates]
        assert versions == sorted(set(versions)), "updates must arrive once each, in order"
        assert versions[-1] - versions[0] == len(versions) - 1, "no version may be skipped"
        for update in updates:
            prefix = Referee("toy", created.seed, "duel", actions=referee.actions[: update.version])
            prefix.check_view(update.view, viewer)
    # a watcher resuming after version 3 gets exactly versions 4.. with seat-filtered content
    resumed = [
        u
        async for u in replica.stub.WatchGame(
            game_pb2.WatchGameRequest(
                game_id=created.game_id, token=created.seat_tokens[0], from_version=3
            )
        )
    ]
    assert [u.version for u in resumed] == list(range(4, len(referee.actions) + 1))
    for update in resumed:
        prefix = Referee("toy", created.seed, "duel", actions=referee.actions[: update.version])
        prefix.check_view(update.view, 0)
        for event in update.events:
            assert event.public or 0 in event.visible_to
    replay = await replica.stub.GetReplay(
        game_pb2.GetReplayRequest(game_id=created.game_id, token=created.seat_tokens[1])
    )
    assert [(a.seat, a.option_id) for a in replay.actions] == [
        (a.seat, a.option_id) for a in referee.actions
    ]
    rules = get_rules(replay.rules_id)
    rerun = Referee(replay.rules_id, replay.seed, replay.variant, dict(replay.options))
    rerun.actions = [Action(a.seat, a.option_id) for a in replay.actions]
    assert rules.encode_bytes(rerun.state().game) == rules.encode_bytes(referee.state().game)
