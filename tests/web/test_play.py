"""A player logs in, plays a table of each title against bots to the end by clicks (on the
board and in the option list) and sees the result; the authority agrees the game is over."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Page

from tests.web import colours, leaks, ui
from tests.web.api import Backend
from tests.web.conftest import Session, artifacts_dir
from warroom.v1 import game_pb2

# Short variants with fast bots (`random`), so each game ends in well under a minute. In
# QMG: The Cold War the player takes the Non-Aligned Orange deck of the 4-player game: of
# every seating, the one with the fewest decisions (random play: ~111 of ~620, against ~149
# of ~740 for the 5-player game's first seat), so the fewest browser round trips.
TITLES = [
    pytest.param("ncw", "2p-us-russia", "", id="new-cold-war"),
    pytest.param("qmg_cw", "4p", "Non-Aligned (Orange)", id="qmg-cold-war"),
    pytest.param("qmg_sf", "first_game", "", id="south-front"),
]


# Whole games by clicks on a shared 2-core machine: more than the suite's default 300 s.
pytestmark = pytest.mark.timeout(600)


@pytest.mark.parametrize(("rules_id", "variant", "side"), TITLES)
def test_play_a_bot_table_to_the_end(
    new_session: Callable[..., Session], backend: Backend, rules_id: str, variant: str, side: str
) -> None:
    player = new_session(f"{rules_id}-player")
    page = player.page
    ui.login_guest(page, f"clicker-{rules_id}")
    game_id = ui.start_bot_table(page, rules_id, variant, side=side)
    page.locator(ui.tid("board-space")).first.wait_for()
    # A few moves in, the board has pieces on it: that is the title's screenshot.
    ui.play_some(page, moves=4)
    page.screenshot(path=str(artifacts_dir() / f"{rules_id}-board.png"))
    problems = colours.problems(page)
    assert not problems, problems
    for track in TRACKS[rules_id]:
        assert page.locator(ui.tid(track)).count(), f"no {track} on the {rules_id} screen"
    _check_hand(page, backend, game_id)
    if rules_id == "ncw":
        center = page.locator(f"{ui.tid('negotiating-center')} li").all_inner_texts()
        assert sorted(line.split(":")[0] for line in center) == sorted(
            ["US", "EU", "China", "Russia"]
        ), f"the negotiating center does not list each power: {center}"
    # Undo, where it is offered, reopens the decision the seat answered last.
    ui.undo_once(page)
    stats = ui.play_to_end(page, seconds=150, seed=hash(rules_id) & 0xFFFF)
    print(
        f"{rules_id}: {stats.list_clicks} list and {stats.board_clicks} board choices in "
        f"{stats.seconds:.1f}s"
    )
    assert stats.list_clicks > 0, "no option was chosen in the list"
    assert stats.board_clicks > 0, "no option was chosen on the board"
    text = ui.result_text(page)
    page.screenshot(path=str(artifacts_dir() / f"{rules_id}-result.png"))
    summary = backend.summary(game_id, rules_id)
    assert summary.status == game_pb2.GAME_STATUS_FINISHED, summary
    assert summary.result.seats, summary
    assert summary.result.reason and summary.result.reason.lower() in text.lower(), (
        f"the result screen does not say why the game ended ({summary.result.reason!r}): {text!r}"
    )
    winners = ui.winner_seats(page)
    assert winners == sorted(s.seat for s in summary.result.seats if s.rank == 0)
    events = ui.event_keys(page)
    assert len(events) >= 10, f"only {len(events)} events in the log"
    unreadable = [e for e in events if len(e[2]) < 3 or "{" in e[2] or "None" in e[2]]
    assert not unreadable, f"events without a readable text: {unreadable[:5]}"


TRACKS = {
    "ncw": ["track-victory", "track-prestige", "track-media"],
    "qmg_cw": ["track-victory"],
    "qmg_sf": ["track-victory"],
}

HAND_JS = """() => [...document.querySelectorAll('[data-testid="hand-card"]')].map(e => [
  Number(e.dataset.cardId), e.querySelector('.card-name')?.innerText || '',
  [...e.querySelectorAll('.card-text')].map(t => t.innerText).join(' ')])"""


def _check_hand(page: Page, backend: Backend, game_id: str) -> None:
    """My hand on the page is the hand of my seat's view, each card with its full text."""
    token = ui.stored(page, "warroom.seats")[game_id]["token"]
    for _ in range(20):
        # the view, the hand and the seat panels read at one version: a bot seat may act
        # between reads (teammates and reaction windows), so retry until the page stood still
        page.wait_for_function(ui.MY_TURN_JS, timeout=60_000)
        before = ui.state(page)
        assert before is not None
        view = backend.view(game_id, token)
        shown = page.evaluate(HAND_JS)
        shown_counts = dict(page.evaluate(SEAT_COUNTS_JS))
        after = ui.state(page)
        if after is not None and view.version == before["version"] == after["version"]:
            break
        time.sleep(0.2)
    else:
        raise AssertionError("the page never caught up with the seat's view")
    typed = leaks.typed(view)
    if typed.DESCRIPTOR.full_name == "warroom.games.qmg_cw.v1.View":
        hand = [card for seat in typed.seats for card in seat.hand]  # type: ignore[attr-defined]
    else:
        hand = list(typed.hand)  # type: ignore[attr-defined]
    assert sorted(card for card, _, _ in shown) == sorted(hand), (shown, hand)
    assert hand, "an empty hand proves nothing"
    for card, name, text in shown:
        assert name and not name.startswith("Card "), f"card {card} has no catalogue name"
        assert len(text) > 10, f"card {card} ({name}) shows no full text: {text!r}"
    # Every seat's public information: its hand count and its face-down cards (backs).
    expected = _public_counts(typed, view)
    assert shown_counts == expected, f"seat panels {shown_counts}, views {expected}"


