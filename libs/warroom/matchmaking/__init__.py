"""Pure matchmaking: tickets, variant seat layouts, the match function and seat assignment.

No I/O here: the lobby's director loads the pool from Redis, calls `make_matches` (or
`iter_matches`, which yields the proposals as they form), claims the proposed tickets
atomically and creates the games.
"""

from warroom.matchmaking.function import (
    acceptable_variants,
    fits,
    iter_matches,
    make_matches,
    validate,
)
from warroom.matchmaking.layouts import layouts_for
from warroom.matchmaking.model import (
    BotChoice,
    MatchConfig,
    MatchOutcome,
    Proposal,
    SeatAssignment,
    SeatSlot,
    Ticket,
    VariantLayout,
    default_variants,
)

__all__ = [
    "BotChoice",
    "MatchConfig",
    "MatchOutcome",
    "Proposal",
    "SeatAssignment",
    "SeatSlot",
    "Ticket",
    "VariantLayout",
    "acceptable_variants",
    "default_variants",
    "fits",
    "iter_matches",
    "layouts_for",
    "make_matches",
    "validate",
]
