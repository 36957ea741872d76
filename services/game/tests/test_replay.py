"""Replays verifiable without the Python library: every version has its log entry (a resignation
too), the public view of every version has its SHA-256, the final state its hash, and every
finished game says when it finished."""

from __future__ import annotations

import hashlib
import random

from services.common.auth import service_metadata
from services.game.tests.helpers import Referee, Replica, create, play_random
from warroom.engine.match import Action
from warroom.engine.registry import get_rules
from warroom.v1 import game_pb2


async def test_replay_hashes_every_public_view_and_logs_the_resignation(replica: Replica) -> None:
    stub = replica.stub
    created = await create(stub, replica.settings, seed=31)
    gid, tokens = created.game_id, list(created.seat_tokens)
    referee = Referee("toy", created.seed, "duel")
    public = game_pb2.GetViewRequest(game_id=gid, token=created.spectator_token)
    seen: dict[int, bytes] = {}
    rng = random.Random(3)

    async def watch_public() -> None:
        view = (await stub.GetView(public)).view
        seen[view.version] = hashlib.sha256(view.view.value).digest()

    await watch_public()
    await play_random(stub, gid, tokens, referee, rng, 4, after=watch_public)
    resigned = await stub.Resign(game_pb2.ResignRequest(game_id=gid, token=tokens[1]))
    await watch_public()
    final = resigned.version
    assert final == len(referee.actions) + 1

    replay = await stub.GetReplay(game_pb2.GetReplayRequest(game_id=gid, token=tokens[0]))
    # every version has its entry, the resignation last
    assert [a.version for a in replay.actions] == list(range(1, final + 1))
    assert [a.kind for a in replay.actions] == ["option"] * (final - 1) + ["resign"]
    assert replay.actions[-1].seat == 1
    options = [Action(a.seat, a.option_id) for a in replay.actions if a.kind == "option"]
    assert options == referee.actions
    # the public view hash of every version, as a client computes it from what it received
    assert len(replay.view_hashes) == final + 1
    assert {v: replay.view_hashes[v] for v in seen} == seen
    assert len(seen) == final + 1
    rules = get_rules("toy")
    assert (
        replay.final_state_hash == hashlib.sha256(rules.encode_bytes(referee.state().game)).digest()
    )
    # when it finished, everywhere the result appears
    finished = replay.result.finished_at
    assert finished.seconds > 0
    view = (await stub.GetView(public)).view
    assert view.result.finished_at == finished
    listed = await stub.ListGames(
        game_pb2.ListGamesRequest(status=game_pb2.GAME_STATUS_FINISHED, rules_id="toy"),
        metadata=service_metadata(replica.settings),
    )
    summary = next(g for g in listed.games if g.game_id == gid)
    assert summary.result.finished_at == finished
