"""The match function on fake variant tables: windows, parties, sides, balance, bots."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from warroom.matchmaking import (
    BotChoice,
    MatchConfig,
    SeatSlot,
    Ticket,
    VariantLayout,
    make_matches,
    validate,
)
from warroom.ratings import RatedSeat, SkillRating, rate, rating_team

FOUR = VariantLayout(
    "fake",
    "4p",
    tuple(SeatSlot(i, side, side) for i, side in enumerate(("US", "EU", "China", "Russia"))),
)
THREE_BOT = VariantLayout(
    "fake",
    "3p",
    (
        SeatSlot(0, "US", "US"),
        SeatSlot(1, "EU", "EU", automated=True),
        SeatSlot(2, "China", "China"),
        SeatSlot(3, "Russia", "Russia"),
    ),
    BotChoice("official", "expert"),
)
SOLO = VariantLayout(
    "fake",
    "solo",
    (
        SeatSlot(0, "US", "US"),
        SeatSlot(1, "EU", "EU", automated=True),
        SeatSlot(2, "China", "China", automated=True),
        SeatSlot(3, "Russia", "Russia", automated=True),
    ),
)
BLOCS = VariantLayout(
    "blocs",
    "6p",
    tuple(
        SeatSlot(i, side, team)
        for i, (side, team) in enumerate(
            [
                ("USA", "West"),
                ("UK", "West"),
                ("USSR", "East"),
                ("DDR", "East"),
                ("India", "Neutral"),
                ("Egypt", "Neutral"),
            ]
        )
    ),
)
FAKE = {v.variant: v for v in (FOUR, THREE_BOT, SOLO)}
BLOC_GAME = {"6p": BLOCS}


def ticket(tid: str, rating: float = 25.0, at: float = 0.0, **kw: object) -> Ticket:
    players = kw.pop("players", (f"p-{tid}",))
    assert isinstance(players, tuple)
    return Ticket(tid, players, tuple(rating for _ in players), at, **kw)  # type: ignore[arg-type]


def test_four_players_fill_four_distinct_seats() -> None:
    tickets = [ticket(str(i), 25 + i * 0.1) for i in range(4)]
    outcome = make_matches(tickets, FAKE, now=1.0)
    assert len(outcome.proposals) == 1
    proposal = outcome.proposals[0]
    assert proposal.variant == "4p"
    assert sorted(proposal.players().values()) == [0, 1, 2, 3]
    assert not proposal.bot_filled


def test_window_widens_with_waiting() -> None:
    tickets = [ticket("a", 10), ticket("b", 40), ticket("c", 40.5), ticket("d", 41)]
    assert make_matches(tickets, FAKE, now=1.0, config=MatchConfig()).proposals == ()
    later = make_matches(tickets, FAKE, now=100.0, config=MatchConfig())
    assert len(later.proposals) == 1


def test_three_cannot_fill_four_until_fewer_accepted() -> None:
    tickets = [ticket(str(i), at=0.0, variants=("4p", "3p")) for i in range(3)]
    config = MatchConfig(accept_fewer_after_s=10)
    assert make_matches(tickets, FAKE, now=5, config=config).proposals == ()
    (proposal,) = make_matches(tickets, FAKE, now=11, config=config).proposals
    assert proposal.variant == "3p"
    assert proposal.seats[1].bot == BotChoice("official", "expert")


def test_default_variants_exclude_solitaire() -> None:
    outcome = make_matches([ticket("a")], FAKE, now=1000)
    assert outcome.proposals == ()
    (solo,) = make_matches([ticket("a", variants=("solo",))], FAKE, now=0).proposals
    assert solo.variant == "solo"


def test_bot_fill_after_waiting() -> None:
    lone = ticket("a", allow_bots=True, bot_fill_after_s=5, fill_bot=BotChoice("ismcts", "expert"))
    assert make_matches([lone], FAKE, now=4).proposals == ()
    (proposal,) = make_matches([lone], FAKE, now=5).proposals
    assert proposal.variant == "4p" and proposal.bot_filled
    bots = [s.bot for s in proposal.seats if s.player_id is None]
    assert bots == [BotChoice("ismcts", "expert")] * 3


def test_bot_fill_takes_other_bot_friendly_tickets_only() -> None:
    tickets = [
        ticket("a", allow_bots=True, bot_fill_after_s=0),
        ticket("b", at=1, allow_bots=True, bot_fill_after_s=60),
        ticket("c", at=2),
    ]
    (proposal,) = make_matches(tickets, FAKE, now=3).proposals
    assert set(proposal.ticket_ids) == {"a", "b"}
    assert make_matches(tickets, FAKE, now=3).unmatched == ("c",)


def test_party_in_one_bloc_and_teams_balanced() -> None:
    tickets = [
        ticket("party", 30, players=("x", "y")),
        ticket("s1", 20),
        ticket("s2", 40),
        ticket("s3", 29),
        ticket("s4", 31),
    ]
    (proposal,) = make_matches(tickets, BLOC_GAME, now=100).proposals
    team_of = {s.player_id: s.team for s in proposal.seats}
    assert team_of["x"] == team_of["y"]
    assert team_of["p-s1"] == team_of["p-s2"]
    assert proposal.rating_spread < 1.0


def test_party_too_big_for_a_bloc_is_rejected() -> None:
    big = ticket("big", players=("a", "b", "c"))
    assert validate(big, BLOC_GAME) is not None
    assert validate(big, FAKE) is None
    assert "big" in make_matches([big], BLOC_GAME, now=0).rejected


def test_side_preferences_older_first() -> None:
    tickets = [
        ticket("old", at=0, side_preferences=("Russia",)),
        ticket("new", at=1, side_preferences=("Russia", "China")),
        ticket("c", at=2),
        ticket("d", at=3, side_preferences=("US",)),
    ]
    (proposal,) = make_matches(tickets, FAKE, now=4).proposals
    side = {s.player_id: s.side for s in proposal.seats}
    assert side == {"p-old": "Russia", "p-new": "China", "p-d": "US", "p-c": "EU"}


def test_bloc_side_preference_chooses_team() -> None:
    tickets = [ticket(str(i), 25, at=i) for i in range(5)]
    tickets.append(ticket("5", 25, at=5, side_preferences=("Egypt",)))
    (proposal,) = make_matches(tickets, BLOC_GAME, now=10).proposals
    assert {s.player_id: s.side for s in proposal.seats}["p-5"] == "Egypt"


def test_oldest_ticket_anchors_first() -> None:
    tickets = [ticket(str(i), 25, at=float(i)) for i in range(6)]
    (proposal,) = make_matches(tickets, FAKE, now=10).proposals
    assert set(proposal.ticket_ids) == {"0", "1", "2", "3"}


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.floats(0, 50),
            st.floats(0, 100),
            st.integers(1, 2),
            st.booleans(),
            st.sampled_from([(), ("4p",), ("3p", "4p"), ("solo",)]),
        ),
        max_size=60,
    ),
    st.floats(0, 200),
)
def test_proposals_are_disjoint_and_complete(
    specs: list[tuple[float, float, int, bool, tuple[str, ...]]], now: float
) -> None:
    tickets = [
        Ticket(
            f"t{i}",
            tuple(f"t{i}-{k}" for k in range(size)),
            (rating,) * size,
            at,
            variants,
            allow_bots=bots,
            bot_fill_after_s=30,
        )
        for i, (rating, at, size, bots, variants) in enumerate(specs)
    ]
    outcome = make_matches(tickets, FAKE, now=now)
    seen: set[str] = set()
    by_id = {t.ticket_id: t for t in tickets}
    for proposal in outcome.proposals:
        assert not seen & set(proposal.ticket_ids)
        seen |= set(proposal.ticket_ids)
        layout = FAKE[proposal.variant]
        assert [s.seat for s in proposal.seats] == list(range(len(layout.seats)))
        players = [s.player_id for s in proposal.seats if s.player_id]
        expected = [p for t in proposal.ticket_ids for p in by_id[t].player_ids]
        assert sorted(players) == sorted(expected)
        for s in proposal.seats:
            assert (s.player_id is None) == (s.bot is not None)
        if proposal.bot_filled:
            assert all(by_id[t].allow_bots for t in proposal.ticket_ids)
    assert seen | set(outcome.unmatched) | set(outcome.rejected) == set(by_id)


def test_ten_thousand_tickets_in_one_cycle_fast() -> None:
    import time

    rng = random.Random(7)
    tickets = [ticket(str(i), rng.gauss(25, 5), at=rng.uniform(0, 30)) for i in range(10_000)]
    start = time.perf_counter()
    outcome = make_matches(tickets, FAKE, now=30)
    elapsed = time.perf_counter() - start
    assert len(outcome.proposals) >= 2400
    assert elapsed < 10.0, "one cycle must stay well under a second on an idle machine"


def test_ratings_winner_up_loser_down_team_and_multifaction() -> None:
    seats = [
        RatedSeat("a", "West", 0),
        RatedSeat("b", "West", 0),
        RatedSeat("c", "East", 1),
        RatedSeat("d", "East", 1),
    ]
    new = rate(seats, {})
    assert new["a"].mu > 25 > new["c"].mu
    assert new["a"].mu == new["b"].mu
    assert all(r.games == 1 for r in new.values())
    four = rate([RatedSeat(x, x, i) for i, x in enumerate("wxyz")], {})
    assert four["w"].mu > four["x"].mu > four["y"].mu > four["z"].mu


def test_ratings_of_an_individual_victory_game_do_not_credit_the_ally() -> None:
    from warroom.engine.registry import get_rules

    ncw = get_rules("ncw")
    finish = [("us", "blue", 0), ("eu", "blue", 3), ("cn", "red", 1), ("ru", "red", 2)]

    def rated(team_victory: bool) -> dict[str, SkillRating]:
        return rate(
            [
                RatedSeat(who, rating_team(bloc, i, team_victory), rank)
                for i, (who, bloc, rank) in enumerate(finish)
            ],
            {},
        )

    assert rated(True)["eu"].mu > 25
    individual = rated(ncw.team_victory)
    assert individual["us"].mu > individual["cn"].mu > individual["ru"].mu > individual["eu"].mu
    assert individual["eu"].mu < 25


def test_ratings_bot_in_several_seats_moves_once() -> None:
    bot = BotChoice("heuristic", "expert").pseudo_player_id
    seats = [RatedSeat("human", "US", 0)] + [RatedSeat(bot, s, 1) for s in ("EU", "CN", "RU")]
    new = rate(seats, {bot: SkillRating(30, 2, 10)})
    assert new["human"].mu > 25
    assert new[bot].mu < 30 and new[bot].games == 11


def test_rating_needs_two_teams() -> None:
    import pytest

    with pytest.raises(ValueError, match="two teams"):
        rate([RatedSeat("a", "x", 0), RatedSeat("b", "x", 0)], {})
