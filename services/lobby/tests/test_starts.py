"""The CreateGame request of a match: every seat as the authority must see it."""

from __future__ import annotations

from services.lobby.starts import create_request
from warroom.matchmaking import BotChoice, Proposal, SeatAssignment
from warroom.v1 import common_pb2, game_pb2


def test_create_request_carries_players_names_and_bots() -> None:
    bot = BotChoice("heuristic", "expert")
    proposal = Proposal(
        "ncw",
        "3p",
        ("t1", "t2"),
        (
            SeatAssignment(0, "US", "west", "p1", "t1"),
            SeatAssignment(1, "EU", "west", None, None, bot),
            SeatAssignment(2, "Russia", "east", "p2", "t2"),
            SeatAssignment(3, "China", "east"),
        ),
        bot_filled=True,
        rating_spread=0.0,
        window=3.0,
    )
    request = create_request("m1", proposal, {"p1": "Ann"})
    assert request.request_id == "match:m1" and request.rules_id == "ncw"
    assert request.variant == "3p" and request.allow_spectators
    assert list(request.seats) == [
        game_pb2.SeatSpec(player_id="p1", display_name="Ann"),
        game_pb2.SeatSpec(bot=common_pb2.BotSpec(kind="heuristic", difficulty="expert")),
        game_pb2.SeatSpec(player_id="p2", display_name=""),
        game_pb2.SeatSpec(),
    ]
    assert request.seats[1].HasField("bot") and not request.seats[0].HasField("bot")
