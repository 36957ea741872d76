"""The embedded default: a SQLite file instead of PostgreSQL, same code path."""

from __future__ import annotations

from pathlib import Path

from services.common.db import make_engine, migrate
from services.common.settings import Settings
from services.game.tests.helpers import Referee, create, start_replica
from services.game.tests.test_full_game import play
from warroom.engine.registry import get_rules
from warroom.v1 import game_pb2


async def test_full_game_on_sqlite_file(settings: Settings, tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'warroom.db'}"
    engine = make_engine(url)
    migrate(engine)
    engine.dispose()
    local = settings.model_copy(update={"database_url": url, "db_schema": None})
    replica = await start_replica(local)
    try:
        created = await create(replica.stub, local, seed=17)
        referee = Referee("toy", created.seed, "duel")
        final = await play(replica, created, referee, 8)
        assert final.HasField("result")
        replay = await replica.stub.GetReplay(
            game_pb2.GetReplayRequest(game_id=created.game_id, token=created.seat_tokens[0])
        )
        rules = get_rules("toy")
        rerun = Referee("toy", replay.seed, replay.variant)
        rerun.actions = referee.actions
        assert rules.encode_bytes(rerun.state().game) == rules.encode_bytes(referee.state().game)
    finally:
        await replica.stop()
    # a fresh replica on the same file rebuilds the finished game from snapshot + log
    again = await start_replica(local)
    try:
        view = await again.stub.GetView(
            game_pb2.GetViewRequest(game_id=created.game_id, token=created.seat_tokens[1])
        )
        assert view.view.version == len(referee.actions)
        assert view.view.HasField("result")
        referee.check_view(view.view, 1)
    finally:
        await again.stop()
