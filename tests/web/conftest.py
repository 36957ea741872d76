"""Browser tests: the whole platform with the web gateway, driven by Debian's Chromium.

Each test module starts `make run`'s supervisor on free ports (as tests/platform does: its own
PostgreSQL schema, Redis key prefix and Celery broker database, known keys) with the gateway
serving the built app (web/dist, `make web`). Playwright for Python drives /usr/bin/chromium
(`playwright install` cannot download browsers here; `make test` installs Debian's package).
Screenshots go to `build/test-artifacts/web/` (or `$WARROOM_TEST_ARTIFACTS`).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, Playwright, sync_playwright

from tests.platform.conftest import Platform, running_platform

ROOT = Path(__file__).resolve().parents[2]
# Another build (e.g. an older one, to see a test fail against it) through WARROOM_TEST_WEB_DIST.
DIST = Path(os.environ.get("WARROOM_TEST_WEB_DIST") or ROOT / "web" / "dist")
# Its own Celery broker database: the platform tests use 14, flushed around each module.
BROKER_DB = int(os.environ.get("WARROOM_WEB_BROKER_DB", "13"))
CHROMIUM = os.environ.get("WARROOM_CHROMIUM", shutil.which("chromium") or "/usr/bin/chromium")
ARTIFACTS = Path(os.environ.get("WARROOM_TEST_ARTIFACTS") or ROOT / "build" / "test-artifacts")
KEYS = ("WARROOM_SERVICE_SECRET", "WARROOM_BOT_TOKEN_SECRET", "WARROOM_PLAYER_TOKEN_SECRET")


@dataclass
class WebPlatform:
    """A running platform, its gateway URL and the keys it was started with."""

    platform: Platform
    url: str
    keys: dict[str, str]

    @property
    def lobby(self) -> str:
        return self.platform.lobby

    @property
    def game(self) -> str:
        return self.platform.game

    def logs_tail(self, lines: int = 30) -> str:
        return self.platform.logs_tail(lines)


def artifacts_dir() -> Path:
    """Where the browser tests write screenshots."""
    path = ARTIFACTS / "web"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _require_built_app() -> None:
    if not (DIST / "index.html").is_file():
        pytest.fail(
            f"the browser app is not built ({DIST / 'index.html'} is missing): run `make web` "
            "(`make test` builds it)",
            pytrace=False,
        )


@pytest.fixture(scope="module")
def web_platform(
    redis_url: str, database_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[WebPlatform]:
    """The platform with the gateway on free ports over the test Redis and PostgreSQL."""
    _require_built_app()
    var = tmp_path_factory.mktemp("warroom-web-var")
    # A copy of the build: a rebuild during the run (vite empties web/dist first) cannot
    # pull the files from under the gateway.
    dist = var / "dist"
    shutil.copytree(DIST, dist)
    keys = {name: secrets.token_urlsafe(32) for name in KEYS}
    extra = {
        # Honest clients clicking fast; the per-token limit is not under test here.
        "WARROOM_GAME_RATE_PER_SECOND": "1000",
        "WARROOM_GAME_RATE_BURST": "2000",
        "WARROOM_WEB_DIST_DIR": str(dist),
        **keys,
    }
    with running_platform(
        redis_url, database_url, var, extra, broker_db=BROKER_DB, prefix="wr-web"
    ) as platform:
        yield WebPlatform(platform, f"http://127.0.0.1:{platform.env['WARROOM_WEB_PORT']}", keys)


@pytest.fixture(scope="module")
def backend(web_platform: WebPlatform) -> Iterator[Any]:
    """gRPC access to the module's platform for checks and scripted players."""
    from tests.web.api import Backend

    client = Backend(web_platform)
    yield client
    client.close()


@pytest.fixture(scope="module")
def playwright_driver() -> Iterator[Playwright]:
    """Playwright's sync driver (one per module)."""
    with sync_playwright() as driver:
        yield driver


@pytest.fixture(scope="module")
def browser(playwright_driver: Playwright) -> Iterator[Browser]:
    """Headless Debian Chromium."""
    if not Path(CHROMIUM).exists():
        pytest.fail(
            f"chromium not found at {CHROMIUM}: `apt-get install chromium` (`make test` does it "
            "as root)",
            pytrace=False,
        )
    instance = playwright_driver.chromium.launch(
        executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"]
    )
    try:
        yield instance
    finally:
        instance.close()


@dataclass
class Session:
    """One browser user: a context (its own storage and network) and its page."""

    context: BrowserContext
    page: Page
    name: str


@pytest.fixture
def new_session(
    browser: Browser, web_platform: WebPlatform, request: pytest.FixtureRequest
) -> Iterator[object]:
    """A factory of browser sessions on the gateway (closed, with a screenshot, at the end)."""
    sessions: list[Session] = []

    def make(name: str, viewport: tuple[int, int] = (1280, 800)) -> Session:
        context = browser.new_context(
            base_url=web_platform.url, viewport={"width": viewport[0], "height": viewport[1]}
        )
        context.set_default_timeout(15_000)
        page = context.new_page()
        session = Session(context, page, name)
        sessions.append(session)
        return session

    yield make
    failed = getattr(request.node, "rep_call", None)
    for session in sessions:
        if failed is not None and failed.failed:
            with contextlib.suppress(Exception):
                shot = artifacts_dir() / f"{request.node.name}-{session.name}-failure.png"
                session.page.screenshot(path=str(shot), full_page=True)
        with contextlib.suppress(Exception):
            session.context.close()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """Keep each phase's report on the item, so fixtures can tell a failed test."""
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    setattr(item, f"rep_{report.when}", report)


def chromium_version() -> str:
    """The Chromium version string (for the bench and reports)."""
    out = subprocess.run([CHROMIUM, "--version"], capture_output=True, text=True, check=False)
    return out.stdout.strip()
