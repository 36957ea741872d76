"""What a player does in the browser app, by clicks and typing only (the test ids of
/work/briefs/testids.md, kept in one place here)."""

from __future__ import annotations

import contextlib
import random
import time
from dataclasses import dataclass, field
from typing import Any

from playwright.sync_api import Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout


def tid(name: str) -> str:
    """A CSS selector for a test id."""
    return f'[data-testid="{name}"]'


# One read of the game screen: version, decision and what can be clicked.
STATE_JS = """() => {
  const g = document.querySelector('[data-testid="game-screen"]');
  if (!g) return null;
  const d = document.querySelector('[data-testid="decision"]');
  const options = d ? [...d.querySelectorAll('[data-testid="option"]')]
      .filter(o => !o.disabled && o.offsetParent !== null)
      .map(o => ({id: o.dataset.optionId, target: o.dataset.target || "",
                  undo: o.dataset.undo === "true"})) : [];
  const targets = [...document.querySelectorAll(
      '[data-testid="board-space"][data-targetable="true"]')].map(e => e.dataset.spaceId);
  return {
    version: Number(g.dataset.version || "0"),
    finished: g.dataset.finished === "true" || !!document.querySelector('[data-testid="result"]'),
    seat: Number(g.dataset.seat || "-1"),
    decision: d ? (d.dataset.decisionId || "") : null,
    prompt: d ? (d.querySelector('[data-testid="decision-prompt"]')?.innerText || "") : "",
    options, targets,
  };
}"""

CHANGED_JS = """([version, decision]) => {
  const g = document.querySelector('[data-testid="game-screen"]');
  if (!g) return false;
  if (g.dataset.finished === "true" || document.querySelector('[data-testid="result"]')) return true;
  const d = document.querySelector('[data-testid="decision"]');
  const now = d ? (d.dataset.decisionId || "") : null;
  return Number(g.dataset.version || "0") > version || now !== decision;
}"""

PAST_VERSION_JS = """(version) => {
  const g = document.querySelector('[data-testid="game-screen"]');
  return !!g && Number(g.dataset.version || "0") > version;
}"""

MY_TURN_JS = """() => {
  const g = document.querySelector('[data-testid="game-screen"]');
  if (!g) return false;
  if (g.dataset.finished === "true" || document.querySelector('[data-testid="result"]')) return true;
  const d = document.querySelector('[data-testid="decision"]');
  return !!d && d.querySelectorAll('[data-testid="option"]:not([disabled])').length > 0;
}"""


# One wait for the next position to act on: the game over, or this seat's enabled options
# at another version or decision than `[version, decision]` (the answer just given). It
# returns the screen read (as STATE_JS), so each decision costs one wait and one click.
NEXT_JS = (
    """([version, decision]) => {
  const s = ("""
    + STATE_JS
    + """)();
  if (!s) return false;
  if (s.finished) return s;
  if (s.version <= version && s.decision === decision) return false;
  return s.decision !== null && s.options.length > 0 ? s : false;
}"""
)


def next_turn(
    page: Page, after: list[Any] | None = None, timeout: float = 60_000
) -> dict[str, Any]:
    """Wait until this seat acts (after the answer given at `after`) or the game is over."""
    handle = page.wait_for_function(NEXT_JS, arg=after or [-1, None], timeout=timeout)
    now: dict[str, Any] = handle.json_value()
    return now


def login_guest(page: Page, name: str) -> None:
    """Open the app and log in as a guest with a display name."""
    page.goto("/")
    page.locator(tid("login-name")).fill(name)
    page.locator(tid("login-guest")).click()
    page.locator(tid("whoami")).wait_for()


def register(page: Page, name: str, password: str) -> None:
    """Open the app and register a player with a password (logged in afterwards)."""
    page.goto("/")
    page.locator(tid("login-name")).fill(name)
    page.locator(tid("login-password")).fill(password)
    page.locator(tid("login-register")).click()
    page.locator(tid("whoami")).wait_for()


def start_bot_table(
    page: Page,
    rules_id: str,
    variant: str,
    bot_kind: str = "random",
    clock: str = "",
    side: str = "",
) -> str:
    """Lobby → play now against bots (on a side, with a turn clock by its id, e.g.
    "live-10"); returns the game id once the game screen shows."""
    page.locator(tid("nav-lobby")).click()
    page.locator(tid("playnow-game")).select_option(rules_id)
    page.locator(tid("playnow-variant")).select_option(variant)
    if side:
        page.locator(tid("playnow-side")).select_option(side)
    if clock:
        page.locator(tid("playnow-clock")).select_option(clock)
    bot = page.locator(tid("playnow-bot-kind"))
    if bot.count():
        bot.select_option(bot_kind)
    page.locator(tid("playnow-start")).click()
    screen = page.locator(tid("game-screen"))
    screen.wait_for(timeout=30_000)
    game_id = screen.get_attribute("data-game-id")
    assert game_id, "the game screen names no game"
    return game_id


