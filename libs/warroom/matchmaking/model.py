"""Matchmaking data: tickets, seat layouts of variants, match proposals and tunables.

Everything here is plain immutable data; the match function (`warroom.matchmaking.function`)
turns a pool of tickets into proposals, and a director outside this package claims the
tickets and creates the games (the split Open Match makes between match functions and
directors).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class BotChoice:
    """A bot for a seat: its kind and difficulty."""

    kind: str = "heuristic"
    difficulty: str = "intermediate"

    @property
    def pseudo_player_id(self) -> str:
        """The rated pseudo-player this bot plays as (one per kind and difficulty)."""
        return f"bot:{self.kind}:{self.difficulty}"


@dataclass(frozen=True, slots=True)
class Ticket:
    """A matchmaking request of one player or a party.

    `player_ids` starts with the ticket's owner; a party plays on one team (bloc) where
    the game has teams. `ratings` holds one skill estimate per player, in the same order.
    `variants` lists the acceptable variants in preference order (empty: every variant
    with at least two human seats). `created_at` and the tunables are in seconds.
    """

    ticket_id: str
    player_ids: tuple[str, ...]
    ratings: tuple[float, ...]
    created_at: float
    variants: tuple[str, ...] = ()
    side_preferences: tuple[str, ...] = ()
    allow_bots: bool = False
    bot_fill_after_s: float = 0.0
    fill_bot: BotChoice = field(default_factory=BotChoice)
    names: tuple[str, ...] = ()

    @property
    def size(self) -> int:
        """How many players the ticket seats."""
        return len(self.player_ids)

    @property
    def rating(self) -> float:
        """The party's mean rating."""
        return sum(self.ratings) / len(self.ratings) if self.ratings else 0.0

    def waited(self, now: float) -> float:
        """Seconds waited at `now`."""
        return max(0.0, now - self.created_at)


@dataclass(frozen=True, slots=True)
class SeatSlot:
    """One seat of a variant: index, side, team, and whether the rules automate it."""

    index: int
    side: str
    team: str
    automated: bool = False


@dataclass(frozen=True, slots=True)
class VariantLayout:
    """The seat structure of one variant, as the match function needs it.

    `official_bot` plays the seats the variant itself automates (e.g. the EU in a
    three-player New Cold War).
    """

    game_id: str
    variant: str
    seats: tuple[SeatSlot, ...]
    official_bot: BotChoice = field(default_factory=BotChoice)
    human_seats: tuple[SeatSlot, ...] = field(init=False, compare=False, repr=False)
    humans: int = field(init=False, compare=False, repr=False)
    has_teams: bool = field(init=False, compare=False, repr=False)
    _teams: tuple[tuple[str, tuple[SeatSlot, ...]], ...] = field(
        init=False, compare=False, repr=False
    )
    # the human seats of each team, teams in order of their first seat
    team_groups: tuple[tuple[SeatSlot, ...], ...] = field(init=False, compare=False, repr=False)
    _capacities: tuple[int, ...] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        human = tuple(s for s in self.seats if not s.automated)
        grouped: dict[str, list[SeatSlot]] = {}
        for seat in human:
            grouped.setdefault(seat.team, []).append(seat)
        teams = tuple((team, tuple(seats)) for team, seats in grouped.items())
        has_teams = any(len(seats) > 1 for _, seats in teams)
        object.__setattr__(self, "human_seats", human)
        object.__setattr__(self, "humans", len(human))
        object.__setattr__(self, "has_teams", has_teams)
        object.__setattr__(self, "_teams", teams)
        object.__setattr__(self, "team_groups", tuple(seats for _, seats in teams))
        capacities = tuple(len(seats) for _, seats in teams) if has_teams else (len(human),)
        object.__setattr__(self, "_capacities", capacities)

    def teams(self) -> dict[str, tuple[SeatSlot, ...]]:
        """Human seats grouped by team, teams in order of their first seat."""
        return dict(self._teams)

    def capacities(self) -> tuple[int, ...]:
        """Seats per packing bin: per team when the game has teams (some team has more than
        one human seat, and parties must share a team), else one bin for every seat."""
        return self._capacities


@dataclass(frozen=True, slots=True)
class SeatAssignment:
    """Who plays one seat of a proposed match: a ticket's player or a bot."""

    seat: int
    side: str
    team: str
    player_id: str | None = None
    ticket_id: str | None = None
    bot: BotChoice | None = None


@dataclass(frozen=True, slots=True)
class Proposal:
    """One proposed match: the variant, the tickets it consumes and every seat filled.

    `rating_spread` is the difference between the highest and lowest team mean rating
    (players only); `window` the rating window the anchor ticket had when it formed.
    """

    game_id: str
    variant: str
    ticket_ids: tuple[str, ...]
    seats: tuple[SeatAssignment, ...]
    bot_filled: bool
    rating_spread: float
    window: float

    def players(self) -> dict[str, int]:
        """Player id to seat index."""
        return {s.player_id: s.seat for s in self.seats if s.player_id is not None}


@dataclass(frozen=True, slots=True)
class MatchConfig:
    """Tunables of the match function.

    The rating window half-width starts at `window_base` and grows by `window_per_s` per
    second waited, up to `window_max`. Variants with fewer human seats than the ticket's
    largest acceptable one are tried only after `accept_fewer_after_s` (windows widen before
    the table shrinks). `side_weight` is the rating-point cost of one unmet side preference
    when seats are assigned; `max_scan` bounds how many neighbours one anchor examines.
    """

    window_base: float = 3.0
    window_per_s: float = 0.5
    window_max: float = 50.0
    accept_fewer_after_s: float = 15.0
    side_weight: float = 2.0
    max_scan: int = 64

    def window(self, waited_s: float) -> float:
        """The rating window half-width after waiting `waited_s` seconds."""
        return min(self.window_max, self.window_base + self.window_per_s * max(0.0, waited_s))


@dataclass(frozen=True, slots=True)
class MatchOutcome:
    """What one run of the match function produced."""

    proposals: tuple[Proposal, ...]
    unmatched: tuple[str, ...]
    rejected: Mapping[str, str] = field(default_factory=dict)


def default_variants(layouts: Sequence[VariantLayout]) -> tuple[str, ...]:
    """Variants a ticket without a variant list accepts: those with two or more human seats."""
    return tuple(layout.variant for layout in layouts if layout.humans >= 2)
