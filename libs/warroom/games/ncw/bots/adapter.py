"""Reading the core `NcwState` as the public `Board` a bot sees.

Only public facts are read (the map, tracks, markers), so the same function serves the
rules' bot seats and the `ncw-official` chooser working from a seat's view.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from functools import cache, lru_cache
from itertools import compress
from operator import itemgetter
from typing import cast

from warroom.games.ncw import content
from warroom.games.ncw.bots.board import BLOC, Board, CountryFacts
from warroom.games.ncw.state import BLOCS, POWERS, Block, NcwState

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
    return _attack_pairs(state.flags.get(ATTACKS_KEY, 0))


@lru_cache(maxsize=1024)
def _attack_pairs(bits: int) -> frozenset[tuple[str, str]]:
    """The (attacker, region) pairs of an attack-marker bitmask."""
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
    state.flags = {
        **state.flags,
        ATTACKS_KEY: bits | 1 << (power * 7 + region),
        ATTACKS_TURN_KEY: state.turn,
    }


_HOLDER: dict[int, str] = dict(enumerate(POWERS))
_HELD = _HOLDER.__contains__
# `get` names every entry; `compress` keeps only the held ones, whose names are never None
_HOLDER_NAME = cast(Callable[[int], str], _HOLDER.get)
_TOKEN_NAME = cast(Callable[[int], str], TOKEN_BLOC.get)
_TOKEN_HELD = TOKEN_BLOC.__contains__


@cache
def _access_regions(mask: int) -> frozenset[str]:
    """The regions of an access bitmask."""
    return frozenset(r for i, r in enumerate(content.REGION_IDS) if mask >> i & 1)


@cache
def _bots_of(bits: int) -> frozenset[str]:
    """The bot powers of a `NcwState.bots` bitmask."""
    return frozenset(POWERS[p] for p in range(4) if bits >> p & 1)


@lru_cache(maxsize=256)
def _modifiers(
    temporary: tuple[int, ...], permanent: tuple[int, ...]
) -> dict[tuple[str, str], int]:
    """The region VP modifiers by (power, region), both sources summed (shared: never mutate)."""
    regions = content.REGION_IDS
    modifiers: dict[tuple[str, str], int] = {}
    for source in (temporary, permanent):
        for k, value in enumerate(source):
            if value:
                key = (POWERS[k % 4], regions[k // 4])
                modifiers[key] = modifiers.get(key, 0) + value
    return modifiers


_StatRows = tuple[tuple[tuple[int, int], ...], ...]
"""Per country, per holder 0-3: (index power * 7 + region, VPs the country adds to that holder)."""

_STAT_KEYS: tuple[tuple[str, str], ...] = tuple(
    (POWERS[k // 7], content.REGION_IDS[k % 7]) for k in range(28)
)


@lru_cache(maxsize=256)
def _stat_rows(overrides: tuple[tuple[int, int], ...]) -> _StatRows:
    """`_StatRows` for the printed facts with these ORBIT overrides (as `board._all_stats` counts)."""
    facts = _facts_with(overrides) if overrides else _facts_map()
    region = {r: i for i, r in enumerate(content.REGION_IDS)}
    rows = []
    for name in names():
        f = facts[name]
        rows.append(
            tuple(
                (
                    p * 7 + region[f.region],
                    f.vp + (1 if f.orbit is not None and BLOC[f.orbit] != BLOC[POWERS[p]] else 0),
                )
                for p in range(4)
            )
        )
    return tuple(rows)


_Entries = dict[tuple[str, str], tuple[int, int]]
_RegionStats = tuple[
    Callable[[list[int]], tuple[int, ...]], _StatRows, dict[tuple[int, ...], _Entries]
]
"""One region: the getter of its countries' holders, their `_StatRows`, and a memo of the
region's (countries, VPs) entries by those holders."""

_REGION_MEMO = 4096
"""Holder patterns remembered per region before its memo starts afresh (bounds memory)."""


@lru_cache(maxsize=256)
def _region_stats(overrides: tuple[tuple[int, int], ...]) -> tuple[_RegionStats, ...]:
    """`_stat_rows` grouped by region, each region with its holder getter and an empty memo."""
    rows = _stat_rows(overrides)
    out: list[_RegionStats] = []
    for countries in content.tables().region_countries:
        assert len(countries) > 1, "itemgetter of one country returns no tuple"
        getter = cast(Callable[[list[int]], tuple[int, ...]], itemgetter(*countries))
        out.append((getter, tuple(rows[c] for c in countries), {}))
    return tuple(out)


