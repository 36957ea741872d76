"""Objective conditions (objectives.yaml) evaluated against a game state.

An objective is fulfilled when every one of its conditions holds (2.2.2). Region control
is the core's 2.1.2.1 test (minimum countries and more VPs than each other power, VP
modifiers included, as 2.3.2 says they count for objectives).

Each condition is compiled once into a check over the state's integers: the countries it
counts are listed in advance, so a check reads only those.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

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
from warroom.games.ncw.state import POWERS, NcwState

Check = Callable[[NcwState, int], bool]
"""A compiled condition: whether it holds for a power in a state."""


def _held(control: list[int], countries: tuple[int, ...], power: int) -> int:
    """How many of `countries` `power` controls."""
    return [control[c] for c in countries].count(power)


def _countries(cond: CountriesCond | TypeInRegionsCond) -> tuple[int, ...]:
    """The countries a count condition looks at (its regions and types; none given: all)."""
    t = tables()
    regions = (
        {REGION_IDS.index(r) for r in cond.regions} if isinstance(cond, CountriesCond) else set()
    )
    return tuple(
        c
        for c in range(len(t.countries))
        if (not regions or t.country_region[c] in regions)
        and (not cond.types or t.countries[c].type in cond.types)
    )


def _orbit_check(count: int) -> Check:
    """At least `count` of the power's own ORBIT countries (after permanent events) held."""
    own = tuple(
        tuple(c for c, owner in enumerate(tables().country_orbit) if owner == p) for p in range(4)
    )

    def check(state: NcwState, power: int) -> bool:
        control = state.control
        if not state.orbit_override:
            return _held(control, own[power], power) >= count
        owned = sum(
            1
            for c, ctrl in enumerate(control)
            if ctrl == power and board.orbit_owner(state, c) == power
        )
        return owned >= count

    return check


def _region_checks(cond: RegionCond | AnyRegionCond) -> Check:
    """Control of one region, or of any of several."""
    names = (cond.region,) if isinstance(cond, RegionCond) else cond.regions
    regions = tuple(REGION_IDS.index(r) for r in names)
    controller = board.region_controller
    return lambda state, power: any(controller(state, r) == power for r in regions)


@cache
def _compiled(cond: Condition) -> Check:
    """The check of one condition (conditions are frozen models: cached by value)."""
    t = tables()
    if isinstance(cond, RegionCond | AnyRegionCond):
        return _region_checks(cond)
    if isinstance(cond, CountriesCond):
        countries, need = _countries(cond), cond.count
        return lambda state, power: _held(state.control, countries, power) >= need
    if isinstance(cond, OrbitCond):
        return _orbit_check(cond.count)
    if isinstance(cond, ControlAllCond | ControlAnyCond):
        listed = tuple(t.country_index[n] for n in cond.countries)
        need = len(listed) if isinstance(cond, ControlAllCond) else cond.count
        return lambda state, power: _held(state.control, listed, power) >= need
    if isinstance(cond, TypeInRegionsCond):
        typed, need, region = _countries(cond), cond.regions, t.country_region
        return lambda state, power: (
            len({region[c] for c in typed if state.control[c] == power}) >= need
        )
    if isinstance(cond, PrestigeCond):
        above = cond.above
        return lambda state, power: state.prestige[power] > above
    if isinstance(cond, MediaCond):
        above = cond.above
        return lambda state, power: board.media_pos(state, power) > above
    raise TypeError(f"unknown condition {cond!r}")


def holds(state: NcwState, power: int, cond: Condition) -> bool:
    """Whether one condition holds for `power` now."""
    return _compiled(cond)(state, power)


@cache
def _objective(number: int) -> tuple[str, tuple[Check, ...]]:
    """An objective's power and the checks of its conditions."""
    objective = objectives_by_number()[number]
    return objective.power, tuple(map(_compiled, objective.conditions))


def fulfilled(state: NcwState, power: int, number: int) -> bool:
    """Whether `power` fulfils objective `number` now (another power's objective: False)."""
    owner, checks = _objective(number)
    if owner != POWERS[power]:
        return False
    return all(check(state, power) for check in checks)


def unmet(state: NcwState, power: int, number: int) -> list[str]:
    """The kinds of the conditions of objective `number` that do not hold (for hints and bots)."""
    objective = objectives_by_number()[number]
    return [cond.kind for cond in objective.conditions if not holds(state, power, cond)]
