"""Live play in the browser: matchmaking of two players, a spectator who never sees a secret,
a reconnect that neither loses nor doubles an event, and the replay viewer."""

from __future__ import annotations

import random
import time
from collections.abc import Callable

import grpc
import pytest
from playwright.sync_api import Page

from tests.web import leaks, ui
from tests.web.api import Backend
from tests.web.conftest import Session, artifacts_dir
from warroom.v1 import game_pb2

PlaySession = Callable[..., Session]
# Whole games by clicks on a shared 2-core machine: more than the suite's default 300 s.
pytestmark = pytest.mark.timeout(600)


def test_two_players_queue_are_matched_and_play_to_the_end(
    new_session: PlaySession, backend: Backend
) -> None:
    # New Cold War for four: two players queue, both accepting bots after a few seconds; the
    # matchmaker seats them together and fills the two other powers with bots.
    pages = []
    for name in ("queuer-ann", "queuer-bob"):
        player = new_session(name)
        ui.login_guest(player.page, name)
        pages.append(player.page)
    for page in pages:
        ui.queue(page, "ncw", "4p", fill_after=8)
    games = set()
    for page in pages:
        page.locator(ui.tid("game-screen")).wait_for(timeout=60_000)
        games.add(page.locator(ui.tid("game-screen")).get_attribute("data-game-id"))
    assert len(games) == 1, f"the two players were not matched into one game: {games}"
    seats = {ui.state(page)["seat"] for page in pages}  # type: ignore[index]
    assert len(seats) == 2 and -1 not in seats, seats
    stats = ui.play_together(pages, seconds=240)
    assert all(s.list_clicks > 0 for s in stats), stats
    game_id = games.pop()
    summary = backend.summary(game_id or "", "ncw")
    assert summary.status == game_pb2.GAME_STATUS_FINISHED
    for page in pages:
        assert ui.winner_seats(page) == sorted(s.seat for s in summary.result.seats if s.rank == 0)


@pytest.mark.parametrize(
    ("rules_id", "variant"),
    [
        pytest.param("ncw", "2p-us-russia", id="new-cold-war"),
        pytest.param("qmg_cw", "3p", id="qmg-cold-war"),
        pytest.param("qmg_sf", "first_game", id="south-front"),
    ],
)
def test_spectator_sees_no_secret(
    new_session: PlaySession, backend: Backend, rules_id: str, variant: str
) -> None:
    # The game: a player driven by this test (over gRPC) against random bots, public.
    host = backend.login(f"spectated-{rules_id}")
    table = backend.bot_table(host.token, rules_id, variant)
    game_id, token = table.assignment.game_id, table.assignment.seat_token
    seats = len(backend.view(game_id, token).seats)
    # The spectator finds it in the list of live games and opens it, by clicks.
    watcher = new_session(f"spectator-{rules_id}")
    page = watcher.page
    recorder = leaks.Recorder(page)
    ui.login_guest(page, f"watcher-{rules_id}")
    page.locator(ui.tid("nav-watch")).click()
    row = page.locator(f'{ui.tid("live-game-row")}[data-game-id="{game_id}"]')
    row.wait_for(timeout=30_000)
    row.locator(ui.tid("live-game-watch")).click()
    screen = page.locator(ui.tid("game-screen"))
    screen.wait_for()
    assert screen.get_attribute("data-seat") == "-1"
    page.locator(ui.tid("board-space")).first.wait_for()
    rng = random.Random(3)
    checked = 0
    deadline = time.monotonic() + 150
    while time.monotonic() < deadline:
        view = backend.view(game_id, token)
        if view.HasField("result") and view.result.seats:
            break
        owed = [o for o in view.decision.options if o.kind != 2]  # not undo
        if not owed:
            time.sleep(0.05)
            continue
        # The game waits for this seat: compare the page with every seat's secrets now.
        page.wait_for_function(
            "(v) => Number(document.querySelector('[data-testid=\"game-screen\"]')"
            ".dataset.version) >= v",
            arg=view.version,
            timeout=15_000,
        )
        secret = leaks.Secrets()
        for seat in range(seats):
            seat_token = token if seat == view.seat else backend.bot_token(game_id, seat)
            try:
                secret.add(leaks.secrets_of(backend.view(game_id, seat_token)))
            except grpc.RpcError:
                continue  # a seat the rules automate has no token of its own
        cards, objectives, mine = leaks.dom_ids(page)
        assert mine == 0, "a spectator page shows hand or objective items"
        assert not cards & secret.cards, f"secret cards in the page: {cards & secret.cards}"
        assert not objectives & secret.objectives, objectives & secret.objectives
        checked += 1
        if checked == 3:
            page.screenshot(path=str(artifacts_dir() / f"{rules_id}-spectator.png"))
        backend.act(game_id, token, rng)
    assert checked >= 10, f"only {checked} positions were compared"
    received = list(recorder.views())
    assert any(method == "WatchGame" for method, _ in received), "no stream was recorded"
    assert len(received) >= checked // 2
    for method, seat_view in received:
        assert seat_view.seat == -1, f"{method} gave the spectator seat {seat_view.seat}'s view"
        got = leaks.secrets_of(seat_view)
        assert not got.cards and not got.objectives, f"{method} carried secrets: {got}"