SEAT_COUNTS_JS = """() => [...document.querySelectorAll('[data-testid="seat-panel"]')].map(p => [
  Number(p.dataset.seat), [Number(p.querySelector('[data-testid="hand-count"]')?.innerText ?? -1),
  p.querySelectorAll('[data-testid="card-back"]').length]])"""


def _public_counts(typed: Any, view: game_pb2.SeatView) -> dict[int, list[int]]:
    """seat -> [hand count, face-down cards shown (at most 6)] from the seat's typed view."""
    name = typed.DESCRIPTOR.full_name
    out: dict[int, list[int]] = {}
    for seat in view.seats:
        i = seat.index
        if name == "warroom.games.ncw.v1.View":
            power = next(p for p in typed.powers if p.power == seat.side)
            placed = [x for x in typed.placements if x.power == seat.side]
            down = int(bool(placed and placed[0].placed and not placed[0].visible))
            out[i] = [power.hand_count, down]
        elif name == "warroom.games.qmg_cw.v1.View":
            out[i] = [typed.seats[i].hand_count, min(typed.seats[i].espionage_count, 6)]
        else:
            out[i] = [typed.hand_sizes[i], 0]
    return out


def test_the_colour_check_tells_red_green_apart() -> None:
    # The check itself can fail: red/green pairs are flagged, the board's Okabe-Ito pairs not.
    assert colours.seen_apart("#d62728", "#2ca02c") < colours.MIN_DELTA_E
    assert colours.seen_apart("#ff0000", "#00aa00") < colours.MIN_DELTA_E
    assert colours.seen_apart("#0072B2", "#D55E00") > colours.MIN_DELTA_E


FOCUS_JS = """() => {
  const el = document.activeElement;
  if (!el || el.dataset.testid !== "option") return null;
  const style = getComputedStyle(el);
  const ring = style.outlineStyle !== "none" && parseFloat(style.outlineWidth) > 0;
  return {id: el.dataset.optionId, visible: el.matches(":focus-visible"),
          ring: ring || style.boxShadow !== "none"};
}"""


