"""Views and watch updates carry the game's catalogue version, and their ids resolve in it."""

from __future__ import annotations

import random

import pytest
from google.protobuf import descriptor_pool, message_factory
from google.protobuf.message import Message

from services.common.auth import service_metadata
from services.game.tests.helpers import Replica, pick, toy_request
from warroom import catalog
from warroom.catalog import check
from warroom.v1 import game_pb2

SEATS = {"ncw": 4, "qmg_cw": 3, "qmg_sf": 2}


def _typed(view: game_pb2.SeatView) -> Message:
    name = view.view.type_url.rsplit("/", 1)[-1]
    cls = message_factory.GetMessageClass(descriptor_pool.Default().FindMessageTypeByName(name))
    message = cls()
    assert view.view.Unpack(message)
    return message


@pytest.mark.parametrize("rules_id", sorted(SEATS))
async def test_views_carry_the_version_and_resolve(replica: Replica, rules_id: str) -> None:
    stub = replica.stub
    created = await stub.CreateGame(
        game_pb2.CreateGameRequest(
            rules_id=rules_id,
            seed=17,
            allow_spectators=True,
            seats=[game_pb2.SeatSpec(player_id=f"p{i}") for i in range(SEATS[rules_id])],
        ),
        metadata=service_metadata(replica.settings),
    )
    cat = catalog.catalog(rules_id)
    tokens = list(created.seat_tokens)
    rng = random.Random(3)
    for _ in range(25):
        views = [
            (await stub.GetView(game_pb2.GetViewRequest(game_id=created.game_id, token=t))).view
            for t in (*tokens, created.spectator_token)
        ]
        for view in views:
            assert view.content_version == cat.content_version
            assert not check.unresolved(cat, _typed(view)), check.unresolved(cat, _typed(view))
        acting = [s for s, v in enumerate(views[:-1]) if v.decision.options]
        if not acting:
            break
        seat = rng.choice(acting)
        option = pick(views[seat], rng)
        assert option is not None
        await stub.SubmitAction(
            game_pb2.SubmitActionRequest(
                game_id=created.game_id,
                token=tokens[seat],
                expected_version=views[seat].version,
                decision_id=views[seat].decision.decision_id,
                option_id=option.id,
            )
        )
    stream = stub.WatchGame(game_pb2.WatchGameRequest(game_id=created.game_id, token=tokens[0]))
    first = await stream.read()
    stream.cancel()
    assert isinstance(first, game_pb2.WatchGameResponse)
    assert first.content_version == first.view.content_version == cat.content_version


async def test_a_game_without_a_catalogue_has_no_version(replica: Replica) -> None:
    created = await replica.stub.CreateGame(
        toy_request(), metadata=service_metadata(replica.settings)
    )
    view = await replica.stub.GetView(
        game_pb2.GetViewRequest(game_id=created.game_id, token=created.seat_tokens[0])
    )
    assert view.view.content_version == "" and view.view.rules_id == "toy"
