"""Root conftest for tests/.

The shared fixtures (``redis_url``, ``redis_prefix``, ``redis_client``, ``async_redis_client``,
``database_url``, ``db_schema``, ``db_engine``) are defined in ``tests/fixtures/plugin.py`` and
registered for the WHOLE repository by ``-p tests.fixtures.plugin`` in pyproject's pytest
``addopts`` (with ``pythonpath = ["."]``), not here: a conftest under tests/ would only reach
tests under tests/, and tests also live beside the code in libs/ and services/. This file only
checks that the plugin is there, so a run that bypassed pyproject fails with a clear message
instead of "fixture 'redis_url' not found".
"""

from __future__ import annotations

import pytest

FIXTURE_PLUGIN = "tests.fixtures.plugin"


def pytest_configure(config: pytest.Config) -> None:
    if not config.pluginmanager.has_plugin(FIXTURE_PLUGIN):
        raise pytest.UsageError(
            f"the shared fixtures plugin {FIXTURE_PLUGIN!r} is not loaded: run pytest from the "
            f"repository root (so pyproject.toml's addopts apply) or pass -p {FIXTURE_PLUGIN}"
        )