def test_reconnect_misses_and_doubles_nothing(new_session: PlaySession, backend: Backend) -> None:
    player = new_session("reconnecting")
    page = player.page
    ui.login_guest(page, "flaky-wifi")
    game_id = ui.start_bot_table(page, "qmg_sf", "first_game")
    ui.play_some(page, moves=6)
    # Cut the network as soon as a choice of ours passes the turn to the bot, so the bot
    # moves while the page is offline; those versions reach the page only by resuming.
    outages = []
    rng = random.Random(5)
    token = ui.stored(page, "warroom.seats")[game_id]["token"]
    for _ in range(20):
        page.wait_for_function(ui.MY_TURN_JS, timeout=60_000)
        now = ui.state(page)
        assert now is not None
        if now["finished"]:
            break
        if not ui.choose(page, now, rng):
            continue
        page.wait_for_function(ui.CHANGED_JS, arg=[now["version"], now["decision"]])
        owed = backend.view(game_id, token)
        if owed.decision.options or owed.HasField("result"):
            continue  # still our turn (or over): choose again
        player.context.set_offline(True)
        page.locator(f'{ui.tid("conn-status")}:not([data-state="online"])').wait_for()
        time.sleep(3)
        outages.append((owed.version, backend.summary(game_id, "qmg_sf").version))
        player.context.set_offline(False)
        page.locator(f'{ui.tid("conn-status")}[data-state="online"]').wait_for(timeout=30_000)
        if outages[-1][1] > outages[-1][0]:
            break
    assert outages and outages[-1][1] > outages[-1][0], f"no outage missed a move: {outages}"
    moved_to = outages[-1][1]
    ui.play_to_end(page, seconds=150, seed=9)
    keys = ui.event_keys(page)
    pairs = [(v, i) for v, i, _ in keys]
    assert len(pairs) == len(set(pairs)), "an event is shown twice"
    # Every event the authority has for this seat from the first version the page showed on.
    first = min(v for v, _ in pairs)
    seat = ui.stored(page, "warroom.seats")[game_id]
    stream = backend.game.WatchGame(
        game_pb2.WatchGameRequest(game_id=game_id, token=seat["token"], from_version=first - 1)
    )
    expected: set[tuple[int, int]] = set()
    final = 0
    for update in stream:
        expected |= {(update.version, index) for index in range(len(update.events))}
        final = update.version
    assert final >= moved_to
    shown = {pair for pair in pairs if pair[0] >= first}
    missing = sorted(expected - shown)
    assert not missing, f"events missing after the reconnect: {missing[:5]}"
    extra = sorted(shown - expected)
    assert not extra, f"events shown that the authority never sent: {extra[:5]}"


