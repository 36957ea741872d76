"""The match function's results on seeded random pools are pinned: speed work must not change
which tickets match, in which variant, on which seats (digests taken before the speed pass of
issue 21)."""

from __future__ import annotations

import hashlib
import random

import pytest

from warroom.matchmaking import BotChoice, MatchConfig, Ticket, make_matches
from warroom.matchmaking.model import MatchOutcome
from warroom.matchmaking.tests.test_function import BLOCS, FOUR, SOLO, THREE_BOT

LAYOUTS = {layout.variant: layout for layout in (FOUR, THREE_BOT, SOLO, BLOCS)}
SIDES = ("US", "EU", "China", "Russia", "USA", "UK", "USSR", "DDR", "India", "Egypt")


def pool(seed: int, n: int) -> list[Ticket]:
    """A mixed pool: parties of 1-3, variant lists, side preferences, bots, ages up to 60 s."""
    rng = random.Random(seed)
    tickets = []
    for i in range(n):
        size = rng.choices((1, 2, 3), (8, 2, 1))[0]
        variants = tuple(rng.sample(sorted(LAYOUTS), rng.randint(0, 3)))
        tickets.append(
            Ticket(
                f"t{i}",
                tuple(f"p{i}-{k}" for k in range(size)),
                tuple(rng.gauss(25, 6) for _ in range(size)),
                1000.0 - rng.uniform(0, 60),
                variants,
                side_preferences=tuple(rng.sample(SIDES, rng.choice((0, 0, 0, 1, 2)))),
                allow_bots=rng.random() < 0.3,
                bot_fill_after_s=rng.choice((0.0, 10.0, 40.0)),
                fill_bot=BotChoice("heuristic", rng.choice(("easy", "expert"))),
            )
        )
    if seed % 2:  # a duplicated player id and a party too big for any layout: rejected
        tickets.append(Ticket("dup", ("x", "x"), (20.0, 21.0), 990.0))
        tickets.append(Ticket("big", tuple(f"b{k}" for k in range(7)), (25.0,) * 7, 990.0))
    return tickets


def digest(outcome: MatchOutcome) -> str:
    """A stable digest of every proposal (in order), the unmatched and the rejected tickets."""
    parts = [
        repr(
            (
                p.game_id,
                p.variant,
                p.ticket_ids,
                tuple((s.seat, s.side, s.team, s.player_id, s.ticket_id, s.bot) for s in p.seats),
                p.bot_filled,
                round(p.rating_spread, 9),
                round(p.window, 9),
            )
        )
        for p in outcome.proposals
    ]
    parts.append(repr(outcome.unmatched))
    parts.append(repr(sorted(outcome.rejected.items())))
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


GOLDEN: dict[tuple[int, int], str] = {
    (1, 40): "8fbcd9298cc644fa",
    (2, 40): "329d8f3c37de005b",
    (3, 200): "e0a79efee717317e",
    (4, 200): "6ad840aa4d957ff8",
    (5, 1000): "7985dd8128d1ec5b",
    (6, 1000): "9c34b12ad94160b8",
    (7, 3000): "6cd42b136f4453ab",
    (8, 3000): "1834cfdf79157176",
    (9, 64): "e9e84b3cb70759f9",
    (10, 500): "d240ee8018ce50d2",
}


@pytest.mark.parametrize(("seed", "n"), sorted(GOLDEN))
def test_same_matches_as_before_the_speed_pass(seed: int, n: int) -> None:
    outcome = make_matches(pool(seed, n), LAYOUTS, 1000.0, MatchConfig())
    assert outcome.proposals, "the pool should form matches"
    assert digest(outcome) == GOLDEN[(seed, n)]


def test_golden_covers_several_pools() -> None:
    assert len(GOLDEN) >= 8
