"""How the fixtures pick a server: env URL, testcontainers, or the local one (started if down).

These paths are exercised with stand-ins (monkeypatch) so the machine's real Redis and
PostgreSQL are never stopped or started by the test suite.
"""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures import postgres_tools as pg
from tests.fixtures import redis_tools as rs
from tests.fixtures.services import containers_enabled, redact


class _FakeContainer:
    """Stands in for a testcontainers container: records start/stop."""

    events: list[str]

    def __init__(self, image: str, **kwargs: Any) -> None:
        self.image = image
        self.kwargs = kwargs
        type(self).events.append(f"init {image}")

    def __enter__(self) -> _FakeContainer:
        type(self).events.append("start")
        return self

    def __exit__(self, *exc: object) -> None:
        type(self).events.append("stop")

    def get_container_host_ip(self) -> str:
        return "10.9.8.7"

    def get_exposed_port(self, port: int) -> int:
        return 40000 + port

    def get_connection_url(self) -> str:
        return "postgresql+psycopg://test:secret@10.9.8.7:45432/test"


def _fake_module(monkeypatch: pytest.MonkeyPatch, name: str, **attrs: Any) -> None:
    module = types.ModuleType(name)
    for key, value in attrs.items():
        setattr(module, key, value)
    monkeypatch.setitem(sys.modules, name, module)


@pytest.fixture
def no_docker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rs, "docker_available", lambda: False)
    monkeypatch.setattr(pg, "docker_available", lambda: False)


def test_redis_local_server_started_when_nothing_answers(
    monkeypatch: pytest.MonkeyPatch, no_docker: None
) -> None:
    started: list[tuple[str, ...]] = []
    checked: list[str] = []
    monkeypatch.setattr(rs, "port_open", lambda host, port: False)
    monkeypatch.setattr(rs.shutil, "which", lambda name: f"/usr/bin/{name}")

    def start(argv: tuple[str, ...]) -> str:
        started.append(tuple(argv))
        return "ok"

    monkeypatch.setattr(rs, "run_start_command", start)
    monkeypatch.setattr(rs, "check_redis", lambda url, **kw: checked.append(url))
    with rs.redis_service({}) as url:
        assert url == rs.DEFAULT_REDIS_URL == "redis://127.0.0.1:6379/0"
    assert started == [rs.REDIS_START_COMMAND]
    assert started[0] == (
        "redis-server",
        "--daemonize",
        "yes",
        "--bind",
        "127.0.0.1",
        "--port",
        "6379",
        "--save",
        "",
        "--appendonly",
        "no",
    )
    assert checked == [rs.DEFAULT_REDIS_URL]


def test_redis_local_server_not_started_when_port_answers(
    monkeypatch: pytest.MonkeyPatch, no_docker: None
) -> None:
    monkeypatch.setattr(rs, "port_open", lambda host, port: True)
    monkeypatch.setattr(rs, "run_start_command", lambda argv: pytest.fail("must not start"))
    monkeypatch.setattr(rs, "check_redis", lambda url, **kw: None)
    with rs.redis_service({}) as url:
        assert url == rs.DEFAULT_REDIS_URL


def test_redis_start_output_is_reported_when_still_down(
    monkeypatch: pytest.MonkeyPatch, no_docker: None
) -> None:
    monkeypatch.setattr(rs, "port_open", lambda host, port: False)
    monkeypatch.setattr(rs.shutil, "which", lambda name: "/usr/bin/redis-server")
    monkeypatch.setattr(rs, "run_start_command", lambda argv: "bind: address in use")

    def refuse(url: str, **kw: Any) -> None:
        raise rs.ServiceUnavailableError("local Redis: nope")

    monkeypatch.setattr(rs, "check_redis", refuse)
    with pytest.raises(rs.ServiceUnavailableError, match="bind: address in use"):  # noqa: SIM117
        with rs.redis_service({}):
            pass


def test_redis_env_url_wins_over_everything(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rs, "docker_available", lambda: pytest.fail("must not probe docker"))
    monkeypatch.setattr(rs, "check_redis", lambda url, **kw: None)
    with rs.redis_service({"REDIS_URL": "redis://cache.internal:6380/3"}) as url:
        assert url == "redis://cache.internal:6380/3"