def state(page: Page) -> dict[str, Any] | None:
    """The game screen as the tests read it (None when no game screen shows)."""
    result: dict[str, Any] | None = page.evaluate(STATE_JS)
    return result


@dataclass
class PlayStats:
    """How a game was played by clicks."""

    list_clicks: int = 0
    board_clicks: int = 0
    versions: list[int] = field(default_factory=list)
    seconds: float = 0.0


def _click_board(page: Page, target: str) -> bool:
    place = page.locator(f'{tid("board-space")}[data-space-id="{target}"]').first
    try:
        place.click(timeout=3_000)
    except PlaywrightTimeout:
        return False
    return True


def _choose(page: Page, now: dict[str, Any], rng: random.Random, stats: PlayStats) -> None:
    """Make one choice: on the board (now and then, when a place is targetable) or in the list."""
    options = [o for o in now["options"] if not o["undo"]] or now["options"]
    if not options:
        return  # the turn moved on between the wait and the read: read the screen again
    targeted = [t for t in now["targets"] if any(o["target"] == t for o in options)]
    if targeted and (stats.board_clicks < 3 or rng.random() < 0.3):
        target = rng.choice(targeted)
        if _click_board(page, target):
            stats.board_clicks += 1
            after = state(page)
            if after is None or after["decision"] != now["decision"] or not after["options"]:
                return
            # Several options target that place: the list now shows only those.
            narrowed = [o for o in after["options"] if not o["undo"]] or after["options"]
            options = narrowed
    if not options:
        return
    option = rng.choice(options)
    button = page.locator(f'{tid("decision")} {tid("option")}[data-option-id="{option["id"]}"]')
    try:
        button.first.click(timeout=3_000)
    except PlaywrightTimeout:
        return  # the decision moved on while we looked: read the screen again
    stats.list_clicks += 1


def choose(page: Page, now: dict[str, Any], rng: random.Random) -> bool:
    """Make one choice on the screen read as `now`; False when the decision moved on first."""
    stats = PlayStats()
    _choose(page, now, rng, stats)
    return stats.list_clicks + stats.board_clicks > 0


def play_to_end(page: Page, *, seconds: float = 120.0, seed: int = 0) -> PlayStats:
    """Answer every decision of this seat by clicks until the game is over."""
    rng = random.Random(seed)
    stats = PlayStats()
    started = time.monotonic()
    deadline = started + seconds
    after: list[Any] | None = None
    while time.monotonic() < deadline:
        now = next_turn(page, after, timeout=max(1_000, (deadline - time.monotonic()) * 1000))
        if now["finished"]:
            stats.seconds = time.monotonic() - started
            return stats
        stats.versions.append(now["version"])
        clicks = stats.list_clicks + stats.board_clicks
        _choose(page, now, rng, stats)
        answered = stats.list_clicks + stats.board_clicks > clicks
        after = [now["version"], now["decision"]] if answered else None
    raise AssertionError(
        f"the game did not end in {seconds:g}s ({stats.list_clicks} list and "
        f"{stats.board_clicks} board clicks, at version {stats.versions[-1:]})"
    )


def result_text(page: Page) -> str:
    """The result panel's text, once it shows."""
    panel = page.locator(tid("result"))
    panel.wait_for(timeout=30_000)
    return panel.inner_text()


def play_some(page: Page, moves: int, seed: int = 1) -> None:
    """Make a few choices (fewer when the game ends first)."""
    rng = random.Random(seed)
    stats = PlayStats()
    for _ in range(moves):
        page.wait_for_function(MY_TURN_JS, timeout=60_000)
        now = state(page)
        if now is None or now["finished"]:
            return
        _choose(page, now, rng, stats)
        with contextlib.suppress(PlaywrightTimeout):
            page.wait_for_function(
                CHANGED_JS, arg=[now["version"], now["decision"]], timeout=20_000
            )


def winner_seats(page: Page) -> list[int]:
    """The seats the result panel names as winners (rank 0)."""
    raw = page.locator(tid("result")).get_attribute("data-winner-seats") or ""
    return sorted(int(s) for s in raw.split(",") if s.strip())


