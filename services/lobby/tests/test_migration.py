"""Migration 0003_lobby_parties on PostgreSQL and SQLite: plaintext lobby seat tokens become
SHA-256 digests, tables learn their CreateGame request id, matchmade games become
watchable, and the party tables exist (issue 20)."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import inspect, text
from sqlalchemy.engine import Engine

from services.common.db import make_engine, migrate
from tests.fixtures.postgres_tools import schema_engine, temporary_schema

REVISION = "0003_lobby_parties"


def _seed(engine: Engine) -> None:
    """Rows as the lobby wrote them before the migration (tokens in plaintext)."""
    stamp = datetime.now(UTC)
    with engine.begin() as c:
        c.execute(
            text(
                "INSERT INTO games (id, rules_id, variant, options, seed, salt, status, version,"
                " allow_spectators, spectator_delay_versions, request_id, created_at, updated_at)"
                " VALUES ('g1', 'toy', 'duel', '{}', '1', 's', 'active', 0, true, 0,"
                " 'match:m1', :t, :t)"
            ),
            {"t": stamp},
        )
        c.execute(
            text(
                "INSERT INTO lobby_tables (id, game, variant, options, source, private,"
                " allow_spectators, clock, fill_bot, status, game_id, created_at, version)"
                " VALUES ('m1', 'toy', 'duel', '{}', 'match', true, false, '{}', '{}',"
                " 'started', 'g1', :t, 1)"
            ),
            {"t": stamp},
        )
        c.execute(
            text(
                'INSERT INTO lobby_seats (table_id, "index", side, team, player_id, automated,'
                " seat_token) VALUES ('m1', 0, 'North', 'N', 'p1', false, 'wr.g1.0.secret'),"
                " ('m1', 1, 'South', 'S', NULL, false, NULL)"
            )
        )


def _check(engine: Engine) -> None:
    columns = {c["name"] for c in inspect(engine).get_columns("lobby_seats")}
    assert "seat_token" not in columns and "seat_token_digest" in columns
    assert {"lobby_parties", "lobby_party_members"} <= set(inspect(engine).get_table_names())
    with engine.connect() as c:
        digests = c.execute(
            text('SELECT seat_token_digest FROM lobby_seats ORDER BY "index"')
        ).scalars()
        assert list(digests) == [hashlib.sha256(b"wr.g1.0.secret").hexdigest(), None]
        row = c.execute(
            text("SELECT game_request_id, allow_spectators FROM lobby_tables WHERE id = 'm1'")
        ).one()
        assert row[0] == "match:m1" and bool(row[1])


def test_migration_digests_tokens_on_postgresql(database_url: str) -> None:
    with temporary_schema(database_url) as schema:
        engine = schema_engine(database_url, schema)
        try:
            migrate(engine, "0002_lobby")
            _seed(engine)
            migrate(engine, REVISION)
            _check(engine)
        finally:
            engine.dispose()


def test_migration_digests_tokens_on_sqlite(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'lobby.db'}")
    try:
        migrate(engine, "0002_lobby")
        _seed(engine)
        migrate(engine, REVISION)
        _check(engine)
    finally:
        engine.dispose()
