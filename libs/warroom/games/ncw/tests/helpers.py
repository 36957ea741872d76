"""Helpers for New Cold War scenario tests: build a stated position, then act through the rules."""

from __future__ import annotations

from warroom.games.ncw import flow
from warroom.games.ncw.content import tables
from warroom.games.ncw.rules import NewColdWarRules
from warroom.games.ncw.state import NOBODY, POWERS, Frame, NcwState

RULES = NewColdWarRules()


def cid(name: str) -> int:
    """Country index from an id ("panama") or a printed name ("Caucasian Rep.")."""
    index = tables().country_index
    if name in index:
        return index[name]
    for i, rec in enumerate(tables().countries):
        if rec.name == name:
            return i
    raise KeyError(name)


def rid(name: str) -> int:
    """Region index from its id (CAM, EUR...)."""
    return tables().region_index[name]


def pid(name: str) -> int:
    """Power index from its name."""
    return POWERS.index(name)


def blank(seed: int = 0) -> NcwState:
    """A fresh game state with an empty board (no deployments), objectives kept."""
    s = flow.new_state(seed, "4p")
    s.objectives = [sorted(o) for o in s.objective_offer]
    for p in range(4):
        s.objectives_out.append(s.objectives[p].pop())
    s.objective_offer = [[] for _ in range(4)]
    s.phase = "deploy"
    return s


def give(s: NcwState, power: str, *countries: str) -> None:
    """Give control of countries to a power (directly, as a stated position)."""
    for name in countries:
        s.control[cid(name)] = pid(power)


def clear(s: NcwState, *countries: str) -> None:
    """Make countries uncontrolled."""
    for name in countries:
        s.control[cid(name)] = NOBODY


def options(s: NcwState, seat: int) -> list[str]:
    """Option ids of a seat in the pending decision."""
    d = RULES.decision(s)
    assert d is not None
    return [o.id for o in d.options_for(seat)]


def act(s: NcwState, seat: int, option: str) -> NcwState:
    """Apply an option through the rules (checks legality, never mutates `s`)."""
    return RULES.apply(s, seat, option).state


def with_ops(s: NcwState, power: int, ops: int) -> NcwState:
    """Let a power spend OPs now, above a sentinel step that stops the game flow afterwards."""
    s.forget()
    s.stack.clear()
    s.push(Frame("deploy", seat=0))
    s.push(Frame("ops", seat=power, ops=ops))
    return s


# The flowchart examples' core board (examples 4/5, 6.A, 6.B, 7.B): China's Asia and South East
# Asia under reinforced control, the EU bot's Africa.
CORE_ASIA = (
    "DPR Korea",
    "India",
    "Pakistan",
    "Bangladesh",
    "Afghanistan",
    "Laos",
    "Cambodia",
    "Myanmar",
    "Indonesia",
)
CORE_AFRICA = (
    "Somalia",
    "Kenya",
    "Ethiopia",
    "Congo",
    "Cameroon",
    "Angola",
    "South Africa",
    "Mozambique",
    "Botswana",
    "Ivory Coast",
    "Nigeria",
    "Libya",
    "Niger",
    "Chad",
    "Mauritania",
    "Mali",
)