def play_together(pages: list[Page], *, seconds: float = 180.0, seed: int = 0) -> list[PlayStats]:
    """Several players in one game, each answering its own decisions, until it is over.

    Nobody waits on their own answer (in a simultaneous decision it may wait for the
    others): a player who answered at (version, decision) acts again only once the screen
    shows another version or decision.
    """
    rng = random.Random(seed)
    stats = [PlayStats() for _ in pages]
    answered: list[tuple[int, str | None] | None] = [None for _ in pages]
    answered_at = [0.0 for _ in pages]
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        done = 0
        for n, (page, stat) in enumerate(zip(pages, stats, strict=True)):
            now = state(page)
            assert now is not None, "a game screen went away"
            if now["finished"]:
                done += 1
                continue
            here = (now["version"], now["decision"])
            # An answer the screen has not taken after 5 s is given again.
            waiting = answered[n] == here and time.monotonic() - answered_at[n] < 5.0
            if now["decision"] is None or not now["options"] or waiting:
                continue
            clicks = stat.list_clicks + stat.board_clicks
            _choose(page, now, rng, stat)
            if stat.list_clicks + stat.board_clicks > clicks:
                answered[n], answered_at[n] = here, time.monotonic()
        if done == len(pages):
            return stats
        time.sleep(0.03)
    raise AssertionError(f"the game did not end in {seconds:g}s: {stats}")


def queue(
    page: Page, rules_id: str, variant: str, bot_kind: str = "random", fill_after: int = 1
) -> None:
    """Lobby → matchmaking: queue for a title and variant, bots allowed after `fill_after` s."""
    page.locator(tid("nav-lobby")).click()
    page.locator(tid("queue-game")).select_option(rules_id)
    page.locator(tid("queue-variant")).select_option(variant)
    allow = page.locator(tid("queue-allow-bots"))
    if not allow.is_checked():
        allow.check()
    page.locator(tid("queue-bot-fill-after")).fill(str(fill_after))
    kind = page.locator(tid("queue-bot-kind"))
    if kind.count():
        kind.select_option(bot_kind)
    page.locator(tid("queue-submit")).click()
    page.locator(tid("ticket-status")).wait_for()


def event_keys(page: Page) -> list[tuple[int, int, str]]:
    """(version, index, text) of every event-log item, in page order."""
    items: list[list[Any]] = page.evaluate(
        """() => [...document.querySelectorAll('[data-testid="event-item"]')].map(e =>
            [Number(e.dataset.version), Number(e.dataset.index), e.innerText.trim()])"""
    )
    return [(int(v), int(i), str(t)) for v, i, t in items]


def stored(page: Page, key: str) -> Any:
    """A JSON value the app keeps in localStorage (session, seats)."""
    import json

    raw = page.evaluate("(k) => localStorage.getItem(k)", key)
    return json.loads(raw) if raw else None


def clocks(page: Page) -> dict[int, tuple[bool, int]]:
    """Every seat clock the game screen shows: seat -> (running, milliseconds left)."""
    raw: list[list[Any]] = page.evaluate(
        """() => [...document.querySelectorAll('[data-testid="seat-clock"]')].map(e =>
            [Number(e.dataset.seat), e.dataset.running === "true", Number(e.dataset.ms)])"""
    )
    return {int(seat): (bool(running), int(ms)) for seat, running, ms in raw}


def undo_once(page: Page, *, tries: int = 40, seed: int = 3) -> tuple[str, list[str]]:
    """Play until the undo button is offered, press it, and return the decision it reopens
    (prompt, non-undo option ids) once the page shows it; asserts it is the decision the seat
    answered last, with the same options."""
    rng = random.Random(seed)
    last: tuple[str, list[str]] | None = None
    for _ in range(tries):
        page.wait_for_function(MY_TURN_JS, timeout=60_000)
        now = state(page)
        assert now is not None and not now["finished"], "the game ended before an undo"
        regular = sorted(o["id"] for o in now["options"] if not o["undo"])
        undo = page.locator(tid("undo-button"))
        if last is not None and undo.count() and undo.is_enabled():
            undo.click()
            # the undo is a new version: wait for it, not for any change of the decision panel
            # (under load the panel re-renders while the answer is on its way)
            page.wait_for_function(PAST_VERSION_JS, arg=now["version"], timeout=20_000)
            page.wait_for_function(MY_TURN_JS, timeout=20_000)
            back = state(page)
            assert back is not None
            reopened = (back["prompt"], sorted(o["id"] for o in back["options"] if not o["undo"]))
            assert reopened == last, f"undo reopened {reopened}, not the last answer's {last}"
            return reopened
        answered = (now["prompt"], regular)
        if choose_option(page, now, rng):
            last = answered
            page.wait_for_function(CHANGED_JS, arg=[now["version"], now["decision"]])
        else:
            last = None
    raise AssertionError(f"no undo was offered in {tries} decisions")


def choose_option(page: Page, now: dict[str, Any], rng: random.Random) -> bool:
    """Choose a random non-undo option in the list; False when the decision moved on first."""
    options = [o for o in now["options"] if not o["undo"]]
    if not options:
        return False
    option = rng.choice(options)
    button = page.locator(f'{tid("decision")} {tid("option")}[data-option-id="{option["id"]}"]')
    try:
        button.first.click(timeout=3_000)
    except PlaywrightTimeout:
        return False
    return True