def test_phone_screen_and_keyboard_choices(new_session: Callable[..., Session]) -> None:
    player = new_session("phone", viewport=(390, 844))
    page = player.page
    ui.login_guest(page, "thumbs")
    # Every page of the app fits the phone's width (no sideways scrolling).
    for nav in ("nav-lobby", "nav-games", "nav-watch", "nav-leaderboard"):
        page.locator(ui.tid(nav)).click()
        page.wait_for_timeout(300)
        width = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= 391, f"{nav}: the page is {width}px wide on a 390px screen"
    ui.start_bot_table(page, "qmg_sf", "first_game")
    page.locator(ui.tid("board-space")).first.wait_for()
    for _ in range(4):
        page.wait_for_function(ui.MY_TURN_JS, timeout=60_000)
        now = ui.state(page)
        assert now is not None
        if now["finished"]:
            break
        width = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= 391, f"the page is {width}px wide on a 390px screen"
        options = page.locator(f"{ui.tid('decision')} {ui.tid('option')}")
        options.first.focus()
        # The keyboard moves the focus along the list (for a lone option: away and back).
        if options.count() > 1:
            page.keyboard.press("Tab")
        else:
            page.keyboard.press("Shift+Tab")
            page.keyboard.press("Tab")
        focused = page.evaluate(FOCUS_JS)
        assert focused is not None, "the keyboard focus left the option list"
        assert focused["visible"] and focused["ring"], f"no visible focus: {focused}"
        page.keyboard.press("Enter")
        page.wait_for_function(ui.CHANGED_JS, arg=[now["version"], now["decision"]])
    page.screenshot(path=str(artifacts_dir() / "phone-qmg_sf.png"), full_page=True)
    # A place on the board is keyboard-operable too: focused (visibly), Enter chooses it (or
    # narrows the list to its options).
    rng = random.Random(6)
    for _ in range(12):
        now = ui.next_turn(page)
        if now["finished"]:
            pytest.skip("the game ended before a place could be chosen by keyboard")
        if now["targets"]:
            break
        assert ui.choose(page, now, rng)
        page.wait_for_function(ui.CHANGED_JS, arg=[now["version"], now["decision"]])
    else:
        raise AssertionError("no decision offered a place on the board")
    place = page.locator(f'{ui.tid("board-space")}[data-space-id="{now["targets"][0]}"]')
    page.keyboard.press("Tab")  # keyboard modality, so the next focus shows as :focus-visible
    place.focus()
    assert place.evaluate("e => e.matches(':focus-visible') && document.activeElement === e")
    page.keyboard.press("Enter")
    page.wait_for_function(
        """([version, decision]) => !!document.querySelector('.focus-note') ||
            Number(document.querySelector('[data-testid="game-screen"]').dataset.version) > version
            || document.querySelector('[data-testid="decision"]')?.dataset.decisionId !== decision""",
        arg=[now["version"], now["decision"]],
    )


# A slow network for SubmitAction only (the page's own fetch, wrapped before the app loads).
SLOW_SUBMIT_JS = """() => {
  const original = window.fetch;
  window.__slowSubmitMs = 0;
  window.fetch = async (input, init) => {
    const url = typeof input === "string" ? input : input.url;
    if (window.__slowSubmitMs && url.includes("/warroom.v1.GameService/SubmitAction"))
      await new Promise((r) => setTimeout(r, window.__slowSubmitMs));
    return original(input, init);
  };
}"""

OPTIONS_JS = """() => [...document.querySelectorAll(
  '[data-testid="decision"] [data-testid="option"], [data-testid="undo-button"]')]
  .map(o => o.disabled)"""