def _region_entries(holders: tuple[int, ...], rows: _StatRows) -> _Entries:
    """(countries, VPs) by (power, region) of one region's holders (held countries only)."""
    counts: dict[int, tuple[int, int]] = {}
    for holder, row in zip(holders, rows, strict=True):
        if holder >= 0:
            k, value = row[holder]
            count, total = counts.get(k, (0, 0))
            counts[k] = (count + 1, total + value)
    return {_STAT_KEYS[k]: entry for k, entry in counts.items()}


def _stats_memo(
    control: list[int],
    regions: tuple[_RegionStats, ...],
    modifiers: dict[tuple[str, str], int],
) -> _Entries:
    """The `Board.stats` memo of a position, computed from the state's integers.

    The same entries `board._all_stats` computes from the board's mappings: (0, modifier)
    for every modified (power, region), (countries, VPs + modifier) where a power holds
    countries, and the ("", "") marker. Each region's entries are memoized by its holders
    (a position differs from the last one a bot saw in a region or two).
    """
    memo: _Entries = {}
    for getter, rows, seen in regions:
        holders = getter(control)
        entries = seen.get(holders)
        if entries is None:
            if len(seen) >= _REGION_MEMO:
                seen.clear()
            entries = seen[holders] = _region_entries(holders, rows)
        memo.update(entries)
    for key, value in modifiers.items():
        entry = memo.get(key)
        memo[key] = (entry[0], entry[1] + value) if entry is not None else (0, value)
    memo[("", "")] = (0, 0)
    return memo


_Chunk = tuple[
    Callable[[list[int]], tuple[int, ...]], tuple[str, ...], dict[tuple[int, ...], dict[str, str]]
]
"""Consecutive countries: the getter of their values, their names, and a memo of the named
entries by those values."""

_CHUNK = 12
"""Countries per chunk of `_named` (a position differs from the last seen in a chunk or two)."""

_NAMERS: dict[str, tuple[Callable[[int], str], Callable[[int], bool]]] = {
    "control": (_HOLDER_NAME, _HELD),
    "token": (_TOKEN_NAME, _TOKEN_HELD),
}
"""How `_named` names a value of the state's list, and which values it keeps."""


@cache
def _chunks(kind: str) -> tuple[_Chunk, ...]:
    """The consecutive country chunks of one of `_NAMERS`' lists, in country order, memos empty."""
    n = names()
    out: list[_Chunk] = []
    for start in range(0, len(n), _CHUNK):
        stop = min(start + _CHUNK, len(n))
        assert stop - start > 1, "itemgetter of one country returns no tuple"
        getter = cast(Callable[[list[int]], tuple[int, ...]], itemgetter(*range(start, stop)))
        out.append((getter, n[start:stop], {}))
    return tuple(out)


def _named(values: list[int], kind: str) -> dict[str, str]:
    """Country name -> the name of its value (controller or token bloc), for every country that
    has one, in country order; assembled from chunk entries memoized by the chunk's values."""
    named, held = _NAMERS[kind]
    out: dict[str, str] = {}
    for getter, chunk, seen in _chunks(kind):
        key = getter(values)
        entries = seen.get(key)
        if entries is None:
            if len(seen) >= _REGION_MEMO:
                seen.clear()
            entries = seen[key] = dict(
                compress(zip(chunk, map(named, key), strict=True), map(held, key))
            )
        out.update(entries)
    return out


def _per_power(values: list[int]) -> dict[str, int]:
    """A per-power list of the state as a mapping by power name (a dict display: cheaper than
    `dict(zip(...))` for the four powers)."""
    if len(values) != 4:
        return dict(zip(POWERS, values, strict=False))
    return {_US: values[0], _EU: values[1], _CHINA: values[2], _RUSSIA: values[3]}


_US, _EU, _CHINA, _RUSSIA = POWERS