def test_redis_testcontainer_used_when_docker_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    class FakeRedis(_FakeContainer):
        events: list[str] = []  # noqa: RUF012

    _fake_module(monkeypatch, "testcontainers")
    _fake_module(monkeypatch, "testcontainers.redis", RedisContainer=FakeRedis)
    monkeypatch.setattr(rs, "docker_available", lambda: True)
    monkeypatch.setattr(rs, "check_redis", lambda url, **kw: None)
    with rs.redis_service({}) as url:
        assert url == "redis://10.9.8.7:46379/0"
        assert FakeRedis.events == [f"init {rs.REDIS_IMAGE}", "start"]
    assert FakeRedis.events[-1] == "stop"


def test_testcontainers_can_be_switched_off(monkeypatch: pytest.MonkeyPatch) -> None:
    assert containers_enabled({})
    assert not containers_enabled({"WARROOM_TESTCONTAINERS": "0"})
    monkeypatch.setattr(rs, "docker_available", lambda: pytest.fail("must not probe docker"))
    monkeypatch.setattr(rs, "port_open", lambda host, port: True)
    monkeypatch.setattr(rs, "check_redis", lambda url, **kw: None)
    with rs.redis_service({"WARROOM_TESTCONTAINERS": "0"}) as url:
        assert url == rs.DEFAULT_REDIS_URL


def test_postgres_local_cluster_started_when_nothing_listens(
    monkeypatch: pytest.MonkeyPatch, no_docker: None, tmp_path: Path
) -> None:
    up = {"yes": False}
    started: list[list[str]] = []

    def start(argv: list[str]) -> str:
        started.append(list(argv))
        up["yes"] = True
        return "started"

    monkeypatch.setattr(pg, "port_open", lambda host, port: up["yes"])
    monkeypatch.setattr(pg.shutil, "which", lambda name: f"/usr/bin/{name}")
    (tmp_path / "15").mkdir()
    monkeypatch.setattr(pg, "POSTGRES_CONF_DIR", str(tmp_path))
    monkeypatch.setattr(pg, "run_start_command", start)
    monkeypatch.setattr(pg, "check_database", lambda url, **kw: None)
    with pg.postgres_service({}) as url:
        assert url == "postgresql+psycopg://postgres@127.0.0.1:5432/test"
    assert started == [["pg_ctlcluster", "--skip-systemctl-redirect", "15", "main", "start"]]


def test_postgres_falls_back_to_root_user(monkeypatch: pytest.MonkeyPatch, no_docker: None) -> None:
    def check(url: str, **kw: Any) -> None:
        if "postgres@" in url:
            raise pg.ServiceUnavailableError('role "postgres" does not exist')

    monkeypatch.setattr(pg, "port_open", lambda host, port: True)
    monkeypatch.setattr(pg, "check_database", check)
    with pg.postgres_service({}) as url:
        assert url == "postgresql+psycopg://root@127.0.0.1:5432/test"


def test_postgres_testcontainer_used_when_docker_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    class FakePostgres(_FakeContainer):
        events: list[str] = []  # noqa: RUF012

    _fake_module(monkeypatch, "testcontainers")
    _fake_module(monkeypatch, "testcontainers.postgres", PostgresContainer=FakePostgres)
    monkeypatch.setattr(pg, "docker_available", lambda: True)
    monkeypatch.setattr(pg, "check_database", lambda url, **kw: None)
    with pg.postgres_service({}) as url:
        assert url == "postgresql+psycopg://test:secret@10.9.8.7:45432/test"
    assert FakePostgres.events == [f"init {pg.POSTGRES_IMAGE}", "start", "stop"]


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("postgresql://u@h:5432/d", "postgresql+psycopg://u@h:5432/d"),
        ("postgres://u:p@h/d", "postgresql+psycopg://u:p@h/d"),
        ("postgresql+psycopg://u@h/d", "postgresql+psycopg://u@h/d"),
    ],
)
def test_database_url_normalized_to_psycopg(given: str, expected: str) -> None:
    assert pg.normalize_url(given) == expected


def test_redact_hides_passwords() -> None:
    assert redact("redis://:pw@h:1/0") == "redis://:***@h:1/0"
    assert redact("postgresql+psycopg://u:pw@h/d") == "postgresql+psycopg://u:***@h/d"
    assert redact("redis://h:1/0") == "redis://h:1/0"
