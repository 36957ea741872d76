"""The Redis fixtures: unique prefixes, clean-up of prefixed keys, loud failures."""

from __future__ import annotations

import re
import socket
import time
from pathlib import Path

import pytest
import redis
import redis.asyncio

from tests.fixtures import (
    ServiceUnavailableError,
    check_redis,
    delete_prefixed,
    new_key_prefix,
    redis_service,
)

# Inner pytest sessions (pytester) run outside pyproject.toml: load the plugin explicitly.
INNER_ARGS = (
    "-p",
    "tests.fixtures.plugin",
    "-p",
    "no:cacheprovider",
    "-o",
    "asyncio_default_fixture_loop_scope=function",
)
PREFIX_RE = re.compile(r"^wr-test-[0-9a-f]{8}:$")


def _unused_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_prefixes_are_distinct_and_well_formed(redis_prefix: str) -> None:
    prefixes = {new_key_prefix() for _ in range(200)}
    assert len(prefixes) == 200
    assert all(PREFIX_RE.match(p) for p in prefixes)
    assert PREFIX_RE.match(redis_prefix)
    assert redis_prefix not in prefixes


def test_redis_client_returns_bytes(redis_client: redis.Redis, redis_prefix: str) -> None:
    redis_client.set(f"{redis_prefix}k", "v")
    assert redis_client.get(f"{redis_prefix}k") == b"v"


async def test_async_redis_client(
    async_redis_client: redis.asyncio.Redis, redis_prefix: str
) -> None:
    await async_redis_client.set(f"{redis_prefix}async", b"\x00\xff")
    assert await async_redis_client.get(f"{redis_prefix}async") == b"\x00\xff"


def test_delete_prefixed_removes_only_that_prefix(redis_client: redis.Redis) -> None:
    mine, other = new_key_prefix(), new_key_prefix()
    try:
        with redis_client.pipeline(transaction=False) as pipe:
            for i in range(1234):  # more than one SCAN/UNLINK batch
                pipe.set(f"{mine}{i}", i)
            pipe.set(f"{other}keep", 1)
            pipe.execute()
        assert delete_prefixed(redis_client, mine) == 1234
        assert list(redis_client.scan_iter(match=f"{mine}*")) == []
        assert redis_client.get(f"{other}keep") == b"1"
    finally:
        delete_prefixed(redis_client, mine)
        delete_prefixed(redis_client, other)


def test_delete_prefixed_refuses_empty_prefix(redis_client: redis.Redis) -> None:
    with pytest.raises(ValueError, match="empty prefix"):
        delete_prefixed(redis_client, "")


def test_fixture_teardown_deletes_prefixed_keys(
    pytester: pytest.Pytester, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Run a real inner session: keys written through the fixtures are gone afterwards."""
    monkeypatch.setenv("REDIS_URL", redis_url)
    record = pytester.path / "prefix.txt"
    pytester.makepyfile(
        test_inner=f"""
        import pathlib

        def test_writes(redis_client, redis_prefix, redis_url):
            pathlib.Path({str(record)!r}).write_text(redis_prefix)
            redis_client.set(redis_prefix + "a", 1)
            redis_client.hset(redis_prefix + "h", "f", "v")
            assert redis_client.exists(redis_prefix + "a", redis_prefix + "h") == 2
        """
    )
    result = pytester.runpytest_inprocess(*INNER_ARGS)
    result.assert_outcomes(passed=1)
    prefix = Path(record).read_text()
    assert PREFIX_RE.match(prefix)
    client = redis.Redis.from_url(redis_url)
    try:
        assert list(client.scan_iter(match=f"{prefix}*")) == []
    finally:
        client.close()


def test_bad_redis_url_raises_clear_error() -> None:
    url = f"redis://127.0.0.1:{_unused_port()}/0"
    started = time.monotonic()
    with (
        pytest.raises(ServiceUnavailableError) as excinfo,
        redis_service({"REDIS_URL": url}, wait_seconds=0.5),
    ):
        pytest.fail("redis_service yielded for an unreachable REDIS_URL")
    message = str(excinfo.value)
    assert "REDIS_URL" in message
    assert url in message
    assert "did not answer PING" in message
    assert time.monotonic() - started < 10


def test_malformed_redis_url_raises_clear_error() -> None:
    with pytest.raises(ServiceUnavailableError, match="not a usable Redis URL"):
        check_redis("http://nope", wait_seconds=0)


def test_password_is_redacted_in_errors() -> None:
    url = f"redis://user:s3cret@127.0.0.1:{_unused_port()}/0"
    with pytest.raises(ServiceUnavailableError) as excinfo:
        check_redis(url, wait_seconds=0)
    assert "s3cret" not in str(excinfo.value)
    assert "***" in str(excinfo.value)