def _finish_by_clicks(page: Page, rules_id: str, variant: str) -> str:
    game_id = ui.start_bot_table(page, rules_id, variant)
    ui.play_to_end(page, seconds=150)
    return game_id


def test_replay_viewer_steps_to_the_final_state(new_session: PlaySession) -> None:
    player = new_session("replayer")
    page = player.page
    ui.login_guest(page, "rewinder")
    game_id = _finish_by_clicks(page, "qmg_sf", "first_game")
    final = ui.state(page)
    assert final is not None
    final_board = page.locator(ui.tid("board")).text_content()
    page.locator(ui.tid("result-replay")).click()
    viewer = page.locator(ui.tid("replay-viewer"))
    viewer.wait_for()
    # Every version of the game, up to the one the game screen ended on.
    page.wait_for_function(
        "(v) => document.querySelector('[data-testid=\"replay-viewer\"]').dataset.lastVersion"
        " === String(v)",
        arg=final["version"],
    )
    last = final["version"]
    first = int(viewer.get_attribute("data-first-version") or "0")
    at_version = (
        "(v) => document.querySelector('[data-testid=\"replay-viewer\"]').dataset.version"
        " === String(v)"
    )
    if first != int(viewer.get_attribute("data-version") or "-1"):
        page.locator(ui.tid("replay-first")).click()
    page.wait_for_function(at_version, arg=first)
    boards = [page.locator(ui.tid("board")).text_content()]
    for step in range(1, 4):
        page.locator(ui.tid("replay-next")).click()
        page.wait_for_function(at_version, arg=first + step)
        boards.append(page.locator(ui.tid("board")).text_content())
    page.locator(ui.tid("replay-prev")).click()
    page.wait_for_function(at_version, arg=first + 2)
    assert page.locator(ui.tid("board")).text_content() == boards[2]
    jump = page.locator(ui.tid("replay-jump"))
    jump.fill(str(last // 2))
    jump.press("Enter")
    page.wait_for_function(at_version, arg=last // 2)
    page.locator(ui.tid("replay-last")).click()
    page.wait_for_function(at_version, arg=last)
    assert page.locator(ui.tid("board")).text_content() == final_board
    page.screenshot(path=str(artifacts_dir() / f"replay-{game_id[:8]}.png"))
    # Each view the replay allows: the player's own seat (with its hand), and the public view
    # (no hand, none of those cards named), at the same version.
    seat = str(final["seat"])
    jump.fill("4")
    jump.press("Enter")
    page.wait_for_function(at_version, arg=4)
    screen = page.locator(ui.tid("game-screen"))
    assert screen.get_attribute("data-seat") == seat
    hand = {
        int(c)
        for c in page.locator(ui.tid("hand-card")).evaluate_all(
            "els => els.map(e => e.dataset.cardId)"
        )
    }
    assert hand, "the seat's own replay view shows no hand"
    choices = page.locator(f"{ui.tid('replay-seat')} option").all_inner_texts()
    assert any("your seat" in c for c in choices) and any("public" in c for c in choices), choices
    page.locator(ui.tid("replay-seat")).select_option(
        label=next(c for c in choices if "public" in c)
    )
    page.locator(f'{ui.tid("game-screen")}[data-seat="-1"]').wait_for()
    page.wait_for_function(at_version, arg=4)
    cards, _, mine = leaks.dom_ids(page)
    assert mine == 0 and not cards & hand, f"the public replay view shows the hand: {cards & hand}"
    page.locator(ui.tid("replay-seat")).select_option(
        label=next(c for c in choices if "your seat" in c)
    )
    page.locator(f'{ui.tid("game-screen")}[data-seat="{seat}"]').wait_for()
    page.wait_for_function(at_version, arg=4)
    assert page.locator(ui.tid("hand-card")).count() == len(hand)