def test_one_answer_per_decision_and_a_stale_view_is_read_again(
    new_session: Callable[..., Session], backend: Backend
) -> None:
    player = new_session("fast-clicker")
    page = player.page
    page.add_init_script(f"({SLOW_SUBMIT_JS})()")
    submits: list[game_pb2.SubmitActionRequest] = []

    def record(request: object) -> None:
        url = getattr(request, "url", "")
        if url.endswith("/warroom.v1.GameService/SubmitAction"):
            body = getattr(request, "post_data_buffer", None) or b""
            submits.append(game_pb2.SubmitActionRequest.FromString(body))

    page.on("request", record)
    ui.login_guest(page, "double-clicker")
    game_id = ui.start_bot_table(page, "qmg_sf", "first_game")
    token = ui.stored(page, "warroom.seats")[game_id]["token"]
    # 1. While an answer is on its way, nothing else can be chosen: every option is disabled
    # and the board offers no target; clicking again sends nothing.
    page.wait_for_function(ui.MY_TURN_JS, timeout=60_000)
    now = ui.state(page)
    assert now is not None and len(now["options"]) >= 2, now
    page.evaluate("() => { window.__slowSubmitMs = 1500; }")
    first, second = now["options"][0]["id"], now["options"][1]["id"]
    option = f"{ui.tid('decision')} {ui.tid('option')}"
    page.locator(f'{option}[data-option-id="{first}"]').click()
    disabled = page.evaluate(OPTIONS_JS)
    assert disabled and all(disabled), f"options stay clickable during the answer: {disabled}"
    during = ui.state(page)
    assert during is not None and not during["options"] and not during["targets"], during
    page.evaluate(
        '(id) => document.querySelector(`[data-testid="option"][data-option-id="${id}"]`)?.click()',
        second,
    )
    page.wait_for_function(ui.CHANGED_JS, arg=[now["version"], now["decision"]])
    page.evaluate("() => { window.__slowSubmitMs = 0; }")
    answers = [s for s in submits if s.expected_version == now["version"]]
    assert [a.option_id for a in answers] == [first], f"answers sent: {answers}"
    # 2. A view the game has moved past (its stream held back, the seat answered elsewhere):
    # the page's answer is refused STALE_VERSION; it reads the view again, with no error.
    ui.play_some(page, moves=1, seed=4)
    page.wait_for_function(ui.MY_TURN_JS, timeout=60_000)
    page.route("**/warroom.v1.GameService/WatchGame", lambda route: route.abort())
    player.context.set_offline(True)  # drops the open stream; its resumes are aborted
    page.locator(f'{ui.tid("conn-status")}:not([data-state="online"])').wait_for()
    player.context.set_offline(False)
    page.wait_for_function(ui.MY_TURN_JS, timeout=60_000)
    held = ui.state(page)
    assert held is not None and not held["finished"] and held["options"], held
    assert backend.act(game_id, token, random.Random(8)), "the seat owed nothing"
    ahead = backend.view(game_id, token).version
    assert ahead > held["version"]
    page.locator(f'{option}[data-option-id="{held["options"][0]["id"]}"]').click()
    page.wait_for_function(
        "(v) => Number(document.querySelector('[data-testid=\"game-screen\"]')"
        ".dataset.version) >= v",
        arg=ahead,
        timeout=10_000,
    )
    stale = [s for s in submits if s.expected_version == held["version"]]
    assert len(stale) == 1, f"the stale answer was not sent once: {stale}"
    assert page.locator(ui.tid("error-banner")).count() == 0, page.locator(
        ui.tid("error-banner")
    ).inner_text()
    assert page.locator(ui.tid("decision-error")).count() == 0
    # The stream comes back and the game goes on.
    page.unroute("**/warroom.v1.GameService/WatchGame")
    page.locator(f'{ui.tid("conn-status")}[data-state="online"]').wait_for(timeout=30_000)
    ui.play_some(page, moves=3, seed=5)
    assert page.locator(ui.tid("error-banner")).count() == 0
