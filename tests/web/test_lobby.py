"""The lobby in the browser, by clicks: register and log in with a password, a private table
joined by its invite code (with every seat's clock counting down, and My games listing the
games where it is my turn first, with my clock), open tables, a party invitation accepted,
and the leaderboard of each title."""

from __future__ import annotations

import random
import time
from collections.abc import Callable

import pytest
from playwright.sync_api import Page

from tests.web import ui
from tests.web.api import Backend
from tests.web.conftest import Session, artifacts_dir
from warroom.v1 import lobby_pb2

PlaySession = Callable[..., Session]
pytestmark = pytest.mark.timeout(400)


def test_register_then_log_in_with_the_password(new_session: PlaySession) -> None:
    page = new_session("registrant").page
    ui.register(page, "rita-registers", "correct horse battery")
    first = ui.stored(page, "warroom.session")
    assert first["guest"] is False, first
    page.locator(ui.tid("nav-logout")).click()
    page.locator(ui.tid("login-page")).wait_for()
    # A wrong password is refused with a readable error; the right one logs the same player in.
    page.locator(ui.tid("login-name")).fill("rita-registers")
    page.locator(ui.tid("login-password")).fill("wrong password!")
    page.locator(ui.tid("login-submit")).click()
    page.locator(ui.tid("login-error")).wait_for()
    page.locator(ui.tid("login-password")).fill("correct horse battery")
    page.locator(ui.tid("login-submit")).click()
    page.locator(ui.tid("whoami")).wait_for()
    again = ui.stored(page, "warroom.session")
    assert again["playerId"] == first["playerId"] and again["guest"] is False


def _my_games(page: Page) -> list[tuple[str, bool, bool]]:
    """(game id, my turn, clock shown) of the live rows of My games, in page order."""
    rows: list[list[object]] = page.evaluate(
        """() => [...document.querySelectorAll(
              '[data-testid="mygame-row"][data-finished="false"]')].map(r =>
            [r.dataset.gameId, r.dataset.myTurn === "true",
             !!r.querySelector('[data-testid="mygame-clock"]')])"""
    )
    return [(str(g), bool(t), bool(c)) for g, t, c in rows]


def test_private_table_by_invite_with_clocks_and_my_games(new_session: PlaySession) -> None:
    ann = new_session("ann").page
    bob = new_session("bob").page
    ui.login_guest(ann, "ann-hosts")
    ui.login_guest(bob, "bob-joins")
    # Ann's first game: against a bot, on a clock; the bot (Allies) opens, then Ann owes.
    waiting_game = ui.start_bot_table(ann, "qmg_sf", "first_game", clock="live-10")
    ann.wait_for_function(ui.MY_TURN_JS, timeout=60_000)
    # Ann's private table, South Front first game as the Allies (who decide first), a clock.
    ann.locator(ui.tid("nav-lobby")).click()
    ann.locator(ui.tid("playnow-game")).select_option("qmg_sf")
    ann.locator(ui.tid("playnow-variant")).select_option("first_game")
    ann.locator(ui.tid("playnow-side")).select_option("Allies")
    ann.locator(ui.tid("playnow-clock")).select_option("live-10")
    ann.locator(ui.tid("private-create")).click()
    invite = ann.locator(ui.tid("invite-code")).inner_text().strip()
    assert ":" in invite, f"a private table's invite carries its code: {invite!r}"
    # Bob joins with the invite code; Ann starts the table.
    bob.locator(ui.tid("nav-lobby")).click()
    bob.locator(ui.tid("join-code-input")).fill(invite)
    bob.locator(ui.tid("join-code-submit")).click()
    bob.locator(f"{ui.tid('table-seats')} >> text=bob-joins").wait_for()
    ann.locator(f"{ui.tid('table-seats')} >> text=bob-joins").wait_for()
    ann.locator(ui.tid("table-start")).click()
    games = set()
    for page in (ann, bob):
        screen = page.locator(ui.tid("game-screen"))
        screen.wait_for(timeout=30_000)
        games.add(screen.get_attribute("data-game-id"))
    assert len(games) == 1, games
    game_id = games.pop() or ""
    allies, axis = 1, 0
    assert ui.state(ann)["seat"] == allies and ui.state(bob)["seat"] == axis  # type: ignore[index]
    # Both pages show both seats' clocks: the Allies' runs down (also on Bob's page: another
    # seat's clock), the Axis clock stands at its full 10 minutes.
    for page in (ann, bob):
        page.wait_for_function(
            "() => document.querySelectorAll('[data-testid=\"seat-clock\"]').length === 2"
        )
    before = ui.clocks(bob)
    time.sleep(2.2)
    after = ui.clocks(bob)
    assert before[allies][0] and after[allies][0], f"the Allies clock does not run: {after}"
    assert before[allies][1] - after[allies][1] >= 1_500, (before, after)
    assert 590_000 < after[allies][1] <= 600_000, after
    assert after[axis] == (False, 600_000), f"the Axis clock should stand at 10:00: {after}"
    assert ui.clocks(ann)[allies][0] and not ui.clocks(ann)[axis][0]
    # While the Allies decide, Bob's page waits for them (and offers him nothing).
    assert "Allies" in bob.locator(ui.tid("waiting")).inner_text()
    assert bob.locator(f"{ui.tid('decision')} {ui.tid('option')}").count() == 0
    ann.screenshot(path=str(artifacts_dir() / "clocks-qmg_sf.png"))
    # Ann answers: her clock stops (with the 10 s increment), Bob's starts, on both pages.
    now = ui.state(ann)
    assert now is not None and ui.choose(ann, now, random.Random(2))
    for page in (ann, bob):
        page.wait_for_function(
            """() => { const c = document.querySelector(
                '[data-testid="seat-clock"][data-seat="0"]');
              return !!c && c.dataset.running === "true"; }"""
        )
        shown = ui.clocks(page)
        assert not shown[allies][0], shown
        assert 590_000 < shown[allies][1] <= 610_000, shown
    # My games (Ann): the bot game where she owes comes before the newer private game where
    # Bob owes, and shows her running clock.
    ann.locator(ui.tid("nav-games")).click()
    ann.locator(ui.tid("my-games-page")).wait_for()
    deadline = time.monotonic() + 30
    while True:
        rows = {g: (turn, clock) for g, turn, clock in _my_games(ann)}
        if rows.get(waiting_game) == (True, True) and rows.get(game_id, (True,))[0] is False:
            break
        assert time.monotonic() < deadline, f"My games never showed both games: {rows}"
        time.sleep(0.5)
    order = _my_games(ann)
    turns = [turn for _, turn, _ in order]
    assert turns == sorted(turns, reverse=True), f"a game where it is my turn comes later: {order}"
    ids = [g for g, _, _ in order]
    assert ids.index(waiting_game) < ids.index(game_id), order
    ann.screenshot(path=str(artifacts_dir() / "my-games.png"))


