"""The director's bulk paths: COPY text escaping, assignment JSON, chunked commits."""

from __future__ import annotations

import json
import time
import uuid

from sqlalchemy.engine import Engine

from services.lobby.director import Director
from services.lobby.store import LobbyStore, MatchRecord, SeatPlan
from services.lobby.tests.harness import Harness
from warroom.matchmaking import BotChoice, Proposal, SeatAssignment, Ticket
from warroom.v1 import game_pb2


def test_record_matches_round_trips_awkward_text(lobby_migrated: Engine) -> None:
    store = LobbyStore(lobby_migrated)
    awkward = ["back\\slash", "tab\there", "new\nline", "cr\rhere", "ünï \\N", "plain"]
    records = []
    for i, name in enumerate(awkward):
        mid = f"bulk-{uuid.uuid4().hex[:12]}"
        records.append(
            MatchRecord(
                mid,
                "toy",
                "duel",
                f"game-{mid}",
                [
                    SeatPlan(0, "North", "N", player_id=f"pl\\{i}", display_name=name),
                    SeatPlan(1, "So\tuth", "S", bot=BotChoice("heur\\istic", "be\nginner")),
                ],
                [f"tok\\{i}.0", f"tok\t{i}.1"],
                "spec\\token" if i % 2 else "",
            )
        )
    store.record_matches(records)
    for i, record in enumerate(records):
        table = store.table(record.match_id)
        assert (table.status, table.source, table.game_id) == ("started", "match", record.game_id)
        assert table.spectator_token == (record.spectator_token or None)
        human, bot = table.seats
        assert (human.player_id, human.display_name) == (f"pl\\{i}", awkward[i])
        assert (human.seat_token, bot.seat_token) == (f"tok\\{i}.0", f"tok\t{i}.1")
        assert (bot.side, bot.bot_kind, bot.bot_difficulty) == (
            "So\tuth",
            "heur\\istic",
            "be\nginner",
        )
        assert bot.player_id is None and not bot.automated
    # recording them again is idempotent (the per-match fallback)
    store.record_matches(records)
    assert store.table(records[0].match_id).game_id == records[0].game_id


async def test_assignment_json_is_what_json_dumps_writes(harness: Harness) -> None:
    director = harness.node.lobby.director
    proposal = Proposal(
        "toy",
        "duel",
        ("t1", "t2"),
        (
            SeatAssignment(0, 'Nö"rth', "N", player_id="p\\1", ticket_id="t1"),
            SeatAssignment(1, "South", "S", player_id="p2", ticket_id="t1"),
            SeatAssignment(2, "East", "E", bot=BotChoice()),
            SeatAssignment(3, "West", "W", player_id="p3\n", ticket_id="t2"),
        ),
        bot_filled=True,
        rating_spread=0.0,
        window=3.0,
    )
    created = game_pb2.CreateGameResponse(game_id="g", seat_tokens=["a", 'b"', "c", "d\t"])
    got = director.assignments(proposal, created)
    want = {
        "t1": {
            "p\\1": {"seat": 0, "side": 'Nö"rth', "token": "a"},
            "p2": {"seat": 1, "side": "South", "token": 'b"'},
        },
        "t2": {"p3\n": {"seat": 3, "side": "West", "token": "d\t"}},
    }
    assert got == {t: json.dumps(a, separators=(",", ":")) for t, a in want.items()}


async def test_many_chunks_commit_and_a_matched_player_queues_again(harness: Harness) -> None:
    """More matches than one commit chunk: every one is recorded and assigned, and a player
    whose ticket was matched may enqueue a new one (the stale active-ticket key yields)."""
    h = harness
    wired = h.node.lobby
    queue = wired.queue
    director = Director(queue, wired.store, wired.games, wired.lobby, "g", 2, record_chunk=3)
    queue_name = f"bulk{uuid.uuid4().hex[:6]}"
    now = time.time()
    count = 2 * (3 * 3 + 2)
    tickets = [
        Ticket(f"tk-{queue_name}-{i}", (f"pl-{queue_name}-{i}",), (25.0,), now - 1, ("duel",))
        for i in range(count)
    ]
    for ticket in tickets:
        await queue.enqueue(ticket, "toy", queue_name, now + 600, 700)
    report = await director.cycle("toy", queue_name)
    assert report.started == count // 2 and report.failed == report.aborted == 0
    games = set()
    for ticket in tickets:
        fields = await queue.get(ticket.ticket_id)
        assert fields is not None and fields["status"] == "matched"
        games.add(fields["game_id"])
        assert h.node.lobby.store.table_by_game(fields["game_id"]) is not None
    assert len(games) == count // 2
    assert await queue.active_ticket(tickets[0].player_ids[0]) is None
    again = Ticket("tk-again", tickets[0].player_ids, (25.0,), time.time(), ("duel",))
    await queue.enqueue(again, "toy", queue_name, time.time() + 600, 700)
    assert await queue.active_ticket(tickets[0].player_ids[0]) == "tk-again"
