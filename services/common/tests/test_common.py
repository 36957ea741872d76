"""services.common: concurrent migrations, settings from the environment, credentials."""

from __future__ import annotations

import threading
import uuid

import pytest
from sqlalchemy import inspect, text

from services.common.auth import bearer, bot_seat_token, is_service_call, service_metadata
from services.common.db import make_engine, migrate
from services.common.settings import Settings


def test_concurrent_migrations_serialize(database_url: str) -> None:
    schema = f"wr_mig_{uuid.uuid4().hex[:8]}"
    admin = make_engine(database_url)
    with admin.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    errors: list[BaseException] = []

    def run() -> None:
        engine = make_engine(database_url, schema)
        try:
            migrate(engine)
        except BaseException as exc:
            errors.append(exc)
        finally:
            engine.dispose()

    try:
        threads = [threading.Thread(target=run) for _ in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert errors == []
        engine = make_engine(database_url, schema)
        tables = set(inspect(engine).get_table_names())
        engine.dispose()
        assert {"games", "seats", "actions", "snapshots", "results"} <= tables
    finally:
        with admin.begin() as conn:
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


def test_settings_read_plain_and_prefixed_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("WARROOM_REDIS_URL", "WARROOM_DATABASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("REDIS_URL", "redis://example:1/2")
    monkeypatch.setenv("DATABASE_URL", "postgresql://u@h/db")
    monkeypatch.setenv("WARROOM_GAME_PORT", "6000")
    settings = Settings()
    assert settings.redis_url == "redis://example:1/2"
    assert settings.database_url == "postgresql://u@h/db"
    assert settings.game_port == 6000
    monkeypatch.setenv("WARROOM_REDIS_URL", "redis://prefixed:1/0")
    assert Settings().redis_url == "redis://prefixed:1/0"


def test_service_credential_and_bot_tokens() -> None:
    settings = Settings(service_secret="s3cret")
    assert is_service_call(service_metadata(settings), settings)
    assert not is_service_call((("authorization", "Bearer nope"),), settings)
    assert not is_service_call((), settings)
    assert bearer((("Authorization", "bearer abc"),)) == "abc"
    token = bot_seat_token(b"s3cret", "g" * 32, 1)
    assert token.startswith("bot.")
    assert token == bot_seat_token(b"s3cret", "g" * 32, 1)
    assert token != bot_seat_token(b"s3cret", "g" * 32, 2)
