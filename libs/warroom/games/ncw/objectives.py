"""Objective conditions (objectives.yaml) evaluated against a game state.

An objective is fulfilled when every one of its conditions holds (2.2.2). Region control
is the core's 2.1.2.1 test (minimum countries and more VPs than each other power, VP
modifiers included, as 2.3.2 says they count for objectives).
"""

from __future__ import annotations

from warroom.games.ncw import ops as board
from warroom.games.ncw.cards import (
    AnyRegionCond,
    Condition,
    ControlAllCond,
    ControlAnyCond,
    CountriesCond,
    MediaCond,
    OrbitCond,
    PrestigeCond,
    RegionCond,
    TypeInRegionsCond,
    objectives_by_number,
)
from warroom.games.ncw.content import REGION_IDS, tables
from warroom.games.ncw.state import NcwState


def holds(state: NcwState, power: int, cond: Condition) -> bool:
    """Whether one condition holds for `power` now."""
    t = tables()
    control = state.control
    if isinstance(cond, RegionCond):
        return board.region_controller(state, REGION_IDS.index(cond.region)) == power
    if isinstance(cond, AnyRegionCond):
        return any(
            board.region_controller(state, REGION_IDS.index(r)) == power for r in cond.regions
        )
    if isinstance(cond, CountriesCond):
        regions = {REGION_IDS.index(r) for r in cond.regions}
        count = sum(
            1
            for c, ctrl in enumerate(control)
            if ctrl == power
            and (not regions or t.country_region[c] in regions)
            and (not cond.types or t.countries[c].type in cond.types)
        )
        return count >= cond.count
    if isinstance(cond, OrbitCond):
        owned = sum(
            1
            for c, ctrl in enumerate(control)
            if ctrl == power and board.orbit_owner(state, c) == power
        )
        return owned >= cond.count
    if isinstance(cond, ControlAllCond):
        return all(control[t.country_index[n]] == power for n in cond.countries)
    if isinstance(cond, ControlAnyCond):
        return sum(1 for n in cond.countries if control[t.country_index[n]] == power) >= cond.count
    if isinstance(cond, TypeInRegionsCond):
        regions = {
            t.country_region[c]
            for c, ctrl in enumerate(control)
            if ctrl == power and t.countries[c].type in cond.types
        }
        return len(regions) >= cond.regions
    if isinstance(cond, PrestigeCond):
        return state.prestige[power] > cond.above
    if isinstance(cond, MediaCond):
        return board.media_pos(state, power) > cond.above
    raise TypeError(f"unknown condition {cond!r}")


def fulfilled(state: NcwState, power: int, number: int) -> bool:
    """Whether `power` fulfils objective `number` now (another power's objective: False)."""
    objective = objectives_by_number()[number]
    if objective.power != ("US", "EU", "China", "Russia")[power]:
        return False
    return all(holds(state, power, cond) for cond in objective.conditions)


def unmet(state: NcwState, power: int, number: int) -> list[str]:
    """The kinds of the conditions of objective `number` that do not hold (for hints and bots)."""
    objective = objectives_by_number()[number]
    return [cond.kind for cond in objective.conditions if not holds(state, power, cond)]