def test_open_tables_and_party_invitation(new_session: PlaySession) -> None:
    ann = new_session("leader").page
    bob = new_session("friend").page
    ui.login_guest(ann, "lea-leads")
    ui.login_guest(bob, "fred-follows")
    for page in (ann, bob):
        page.locator(ui.tid("nav-lobby")).click()
    # A party: Ann invites Bob by his player id, Bob accepts, both see the party.
    bob_id = bob.locator(ui.tid("my-player-id")).inner_text().strip()
    assert bob_id
    ann.locator(ui.tid("invite-player-input")).fill(bob_id)
    ann.locator(ui.tid("invite-send")).click()
    ann.locator(f"{ui.tid('party-members')} >> text=not yet accepted").wait_for()
    invitation = bob.locator(ui.tid("invitation-row"))
    invitation.wait_for(timeout=15_000)
    assert "lea-leads" in invitation.inner_text()
    bob.locator(ui.tid("invitation-accept")).click()
    bob.locator(f"{ui.tid('party-members')} >> text=lea-leads (leader)").wait_for()
    ann.locator(f"{ui.tid('party-members')} >> text=not yet accepted").wait_for(
        state="detached", timeout=15_000
    )
    members = ann.locator(ui.tid("party-members")).inner_text()
    assert "fred-follows" in members and "lea-leads" in members, members
    # An open table: Ann creates a public New Cold War table; Bob finds it and joins it.
    ann.locator(ui.tid("playnow-game")).select_option("ncw")
    ann.locator(ui.tid("playnow-variant")).select_option("2p-us-russia")
    ann.locator(ui.tid("public-create")).click()
    table_id = ann.locator(ui.tid("invite-code")).inner_text().strip()
    assert table_id and ":" not in table_id, table_id
    row = bob.locator(f'{ui.tid("open-table-row")}[data-table-id="{table_id}"]')
    row.wait_for(timeout=20_000)
    assert "lea-leads" in row.inner_text()
    row.locator(ui.tid("open-table-join")).click()
    bob.locator(f"{ui.tid('table-seats')} >> text=fred-follows").wait_for()
    ann.locator(f"{ui.tid('table-seats')} >> text=fred-follows").wait_for(timeout=15_000)
    for page in (bob, ann):
        page.locator(ui.tid("table-leave")).click()
        page.locator(ui.tid("join-table")).wait_for()


def _leaderboard_names(page: Page) -> list[str]:
    names: list[str] = page.evaluate(
        """() => [...document.querySelectorAll('[data-testid="leaderboard-row"]')]
            .map(r => r.dataset.playerName)"""
    )
    return names


def _shown_title(page: Page, rules_id: str) -> None:
    page.locator(f'{ui.tid("leaderboard")}[data-rules-id="{rules_id}"]').wait_for()


