"""Reading the core `NcwState` as the public `Board` a bot sees.

Only public facts are read (the map, tracks, markers), so the same function serves the
rules' bot seats and the `ncw-official` chooser working from a seat's view.
"""

from __future__ import annotations

from functools import cache

from warroom.games.ncw import content
from warroom.games.ncw.bots.board import Board, CountryFacts
from warroom.games.ncw.state import BLOCS, POWERS, NcwState

TOKEN_BLOC = {1: "blue", 2: "red"}
ATTACKS_KEY = "bot_attacks"
ATTACKS_TURN_KEY = "bot_attacks_turn"


@cache
def base_facts() -> tuple[CountryFacts, ...]:
    """The printed facts of every country, in the core's country order."""
    t = content.tables()
    out = []
    for i, record in enumerate(t.countries):
        orbit = t.country_orbit[i]
        blue, red = t.stability[i]
        out.append(
            CountryFacts(
                record.name,
                record.region,
                t.country_value[i],
                POWERS[orbit] if orbit >= 0 else None,
                {"blue": blue, "red": red},
            )
        )
    return tuple(out)


@cache
def names() -> tuple[str, ...]:
    """Country names in the core's order."""
    return tuple(f.name for f in base_facts())


@cache
def name_index() -> dict[str, int]:
    """Country name to the core's index."""
    return {name: i for i, name in enumerate(names())}


@cache
def _facts_map() -> dict[str, CountryFacts]:
    return {f.name: f for f in base_facts()}


@cache
def _region_min() -> dict[str, int]:
    t = content.tables()
    return {content.REGION_IDS[i]: m for i, m in enumerate(t.region_min)}


def region_name(region: int) -> str:
    """The abbreviation of a region index."""
    return content.REGION_IDS[region]


def attacks_of(state: NcwState) -> frozenset[tuple[str, str]]:
    """The 6.5 attack markers of the current turn as (attacker, region) pairs."""
    if state.flags.get(ATTACKS_TURN_KEY, -1) != state.turn:
        return frozenset()
    bits = state.flags.get(ATTACKS_KEY, 0)
    out = set()
    for power in range(4):
        for region in range(len(content.REGION_IDS)):
            if bits >> (power * 7 + region) & 1:
                out.add((POWERS[power], content.REGION_IDS[region]))
    return frozenset(out)


def record_attack(state: NcwState, power: int, region: int) -> None:
    """Place a 6.5 attack marker on a working copy of the state."""
    bits = (
        state.flags.get(ATTACKS_KEY, 0)
        if state.flags.get(ATTACKS_TURN_KEY, -1) == state.turn
        else 0
    )
    state.flags[ATTACKS_KEY] = bits | 1 << (power * 7 + region)
    state.flags[ATTACKS_TURN_KEY] = state.turn


def board_of(state: NcwState, viewer: int | None = None) -> Board:
    """The public position of a state."""
    facts = _facts_map()
    if state.orbit_override:
        facts = dict(facts)
        for index, owner in state.orbit_override.items():
            old = base_facts()[index]
            facts[old.name] = CountryFacts(
                old.name, old.region, old.vp, POWERS[owner] if owner >= 0 else None, old.stability
            )
    n = names()
    control = {n[i]: POWERS[p] for i, p in enumerate(state.control) if p >= 0}
    tokens = {n[i]: TOKEN_BLOC[t] for i, t in enumerate(state.token) if t in TOKEN_BLOC}
    perm = {n[i]: BLOCS[b] for i, b in state.perm_destab.items()}
    regions = content.REGION_IDS
    access = {
        POWERS[p]: frozenset(r for i, r in enumerate(regions) if mask >> i & 1)
        for p, mask in enumerate(state.access)
    }
    modifiers: dict[tuple[str, str], int] = {}
    for source in (state.region_vp_mod, state.region_vp_mod_perm):
        for k, value in enumerate(source):
            if value:
                key = (POWERS[k % 4], regions[k // 4])
                modifiers[key] = modifiers.get(key, 0) + value
    bots = frozenset(POWERS[p] for p in range(4) if state.bots >> p & 1)
    return Board(
        facts=facts,
        control=control,
        tokens=tokens,
        vp=dict(zip(POWERS, state.vp, strict=False)),
        prestige=dict(zip(POWERS, state.prestige, strict=False)),
        media=state.media,
        media_reserve=dict(zip(POWERS, state.media_box, strict=False)),
        op_reserve=dict(zip(POWERS, state.op_reserve, strict=False)),
        coups_left=dict(zip(POWERS, state.coups_left, strict=False)),
        turn=state.turn,
        round=state.round + 1,
        access=access,
        bots=bots,
        attacks=attacks_of(state),
        region_modifiers=modifiers,
        region_min=_region_min(),
        perm_destab=perm,
        blocked=_blocked(state),
    )


def _blocked(state: NcwState) -> dict[str, frozenset[str]]:
    if not state.blocks:
        return {}
    t = content.tables()
    n = names()
    out: dict[str, set[str]] = {}
    for block in state.blocks:
        if block.until_turn < state.turn:
            continue
        countries: list[int] = []
        if block.country >= 0:
            countries.append(block.country)
        if block.region >= 0:
            countries.extend(t.region_countries[block.region])
        for p in range(4):
            if block.powers >> p & 1:
                out.setdefault(POWERS[p], set()).update(n[c] for c in countries)
    return {p: frozenset(v) for p, v in out.items()}
