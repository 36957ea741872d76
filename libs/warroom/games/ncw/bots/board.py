"""The position as an official bot reads it: public board facts only.

The core state is translated into a `Board` (see `adapter.py`); the flowchart and the
other bot procedures are pure functions of a `Board`, so they can be tested on positions
built by hand from the rulebook's worked examples.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

BLOC: Mapping[str, str] = {"US": "blue", "EU": "blue", "China": "red", "Russia": "red"}
ALLY: Mapping[str, str] = {"US": "EU", "EU": "US", "China": "Russia", "Russia": "China"}
MEDIA_SIGN: Mapping[str, int] = {"blue": 1, "red": -1}


@dataclass(frozen=True, slots=True)
class CountryFacts:
    """The printed facts of one country."""

    name: str
    region: str
    vp: int
    orbit: str | None = None
    stability: Mapping[str, int] = field(default_factory=dict)
    _lower: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # the lower rating, computed once (`rating` falls back on it for every missing bloc)
        object.__setattr__(self, "_lower", min(self.stability.values(), default=1))

    @property
    def kind(self) -> str:
        """regional_power, geo or non_geo (from the VP value)."""
        return {3: "regional_power", 2: "geo"}.get(self.vp, "non_geo")

    def rating(self, bloc: str) -> int:
        """The stability this bloc pays (ORBIT countries have one rating per bloc)."""
        return self.stability.get(bloc, self._lower)

    @property
    def lower(self) -> int:
        """The lower of the two ratings."""
        return self._lower


@dataclass(frozen=True, slots=True)
class Board:
    """The public position: what every seat may see, which is all a bot reads.

    `round` counts from 1 (the core's `NcwState.round` counts from 0).
    """

    facts: Mapping[str, CountryFacts]
    control: Mapping[str, str] = field(default_factory=dict)
    tokens: Mapping[str, str] = field(default_factory=dict)
    vp: Mapping[str, int] = field(default_factory=dict)
    prestige: Mapping[str, int] = field(default_factory=dict)
    media: int = 0
    media_reserve: Mapping[str, int] = field(default_factory=dict)
    op_reserve: Mapping[str, int] = field(default_factory=dict)
    coups_left: Mapping[str, int] = field(default_factory=dict)
    turn: int = 1
    round: int = 1
    access: Mapping[str, frozenset[str]] = field(default_factory=dict)
    bots: frozenset[str] = frozenset()
    attacks: frozenset[tuple[str, str]] = frozenset()
    region_modifiers: Mapping[tuple[str, str], int] = field(default_factory=dict)
    region_min: Mapping[str, int] = field(default_factory=dict)
    perm_destab: Mapping[str, str] = field(default_factory=dict)
    blocked: Mapping[str, frozenset[str]] = field(default_factory=dict)
    memo: dict[tuple[str, str], tuple[int, int]] = field(
        default_factory=dict, compare=False, repr=False
    )

    def may_influence(self, power: str, country: str) -> bool:
        """Whether no standing prohibition (permanent event) stops `power` playing OPs in `country`."""
        blocked = self.blocked.get(power)
        return blocked is None or country not in blocked

    def controller(self, country: str) -> str | None:
        """The power controlling a country, or None."""
        return self.control.get(country)

    def can_enter(self, power: str, region: str) -> bool:
        """Whether a power has access to a region (missing entry: full access)."""
        allowed = self.access.get(power)
        return allowed is None or region in allowed

    def countries_in(self, region: str) -> list[str]:
        """The countries of a region."""
        return [name for name, f in self.facts.items() if f.region == region]

    def with_changes(self, **changes: object) -> Board:
        """A copy with some fields replaced (and an empty memo)."""
        return replace(self, memo={}, **changes)  # type: ignore[arg-type]

    def stats(self, power: str, region: str) -> tuple[int, int]:
        """(countries, VPs) of a power in a region, computed once per board."""
        memo = self.memo
        if not memo:
            _all_stats(self)
        return memo.get((power, region)) or (0, self.region_modifiers.get((power, region), 0))


def token_effect(board: Board, country: str, power: str) -> int:
    """The +1/-1/0 a stability token makes to `power` moving one POS in `country` (4.3.2.3)."""
    token = board.tokens.get(country)
    bloc = BLOC[power]
    if token is None:
        return -1 if board.perm_destab.get(country) == bloc else 0
    holder = board.control.get(country)
    stabilizing = holder is not None and BLOC[holder] == token
    if token == bloc and not stabilizing:
        return -1
    if token != bloc and stabilizing:
        return 1
    return 0


def pos_cost(board: Board, country: str, power: str) -> int:
    """OPs for `power` to move one POS in `country`, tokens included (4.3.2.1, 4.3.2.3)."""
    facts = board.facts[country]
    return max(1, facts.rating(BLOC[power]) + token_effect(board, country, power))


def coup_cost(board: Board, country: str, power: str) -> int | None:
    """OPs for a coup d'etat by `power` in `country`, or None when no coup is possible (4.3.2.2)."""
    holder = board.control.get(country)
    if holder is None or holder == power:
        return None
    facts = board.facts[country]
    bloc = BLOC[power]
    rating = facts.rating(bloc)
    effect = token_effect(board, country, power)
    opposing_orbit = facts.orbit is not None and BLOC[facts.orbit] != bloc
    if rating >= 4 or (rating == 3 and not (facts.orbit is not None and effect < 0)):
        return None
    first = max(1, rating + effect)
    second = facts.lower if opposing_orbit else rating
    return first + second


def _all_stats(board: Board) -> None:
    memo = board.memo
    facts = board.facts
    for (power, region), value in board.region_modifiers.items():
        memo[(power, region)] = (0, value)
    for country, holder in board.control.items():
        f = facts[country]
        key = (holder, f.region)
        count, total = memo.get(key, (0, 0))
        total += f.vp
        if f.orbit is not None and BLOC[f.orbit] != BLOC[holder]:
            total += 1
        memo[key] = (count + 1, total)
    memo[("", "")] = (0, 0)


def region_vps(board: Board, power: str, region: str) -> int:
    """A power's VPs in a region: country values, +1 per opposing-bloc ORBIT, region modifiers."""
    return board.stats(power, region)[1]


def region_count(board: Board, power: str, region: str) -> int:
    """How many countries of a region a power controls."""
    return board.stats(power, region)[0]


def controls_region(board: Board, power: str, region: str, minimum: int) -> bool:
    """Region control (2.1.2.1): the minimum countries and more VPs than each rival."""
    if region_count(board, power, region) < minimum:
        return False
    mine = region_vps(board, power, region)
    return all(mine > region_vps(board, rival, region) for rival in BLOC if rival != power)


def reinforced(board: Board, power: str, region: str, minimum: int) -> bool:
    """Reinforced control (6.2.1.2): minimum + 1 countries and 2 VPs more than each rival."""
    stats = board.stats  # region_count and region_vps, inlined (the flowchart asks often)
    count, mine = stats(power, region)
    if count < minimum + 1:
        return False
    for rival in BLOC:  # noqa: SIM110 (a loop: no generator frame on this hot path)
        if rival != power and mine < stats(rival, region)[1] + 2:
            return False
    return True
