"""A player logs in, plays a table of each title against bots to the end by clicks (on the
board and in the option list) and sees the result; the authority agrees the game is over."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.web import ui
from tests.web.api import Backend
from tests.web.conftest import Session, artifacts_dir
from warroom.v1 import game_pb2

# Short variants with fast bots (`random`), so each game ends in well under a minute.
TITLES = [
    pytest.param("ncw", "2p-us-russia", id="new-cold-war"),
    pytest.param("qmg_cw", "5p", id="qmg-cold-war"),
    pytest.param("qmg_sf", "first_game", id="south-front"),
]


# Whole games by clicks on a shared 2-core machine: more than the suite's default 300 s.
pytestmark = pytest.mark.timeout(600)


@pytest.mark.parametrize(("rules_id", "variant"), TITLES)
def test_play_a_bot_table_to_the_end(
    new_session: Callable[..., Session], backend: Backend, rules_id: str, variant: str
) -> None:
    player = new_session(f"{rules_id}-player")
    page = player.page
    ui.login_guest(page, f"clicker-{rules_id}")
    game_id = ui.start_bot_table(page, rules_id, variant)
    page.locator(ui.tid("board-space")).first.wait_for()
    # A few moves in, the board has pieces on it: that is the title's screenshot.
    ui.play_some(page, moves=4)
    page.screenshot(path=str(artifacts_dir() / f"{rules_id}-board.png"))
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