_BOARD_FIELDS = (
    "facts", "control", "tokens", "vp", "prestige", "media", "media_reserve", "op_reserve",
    "coups_left", "turn", "round", "access", "bots", "attacks", "region_modifiers",
    "region_min", "perm_destab", "blocked", "memo",
)  # fmt: skip
"""`Board`'s fields in their order (the order of `_board`'s values)."""
if tuple(f.name for f in dataclasses.fields(Board)) != _BOARD_FIELDS:
    raise RuntimeError("Board's fields changed: update adapter._BOARD_FIELDS and board_of")

_BOARD_SLOTS: tuple[Callable[[Board, object], None], ...] = tuple(
    getattr(Board, name).__set__ for name in _BOARD_FIELDS
)
"""The setters of `Board`'s slots, in field order (what `_board` fills)."""


def _board(*values: object) -> Board:
    """A `Board` of every field's value in field order, built through its slots: the frozen
    dataclass's `__init__` sets each field through `object.__setattr__`, twice as dear."""
    board: Board = object.__new__(Board)
    for setter, value in zip(_BOARD_SLOTS, values, strict=True):
        setter(board, value)
    return board


def board_of(state: NcwState, viewer: int | None = None) -> Board:
    """The public position of a state.

    Built from the state's integers with C-level iteration; the parts that rarely change
    (access, region modifiers, bots, attack markers) come from caches keyed by their source.
    """
    overrides = tuple(state.orbit_override.items())
    n = names()
    control = state.control
    modifiers = _modifiers(tuple(state.region_vp_mod), tuple(state.region_vp_mod_perm))
    perm = {n[i]: BLOCS[b] for i, b in state.perm_destab.items()} if state.perm_destab else {}
    return _board(
        _facts_with(overrides) if overrides else _facts_map(),  # facts
        _named(control, "control"),
        _named(state.token, "token"),  # tokens
        _per_power(state.vp),
        _per_power(state.prestige),
        state.media,
        _per_power(state.media_box),  # media_reserve
        _per_power(state.op_reserve),
        _per_power(state.coups_left),
        state.turn,
        state.round + 1,  # round
        dict(zip(POWERS, map(_access_regions, state.access), strict=False)),  # access
        _bots_of(state.bots),
        attacks_of(state),
        modifiers,  # region_modifiers
        _region_min(),
        perm,  # perm_destab
        _blocked(state),
        _stats_memo(control, _region_stats(overrides), modifiers),  # memo
    )


def stats_board(state: NcwState) -> Board:
    """A `Board` holding only what region statistics read (`Board.stats`, `region_min`,
    `region_modifiers` and the facts): for `reinforced` and `controls_region` checks
    (`rank_countries`, the 6.1 victory), without naming every country's control and tokens."""
    overrides = tuple(state.orbit_override.items())
    modifiers = _modifiers(tuple(state.region_vp_mod), tuple(state.region_vp_mod_perm))
    return Board(
        facts=_facts_with(overrides) if overrides else _facts_map(),
        region_modifiers=modifiers,
        region_min=_region_min(),
        memo=_stats_memo(state.control, _region_stats(overrides), modifiers),
    )


@lru_cache(maxsize=256)
def _facts_with(overrides: tuple[tuple[int, int], ...]) -> dict[str, CountryFacts]:
    """The printed facts with ORBIT overrides (index, new owner or -1) applied (shared: never
    mutate). A country that lost its ORBIT takes its lower rating for both blocs (Annex III,
    Kurdish Conflict: "red bloc powers should use the blue bloc stability rating"), as
    `ops.stability_for` does."""
    facts = dict(_facts_map())
    for index, owner in overrides:
        old = base_facts()[index]
        stability = old.stability if owner >= 0 else dict.fromkeys(old.stability, old.lower)
        facts[old.name] = CountryFacts(
            old.name, old.region, old.vp, POWERS[owner] if owner >= 0 else None, stability
        )
    return facts


def _blocked(state: NcwState) -> dict[str, frozenset[str]]:
    if not state.blocks:
        return {}
    return _blocked_by(tuple(state.blocks), state.turn)


@lru_cache(maxsize=256)
def _blocked_by(blocks: tuple[Block, ...], turn: int) -> dict[str, frozenset[str]]:
    """The countries each power may not influence by OPs under standing blocks (shared: never mutate)."""
    t = content.tables()
    n = names()
    out: dict[str, set[str]] = {}
    for block in blocks:
        if block.until_turn < turn:
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