def test_leaderboard_per_title(new_session: PlaySession, backend: Backend) -> None:
    page = new_session("ranked").page
    ui.register(page, "lena-ladder", "a long password")
    # A rated South Front game ended by resigning, by clicks.
    ui.start_bot_table(page, "qmg_sf", "first_game")
    page.locator(ui.tid("resign")).click()
    page.locator(ui.tid("resign-confirm")).click()
    ui.result_text(page)
    page.locator(ui.tid("nav-leaderboard")).click()
    board = page.locator(ui.tid("leaderboard-game"))
    deadline = time.monotonic() + 90
    while True:
        board.select_option("qmg_sf")
        _shown_title(page, "qmg_sf")
        if "lena-ladder" in _leaderboard_names(page):
            break
        assert time.monotonic() < deadline, "the finished game never reached the leaderboard"
        board.select_option("ncw")  # another title and back: the page asks the lobby again
        _shown_title(page, "ncw")
        page.wait_for_timeout(1_000)
    page.locator(f"{ui.tid('my-rating')} >> text=Your rating").wait_for()
    shown = _leaderboard_names(page)
    assert shown == backend.leaderboard("qmg_sf")[: len(shown)], shown
    page.screenshot(path=str(artifacts_dir() / "leaderboard-qmg_sf.png"))
    # Per title: New Cold War's board is its own, without her.
    board.select_option("ncw")
    _shown_title(page, "ncw")
    page.locator(f"{ui.tid('my-rating')} >> text=no rated game of this title").wait_for()
    shown = _leaderboard_names(page)
    assert "lena-ladder" not in shown
    assert shown == backend.leaderboard("ncw")[: len(shown)], shown


def _options(page: Page, testid: str) -> list[str]:
    values: list[str] = page.locator(f"{ui.tid(testid)} option").evaluate_all(
        "els => els.map(e => e.value)"
    )
    return values


def test_play_now_with_a_bot_chosen_per_seat(new_session: PlaySession, backend: Backend) -> None:
    page = new_session("picky").page
    ui.login_guest(page, "piet-picks")
    page.locator(ui.tid("nav-lobby")).click()
    page.locator(ui.tid("playnow-game")).select_option("ncw")
    page.locator(ui.tid("playnow-variant")).select_option("4p")
    page.locator(ui.tid("playnow-side")).select_option("US")
    # Seats 1..3 are bots: each gets its own kind and difficulty.
    kinds = _options(page, "playnow-seat-1-kind")
    assert len(kinds) >= 2, kinds
    wanted: dict[int, tuple[str, str]] = {}
    for seat in (1, 2, 3):
        kind = kinds[seat % len(kinds)]
        page.locator(ui.tid(f"playnow-seat-{seat}-kind")).select_option(kind)
        levels = _options(page, f"playnow-seat-{seat}-difficulty")
        level = levels[-1 if seat % 2 else 0] if levels else ""
        if levels:
            page.locator(ui.tid(f"playnow-seat-{seat}-difficulty")).select_option(level)
        wanted[seat] = (kind, level)
    assert len({kind for kind, _ in wanted.values()}) >= 2, wanted
    page.locator(ui.tid("playnow-start")).click()
    screen = page.locator(ui.tid("game-screen"))
    screen.wait_for(timeout=30_000)
    game_id = screen.get_attribute("data-game-id") or ""
    token = ui.stored(page, "warroom.seats")[game_id]["token"]
    seats = backend.view(game_id, token).seats
    for seat, (kind, level) in wanted.items():
        assert seats[seat].is_bot and seats[seat].bot.kind == kind, (seat, seats[seat])
        if level:
            assert seats[seat].bot.difficulty == level, (seat, seats[seat])
    assert not seats[0].is_bot
    # The seat panels name each bot's kind.
    for seat, (kind, _) in wanted.items():
        panel = page.locator(f'{ui.tid("seat-panel")}[data-seat="{seat}"]')
        assert kind in panel.inner_text(), panel.inner_text()
    page.locator(ui.tid("resign")).click()
    page.locator(ui.tid("resign-confirm")).click()
    ui.result_text(page)


def test_queue_shows_its_live_status_and_cancels(
    new_session: PlaySession, backend: Backend
) -> None:
    page = new_session("queuer").page
    ui.login_guest(page, "quinn-queues")
    ui.queue(page, "qmg_sf", "first_game", fill_after=600)
    status = page.locator(ui.tid("ticket-status"))
    page.locator(f'{ui.tid("ticket-status")}[data-status="searching"] >> text=in pool').wait_for(
        timeout=20_000
    )
    token = ui.stored(page, "warroom.session")["token"]
    tickets = backend.tickets(token)
    assert [t.status for t in tickets] == [lobby_pb2.TICKET_STATUS_SEARCHING], tickets
    assert "waited" in status.inner_text()
    page.locator(ui.tid("queue-cancel")).click()
    page.locator(ui.tid("queue-submit")).wait_for()
    assert status.count() == 0
    after = backend.tickets(token)
    assert not [t for t in after if t.status == lobby_pb2.TICKET_STATUS_SEARCHING], after
