"""Board helpers shared by the core rules, card effects and bots.

Every function here mutates the state it is given: call them only on a working copy.
Costs and scoring follow rulebook sections 4.3.2 and 4.4; see docs/rulings.md for rulings.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from itertools import chain
from operator import getitem, itemgetter
from typing import cast

from warroom.engine.model import Option
from warroom.games.ncw import seam
from warroom.games.ncw.content import Tables, tables
from warroom.games.ncw.state import (
    ALLY_OF,
    BLOC_OF,
    BLUE,
    CHINA,
    NOBODY,
    OPF_CONTROL_ONLY,
    OPF_MEDIA_RES_DONE,
    OPF_MEDIA_USED,
    OPF_NO_COUP,
    OPF_ONE_PER_REGION,
    OPF_PRESTIGE_USED,
    OPF_RESERVE_DONE,
    POWERS,
    Frame,
    NcwState,
    replaced,
)

_OPTIONS: dict[tuple[str, str], Option] = {}
_chain = chain.from_iterable


def option_of(pair: tuple[str, str]) -> Option:
    """The shared immutable `Option` of an (id, label) pair (memoized; options never change)."""
    option = _OPTIONS.get(pair)
    if option is None:
        option = Option(pair[0], pair[1])
        if len(_OPTIONS) < 100_000:
            _OPTIONS[pair] = option
    return option


def T() -> Tables:
    """The content tables (cached)."""
    return tables()


# ---------------------------------------------------------------- tracks


def change_vp(s: NcwState, p: int, n: int) -> None:
    """Add n VPs (negative to subtract) to power p."""
    s.vp[p] += n


def change_prestige(s: NcwState, p: int, n: int) -> None:
    """Move p's prestige marker n boxes; ±2 VP per step past ±5; ±2 VP per step in turn 9."""
    extreme = T().setup.prestige_extreme_vp
    step = 1 if n > 0 else -1
    for _ in range(abs(n)):
        if s.prestige[p] * step >= 5:
            s.vp[p] += extreme * step
            continue
        s.prestige[p] += step
        if s.turn == 9:
            s.vp[p] += extreme * step


def media_pos(s: NcwState, p: int) -> int:
    """The media track position from p's bloc's point of view (+ = p's bloc leads)."""
    return s.media if BLOC_OF[p] == BLUE else -s.media


def shift_media(s: NcwState, bloc: int, n: int) -> None:
    """Shift the media marker n positions toward `bloc` (negative n: away), within ±5."""
    delta = n if bloc == BLUE else -n
    s.media = max(-5, min(5, s.media + delta))


def gain_media_reserve(s: NcwState, p: int) -> None:
    """p places a media reserve marker (4.3.2.5): cancels a negative marker, or pairs with the ally's."""
    box = s.media_box[p]
    if box == -1:
        s.media_box = replaced(s.media_box, p, 0)
    elif box == 0:
        ally = ALLY_OF[p]
        if s.media_box[ally] == 1:
            s.media_box = replaced(s.media_box, ally, 0)
            shift_media(s, BLOC_OF[p], 1)
        else:
            s.media_box = replaced(s.media_box, p, 1)


def negative_media_marker(s: NcwState, p: int) -> None:
    """p receives a negative media marker (4.3.2.5)."""
    box = s.media_box[p]
    s.media_box = replaced(s.media_box, p, -1 if box == 0 else 0)
    if box not in (0, 1):
        shift_media(s, 1 - BLOC_OF[p], 1)


def gain_op_reserve(s: NcwState, p: int) -> None:
    """p places an OP reserve marker (cancels a negative one)."""
    if s.op_reserve[p] == -1:
        s.op_reserve = replaced(s.op_reserve, p, 0)
    elif s.op_reserve[p] == 0:
        s.op_reserve = replaced(s.op_reserve, p, 1)


def negative_op_reserve(s: NcwState, p: int) -> None:
    """p receives a negative OP reserve (4.3.2.6)."""
    if s.op_reserve[p] == 0:
        s.op_reserve = replaced(s.op_reserve, p, -1)
    elif s.op_reserve[p] == 1:
        s.op_reserve = replaced(s.op_reserve, p, 0)


def precedence_key(s: NcwState, p: int) -> tuple[int, int, int, int]:
    """Sort key of the 4.2 tie-breaker: higher VP, prestige, media, then initial order."""
    return (-s.vp[p], -s.prestige[p], -media_pos(s, p), p)


def behind_key(s: NcwState, p: int) -> tuple[int, int, int, int]:
    """Sort key putting the power furthest behind first: fewer VPs, then lower prestige, then
    lower media, then the initial order (2.1.5.1 d)."""
    return (s.vp[p], s.prestige[p], media_pos(s, p), p)


def precedence(s: NcwState, powers: list[int] | None = None) -> list[int]:
    """Powers in tie-breaker order (first takes precedence)."""
    return sorted(range(4) if powers is None else powers, key=lambda p: precedence_key(s, p))


# ---------------------------------------------------------------- countries


def orbit_owner(s: NcwState, c: int) -> int:
    """The power whose ORBIT country c is (-1 if none), after permanent events."""
    if s.orbit_override and c in s.orbit_override:
        return s.orbit_override[c]
    return T().country_orbit[c]


def stability_for(s: NcwState, c: int, bloc: int) -> int:
    """c's printed stability for a bloc (a country that lost its ORBIT uses the lower rating)."""
    stab = T().stability[c]
    if s.orbit_override and c in s.orbit_override and s.orbit_override[c] < 0:
        return min(stab)
    return stab[bloc]


def lower_stability(c: int) -> int:
    """c's lower stability rating (both are equal for non-ORBIT countries)."""
    return min(T().stability[c])


def country_value(s: NcwState, c: int, p: int) -> int:
    """VPs c is worth to p in scoring: 3/2/1 by type, +1 for an ORBIT of the opposing bloc."""
    value = T().country_value[c]
    owner = orbit_owner(s, c)
    if owner >= 0 and BLOC_OF[owner] != BLOC_OF[p]:
        value += T().setup.orbit_bonus
    return value


def token_favours(s: NcwState, c: int) -> tuple[int, bool] | None:
    """(bloc, stabilizing) of c's stability token, or None without one.

    A token of the controller's bloc stabilizes; otherwise it destabilizes in favour of its bloc.
    """
    t = s.token[c]
    if not t:
        return None
    bloc = t - 1
    ctrl = s.control[c]
    return bloc, ctrl >= 0 and BLOC_OF[ctrl] == bloc


def pos_cost(s: NcwState, p: int, c: int) -> tuple[int, bool]:
    """(OPs to move c one POS for p, whether the stability token modifier applies)."""
    bloc = BLOC_OF[p]
    base = stability_for(s, c, bloc)
    fav = token_favours(s, c)
    if fav is not None:
        tbloc, stabilizing = fav
        if stabilizing and tbloc != bloc:
            return base + 1, True
        if not stabilizing and tbloc == bloc:
            return max(1, base - 1), True
    elif s.perm_destab and s.perm_destab.get(c, -1) == bloc:
        return max(1, base - 1), False
    return base, False


def destabilized_for(s: NcwState, c: int, bloc: int) -> bool:
    """Whether c is destabilized in favour of `bloc` (token or permanent event)."""
    fav = token_favours(s, c)
    if fav is not None:
        return fav[0] == bloc and not fav[1]
    return bool(s.perm_destab) and s.perm_destab.get(c, -1) == bloc


def coup_possible(s: NcwState, p: int, c: int) -> bool:
    """Whether p may stage a coup in c (4.3.2.2): stability 1-2, or destabilized stability-3 ORBIT."""
    ctrl = s.control[c]
    if ctrl < 0 or ctrl == p:
        return False
    bloc = BLOC_OF[p]
    base = stability_for(s, c, bloc)
    if base <= 2:
        return True
    return base == 3 and orbit_owner(s, c) >= 0 and destabilized_for(s, c, bloc)


def coup_cost(s: NcwState, p: int, c: int) -> int:
    """OPs for a coup: the first POS at p's (modified) cost, the second at the lower rating."""
    return pos_cost(s, p, c)[0] + lower_stability(c)


def set_control(s: NcwState, c: int, p: int) -> None:
    """Set c's controller (p or -1), applying the country VP modifier and token bookkeeping.

    A stability token whose function (stabilize / destabilize) changes with the new
    controller is removed (4.3.2.3); a pending country VP modifier hits the new controller.
    """
    old = s.control[c]
    if old == p:
        return
    t = s.token[c]
    if t:
        bloc = t - 1
        before = old >= 0 and BLOC_OF[old] == bloc
        after = p >= 0 and BLOC_OF[p] == bloc
        if before != after:
            s.token[c] = 0
    s.control[c] = p
    if p >= 0 and s.country_vp_mod[c]:
        s.vp[p] += s.country_vp_mod[c]
        s.country_vp_mod = replaced(s.country_vp_mod, c, 0)


def place_token(s: NcwState, c: int, bloc: int) -> None:
    """Put a stability token of `bloc` on c (replacing nothing: c must be free)."""
    s.token[c] = bloc + 1


def remove_token(s: NcwState, c: int) -> None:
    """Remove c's stability token."""
    s.token[c] = 0


def controls(s: NcwState, p: int, c: int) -> bool:
    """Whether p controls c."""
    return s.control[c] == p


def has_access(s: NcwState, p: int, region: int) -> bool:
    """Whether p may play OPs or events in a region (2.1.2.2)."""
    return bool(s.access[p] >> region & 1)


def grant_access(s: NcwState, p: int, region: int) -> None:
    """Open a region to p (unless permanently locked: China in Europe)."""
    locks = T().setup.permanent_locks
    if T().regions[region].id in locks.get(POWERS[p], []):
        return
    s.access = replaced(s.access, p, s.access[p] | 1 << region)


def blocked(s: NcwState, p: int, c: int, by_ops: bool = True) -> bool:
    """Whether a permanent event forbids p to influence c (by OPs, or at all)."""
    if not s.blocks:
        return False
    region = T().country_region[c]
    for b in s.blocks:
        if not b.powers >> p & 1 or s.turn > b.until_turn:
            continue
        if b.ops_only and not by_ops:
            continue
        if b.country == c or b.region == region:
            return True
    return False


def can_influence(s: NcwState, p: int, c: int, by_ops: bool = True) -> bool:
    """Access to c's region and no block."""
    return has_access(s, p, T().country_region[c]) and not blocked(s, p, c, by_ops)


def token_action(s: NcwState, p: int, c: int) -> str | None:
    """What 1 OP of stability work by p in c would do ("place"/"remove"), or None if illegal."""
    bloc = BLOC_OF[p]
    t = s.token[c]
    ctrl = s.control[c]
    if t:
        if t - 1 == bloc:
            return None
        return "remove"
    own_side = ctrl >= 0 and BLOC_OF[ctrl] == bloc
    if not own_side and stability_for(s, c, bloc) <= 1:
        return None
    if bloc == BLUE and s.perm_destab.get(c, -1) == 1 - BLUE:
        return None
    return "place"


# ---------------------------------------------------------------- coups


def do_coup(s: NcwState, p: int, c: int, rewarded: bool = True) -> None:
    """Reverse c from another power's control to p's; with `rewarded`, a coup by OPs (4.3.2.2)."""
    old = s.control[c]
    owner = orbit_owner(s, c)
    set_control(s, c, p)
    if not rewarded:
        return
    cls = lower_stability(c)
    s.vp[p] += 1 if cls == 1 and owner < 0 else 2
    if owner >= 0 and cls >= 2:
        if old == owner and p != owner:
            change_prestige(s, owner, -1)
        if p == owner:
            gain_media_reserve(s, p)
    s.coups_left = replaced(s.coups_left, p, s.coups_left[p] - 1)
    if s.coups_left[p] == 0:
        negative_media_marker(s, p)


# ---------------------------------------------------------------- scoring


def region_vp(s: NcwState, p: int, r: int) -> int:
    """p's VPs in region r: country values plus region VP modifiers."""
    return region_vps(s, r)[p]


def region_vps(s: NcwState, r: int) -> list[int]:
    """Every power's VPs in region r (see `region_vp`), in one pass over its countries."""
    st = _static()
    mod, perm = s.region_vp_mod, s.region_vp_mod_perm
    base = r * 4
    totals = [mod[base + p] + perm[base + p] for p in range(4)]
    control = s.control
    values = st.country_value
    overrides = s.orbit_override
    orbit = st.orbit
    bonus = T().setup.orbit_bonus
    for c in st.region_countries[r]:
        p = control[c]
        if p >= 0:
            owner = overrides[c] if overrides and c in overrides else orbit[c]
            totals[p] += values[c] + (bonus if owner >= 0 and BLOC_OF[owner] != BLOC_OF[p] else 0)
    return totals


def region_count(s: NcwState, p: int, r: int) -> int:
    """How many countries of region r p controls."""
    control = s.control
    return sum(1 for c in _static().region_countries[r] if control[c] == p)


_Holders = Callable[[list[int]], tuple[int, ...]]


@cache
def _region_holders() -> tuple[_Holders, ...]:
    """Per region, the getter of its countries' controllers from `NcwState.control`."""
    out: list[_Holders] = []
    for countries in _static().region_countries:
        assert len(countries) > 1, "itemgetter of one country returns no tuple"
        out.append(cast(_Holders, itemgetter(*countries)))
    return tuple(out)


def region_controller(s: NcwState, r: int) -> int:
    """The power controlling region r (2.1.2.1), or -1.

    The region's controllers read in C (`itemgetter`, `tuple.count`); its VPs only counted
    when some power holds the minimum of countries.
    """
    holders = _region_holders()[r](s.control)
    need = T().region_min[r]
    vps: list[int] | None = None
    for p in _static().rewarded[r]:
        if holders.count(p) < need:
            continue
        if vps is None:
            vps = region_vps(s, r)
        if vps[p] > max(vps[:p] + vps[p + 1 :]):
            return p
    return NOBODY


def reference_region_controller(s: NcwState, r: int) -> int:
    """`region_controller` country by country (a test oracle)."""
    st = _static()
    control = s.control
    counts = [0, 0, 0, 0]
    for c in st.region_countries[r]:
        ctrl = control[c]
        if ctrl >= 0:
            counts[ctrl] += 1
    need = T().region_min[r]
    candidates = [p for p in st.rewarded[r] if counts[p] >= need]
    if not candidates:
        return NOBODY
    vps = region_vps(s, r)
    for p in candidates:
        if all(vps[p] > vps[q] for q in range(4) if q != p):
            return p
    return NOBODY


def score_regions(s: NcwState) -> None:
    """Global scoring (4.4.2 step 3): country VPs and region rewards, regions in the stated order."""
    t = T()
    for r in t.scoring_order:
        vps = region_vps(s, r)
        for p in range(4):
            s.vp[p] += vps[p]
        owner = region_controller(s, r)
        if owner >= 0:
            s.vp[owner] += seam.hooks.region_reward(s, owner, r, t.region_reward[r][owner])


def subregion_owner(s: NcwState, i: int) -> int:
    """The power controlling every country of subregion i, or -1."""
    members = T().subregion_members[i]
    first = s.control[members[0]]
    if first < 0:
        return NOBODY
    for c in members:
        if s.control[c] != first:
            return NOBODY
    return first


def claim_subregions(s: NcwState) -> None:
    """Claim every unclaimed subregion fully controlled by one power (2.1.3.2)."""
    t = T()
    for i in range(len(t.subregions)):
        if s.subregion_claimed[i] >= 0:
            continue
        p = subregion_owner(s, i)
        if p < 0:
            continue
        reward = getattr(t.subregions[i].reward, POWERS[p])
        if reward is None:
            continue
        s.vp[p] += reward
        s.subregion_claimed = replaced(s.subregion_claimed, i, p)


# ---------------------------------------------------------------- spending OPs


def push_ops(
    s: NcwState, p: int, ops: int, card: int = -1, flags: int = 0, scope: tuple[int, ...] = ()
) -> None:
    """Let p spend `ops` OPs now (one atomic decision per action, "done" ends it)."""
    if ops > 0:
        s.push(Frame("ops", seat=p, card=card, ops=ops, flags=flags, scope=scope))


def prestige_cost(s: NcwState, p: int) -> int:
    """OPs to advance p one box on the prestige track (4.3.2.4)."""
    return 2 if -3 <= s.prestige[p] <= 3 else 3


@dataclass(frozen=True, slots=True)
class _Static:
    """Per-country facts the OP options read, precomputed once from the content tables."""

    n: int
    region: tuple[int, ...]
    stab: tuple[tuple[int, int], ...]
    lower: tuple[int, ...]
    orbit: tuple[int, ...]
    pos: tuple[tuple[str, str], ...]
    coup: tuple[tuple[str, str], ...]
    token: tuple[tuple[str, str], ...]
    untoken: tuple[tuple[str, str], ...]
    kinds: tuple[tuple[Option, ...], ...]
    ops_cap: int
    region_countries: tuple[tuple[int, ...], ...]
    country_value: tuple[int, ...]
    rewarded: tuple[tuple[int, ...], ...]


@cache
def _static() -> _Static:
    t = T()
    pos = tuple(
        (f"pos:{c.id}", f"+1 position in {c.name} (toward your control)") for c in t.countries
    )
    coup = tuple((f"coup:{c.id}", f"Coup d'etat in {c.name}") for c in t.countries)
    token = tuple(
        (f"token:{c.id}", f"Place your bloc's stability token in {c.name}") for c in t.countries
    )
    untoken = tuple(
        (f"token:{c.id}", f"Remove the rival stability token from {c.name}") for c in t.countries
    )
    lower = tuple(min(x) for x in t.stability)
    return _Static(
        n=len(t.countries),
        region=tuple(t.country_region),
        stab=tuple(t.stability),
        lower=lower,
        orbit=tuple(t.country_orbit),
        pos=pos,
        coup=coup,
        token=token,
        untoken=untoken,
        kinds=(
            tuple(map(option_of, pos)),
            tuple(map(option_of, coup)),
            tuple(map(option_of, token)),
            tuple(map(option_of, untoken)),
        ),
        ops_cap=max(max(st) + 1 + low for st, low in zip(t.stability, lower, strict=True)),
        region_countries=tuple(tuple(x) for x in t.region_countries),
        country_value=tuple(t.country_value),
        rewarded=tuple(
            tuple(p for p in range(4) if getattr(region.reward, POWERS[p]) is not None)
            for region in t.regions
        ),
    )


@cache
def _accessible(access: int) -> tuple[int, ...]:
    """The countries of the regions in an access mask, in country order."""
    st = _static()
    return tuple(c for c in range(st.n) if access >> st.region[c] & 1)


def _blocked_for(s: NcwState, p: int) -> tuple[int, frozenset[int]]:
    """(mask of regions, set of countries) that standing blocks forbid p to influence by OPs."""
    regions = 0
    countries: set[int] = set()
    for b in s.blocks:
        if not b.powers >> p & 1 or s.turn > b.until_turn:
            continue
        if b.region >= 0:
            regions |= 1 << b.region
        if b.country >= 0:
            countries.add(b.country)
    return regions, frozenset(countries)


def ops_options(s: NcwState, f: Frame, only: int | None = None) -> list[tuple[str, str]]:
    """Legal actions for an "ops" frame as (id, label); `only` limits the countries examined."""
    out = [(o.id, o.label) for o in _collect(s, f, only)]
    if only is None:
        _track_options(s, f, out)
    return out


def ops_option_objects(s: NcwState, f: Frame) -> tuple[Option, ...]:
    """`ops_options` as shared immutable `Option` objects (what a Decision holds)."""
    out = _collect(s, f, None)
    out.extend(_track_objects(_track_mask(s, f)))
    return tuple(out)


_POS, _COUP, _TOKEN, _UNTOKEN = 0, 1, 2, 3
"""Country action kinds, indexing `_Static.kinds` (`_UNTOKEN`: the token action where a rival
token lies, which removes it; same option id as `_TOKEN`)."""


def _kind_options(token: int) -> tuple[int, ...]:
    """The `_Static.kinds` index of each action kind in a country holding `token`."""
    return (_POS, _COUP, _UNTOKEN if token else _TOKEN)


@lru_cache(maxsize=65536)
def _country_actions(
    p: int,
    ctrl: int,
    tok: int,
    ops: int,
    can_coup: bool,
    one_per_region: bool,
    orb: int,
    base: int,
    low: int,
    pd: int,
) -> tuple[int, ...]:
    """The action kinds p may take in one country with `ops` OPs.

    Inlines `pos_cost`, `coup_possible`, `coup_cost` and `token_action` given the country's
    controller, token, ORBIT owner, stability for p's bloc, lower stability and permanent
    destabilization (the same rules; tests compare it with `reference_ops_options`).
    """
    bloc = BLOC_OF[p]
    out: list[int] = []
    if ctrl != p:
        cost = base
        destab_for_me = False
        if tok:
            tbloc = tok - 1
            if ctrl >= 0 and BLOC_OF[ctrl] == tbloc:
                if tbloc != bloc:
                    cost = base + 1
            elif tbloc == bloc:
                destab_for_me = True
                cost = base - 1 if base > 1 else 1
        elif pd == bloc:
            destab_for_me = True
            cost = base - 1 if base > 1 else 1
        if cost <= ops and not (one_per_region and cost > 1):
            out.append(_POS)
        if (
            ctrl >= 0
            and can_coup
            and (base <= 2 or (base == 3 and orb >= 0 and destab_for_me))
            and cost + low <= ops
        ):
            out.append(_COUP)
    if tok:
        if tok - 1 != bloc:
            out.append(_TOKEN)
    elif ((ctrl >= 0 and BLOC_OF[ctrl] == bloc) or base > 1) and not (
        bloc == BLUE and pd == 1 - BLUE
    ):
        out.append(_TOKEN)
    return tuple(out)


_Row = tuple[tuple[tuple[Option, ...], ...], ...]
"""One country's options by controller (0-3, then -1 = uncontrolled last) and token (0-2)."""


_Kinds = tuple[tuple[tuple[int, ...], ...], ...]


@cache
def _kinds_matrix(
    p: int, ops: int, can_coup: bool, one_per_region: bool, orbit: int, base: int, low: int
) -> _Kinds:
    """`_country_actions` by controller (0-3, then -1) and token for one kind of country."""
    return tuple(
        tuple(
            _country_actions(p, ctrl, tok, ops, can_coup, one_per_region, orbit, base, low, -1)
            for tok in range(3)
        )
        for ctrl in (0, 1, 2, 3, NOBODY)
    )


_KIND_SETS: tuple[tuple[int, ...], ...] = tuple(
    tuple(k for k in (_POS, _COUP, _TOKEN) if bits >> k & 1) for bits in range(8)
)
"""Every ordered subset of the action kinds (what `_country_actions` may return)."""


@cache
def _option_sets(c: int, token: int) -> dict[tuple[int, ...], tuple[Option, ...]]:
    """Country c's shared `Option` objects for every subset of the action kinds, with token."""
    kinds, index = _static().kinds, _kind_options(token)
    return {ks: tuple(kinds[index[k]][c] for k in ks) for ks in _KIND_SETS}


@cache
def _action_rows(p: int, ops: int, can_coup: bool, one_per_region: bool) -> tuple[_Row, ...]:
    """Every country's options for p, as `rows[c][controller][token]` (controller -1 indexes
    the last entry). Valid for a country without an ORBIT override or a permanent
    destabilization."""
    st = _static()
    bloc = BLOC_OF[p]
    rows: list[_Row] = []
    for c in range(st.n):
        orbit = 0 if st.orbit[c] >= 0 else NOBODY
        matrix = _kinds_matrix(
            p, ops, can_coup, one_per_region, orbit, st.stab[c][bloc], st.lower[c]
        )
        rows.append(
            tuple(
                tuple(_option_sets(c, tok)[ks] for tok, ks in enumerate(by_tok))
                for by_tok in matrix
            )
        )
    return tuple(rows)


_NO_ROW: _Row = (((), (), ()),) * 5


_Specials = tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]
"""A state's ORBIT overrides and permanent destabilizations, as (country, value) items."""


@lru_cache(maxsize=4096)
def _masked_rows(
    p: int, ops: int, can_coup: bool, one_per_region: bool, regions: int, specials: _Specials
) -> tuple[_Row, ...]:
    """`_action_rows` with every country outside the `regions` bitmask offering nothing, and
    the countries with an ORBIT override or a permanent destabilization through
    `_country_actions` (for every controller and token, as the table rows)."""
    st = _static()
    region = st.region
    rows = [
        row if regions >> region[c] & 1 else _NO_ROW
        for c, row in enumerate(_action_rows(p, ops, can_coup, one_per_region))
    ]
    overrides, perm = dict(specials[0]), dict(specials[1])
    bloc = BLOC_OF[p]
    for c in overrides.keys() | perm.keys():
        if not regions >> region[c] & 1:
            continue
        if c in overrides:
            orb = overrides[c]
            base = st.lower[c] if orb < 0 else st.stab[c][bloc]
        else:
            orb, base = st.orbit[c], st.stab[c][bloc]
        pd = perm.get(c, -1)
        rows[c] = tuple(
            tuple(
                tuple(
                    st.kinds[_kind_options(tok)[k]][c]
                    for k in _country_actions(
                        p, ctrl, tok, ops, can_coup, one_per_region, orb, base, st.lower[c], pd
                    )
                )
                for tok in range(3)
            )
            for ctrl in (0, 1, 2, 3, NOBODY)
        )
    return tuple(rows)


_NO_SPECIALS: _Specials = ((), ())


def _collect(s: NcwState, f: Frame, only: int | None) -> list[Option]:
    """The country actions of an "ops" frame, in country order.

    Countries read a table built once per (power, OPs, coup mode, open regions, ORBIT
    overrides and permanent destabilizations); those a block forbids offer nothing, those the
    frame already moved at most their token work (`_moved_options`).
    """
    st = _static()
    p, ops, flags = f.seat, f.ops, f.flags
    one_per_region = bool(flags & OPF_ONE_PER_REGION)
    skip_regions = f.mask if one_per_region else 0
    blocked_countries: frozenset[int] = frozenset()
    if s.blocks:
        blocked_regions, blocked_countries = _blocked_for(s, p)
        skip_regions |= blocked_regions
    open_regions = s.access[p] & ~skip_regions
    can_coup = not flags & OPF_NO_COUP and not one_per_region and s.coups_left[p] > 0
    overrides, perm = s.orbit_override, s.perm_destab
    specials = (
        (tuple(overrides.items()), tuple(perm.items())) if overrides or perm else _NO_SPECIALS
    )
    masked: Sequence[_Row] = _masked_rows(
        p, min(ops, st.ops_cap), can_coup, one_per_region, open_regions, specials
    )
    control, token = s.control, s.token
    fixed = _moved_options(masked, f.items, control, token, p)
    fixed.update(dict.fromkeys(blocked_countries, ()))
    if only is not None or f.scope:
        countries: Sequence[int] = f.scope if only is None else (only,)
        if only is not None and f.scope and only not in f.scope:
            countries = ()
        return [
            o
            for c in countries
            for o in (fixed[c] if c in fixed else masked[c][control[c]][token[c]])
        ]
    if fixed:
        masked = list(masked)
        for c, opts in fixed.items():
            masked[c] = ((opts,) * 3,) * 5
    # row[control[c]][token[c]] of every country, flattened, all in C
    return list(_chain(map(getitem, map(getitem, masked, control), token)))


def _moved_options(
    masked: Sequence[_Row], moved: tuple[int, ...], control: list[int], token: list[int], p: int
) -> dict[int, tuple[Option, ...]]:
    """What the countries this card already moved still offer: nothing where p now controls
    them (4.3.2.3: "not possible to control a country and then stabilize it with points from
    the same card"; a second POS is a coup, ruling 5), else their stability token work."""
    return {
        c: ()
        if control[c] == p
        else tuple(o for o in masked[c][control[c]][token[c]] if o.id.startswith("token:"))
        for c in moved
    }


def reference_ops_options(s: NcwState, f: Frame) -> list[tuple[str, str]]:
    """`ops_options` through the general helpers, country by country (a test oracle)."""
    st = _static()
    p, ops, flags = f.seat, f.ops, f.flags
    out: list[tuple[str, str]] = []
    one_per_region = flags & OPF_ONE_PER_REGION
    can_coup = not flags & OPF_NO_COUP and not one_per_region and s.coups_left[p] > 0
    for c in f.scope or range(st.n):
        region = st.region[c]
        moved = c in f.items
        if (moved and s.control[c] == p) or (one_per_region and f.mask >> region & 1):
            continue
        if not can_influence(s, p, c):
            continue
        if s.control[c] != p and not moved:
            cost = pos_cost(s, p, c)[0]
            if cost <= ops and not (one_per_region and cost > 1):
                out.append(st.pos[c])
            if (
                s.control[c] >= 0
                and can_coup
                and coup_possible(s, p, c)
                and coup_cost(s, p, c) <= ops
            ):
                out.append(st.coup[c])
        if s.token[c]:
            if s.token[c] - 1 != BLOC_OF[p]:
                out.append(st.untoken[c])
        elif token_action(s, p, c) is not None:
            out.append(st.token[c])
    _track_options(s, f, out)
    return out


_PRESTIGE = ("prestige", "Advance on the prestige track")
_MEDIA = ("media", "Shift the media marker (2 OPs)")
_MEDIA_RESERVE = ("media_reserve", "Media reserve (1 OP)")
_RESERVE = ("reserve", "OP reserve (1 OP)")
_DONE = ("done", "Done spending OPs")


def permanent_flag(perm_id: str) -> str:
    """The state flag holding the last turn a permanent event is in force."""
    return f"perm:{perm_id}"


def permanent_active(s: NcwState, perm_id: str) -> bool:
    """Whether permanent event `perm_id` is in force (placed and not lapsed or cancelled)."""
    until = s.flags.get(permanent_flag(perm_id), 0)
    return until > 0 and s.turn <= until


def tracks_frozen(s: NcwState, p: int) -> bool:
    """18-Chinese Dissent: China may not advance on the prestige and media tracks now."""
    return p == CHINA and permanent_active(s, "chinese_dissent")


_TRACKS = (_PRESTIGE, _MEDIA, _MEDIA_RESERVE, _RESERVE)


def _track_options(s: NcwState, f: Frame, out: list[tuple[str, str]]) -> None:
    out.extend(_track_pairs(_track_mask(s, f)))


def _track_mask(s: NcwState, f: Frame) -> int:
    """Which of `_TRACKS` an "ops" frame offers, as bits (1 prestige ... 8 OP reserve)."""
    p, ops, flags = f.seat, f.ops, f.flags
    if p == CHINA and s.flags and tracks_frozen(s, p):
        flags |= OPF_PRESTIGE_USED | OPF_MEDIA_USED | OPF_MEDIA_RES_DONE
    mask = 0
    if not flags & OPF_CONTROL_ONLY:
        if not flags & OPF_PRESTIGE_USED and s.prestige[p] < 5 and prestige_cost(s, p) <= ops:
            mask |= 1
        if not flags & OPF_MEDIA_USED and media_pos(s, p) < 5 and ops >= 2:
            mask |= 2
        if not flags & OPF_MEDIA_RES_DONE and s.media_box[p] != 1:
            mask |= 4
        if not flags & OPF_RESERVE_DONE and s.op_reserve[p] != 1:
            mask |= 8
    return mask


@cache
def _track_pairs(mask: int) -> tuple[tuple[str, str], ...]:
    """The track options of a `_track_mask`, then "done"."""
    return (*(pair for i, pair in enumerate(_TRACKS) if mask >> i & 1), _DONE)


@cache
def _track_objects(mask: int) -> tuple[Option, ...]:
    """`_track_pairs` as shared `Option` objects."""
    return tuple(map(option_of, _track_pairs(mask)))


def ops_option_legal(s: NcwState, f: Frame, option: str) -> bool:
    """Whether `option` is legal in an "ops" frame, examining only the country it names."""
    name = option.partition(":")[2]
    if name:
        c = T().country_index.get(name)
        if c is None:
            return False
        return any(i == option for i, _ in ops_options(s, f, only=c))
    out: list[tuple[str, str]] = []
    _track_options(s, f, out)
    return any(i == option for i, _ in out)


def apply_ops_option(s: NcwState, f: Frame, option: str) -> None:
    """Apply one "ops" action to the working copy (the frame is on top of the stack)."""
    p = f.seat
    s.stack.pop()
    if option == "done":
        return
    kind, _, name = option.partition(":")
    flags, ops, items, mask = f.flags, f.ops, f.items, f.mask
    if kind in ("pos", "coup", "token"):
        c = T().country_index[name]
        region = T().country_region[c]
        mask |= 1 << region
        if kind == "pos":
            cost, used = pos_cost(s, p, c)
            if used:
                s.token[c] = 0
            if s.control[c] >= 0:
                set_control(s, c, NOBODY)
            else:
                set_control(s, c, p)
            ops -= cost
            items = (*items, c)
        elif kind == "coup":
            cost = coup_cost(s, p, c)
            if pos_cost(s, p, c)[1]:
                s.token[c] = 0
            do_coup(s, p, c)
            ops -= cost
            items = (*items, c)
        else:
            if s.token[c]:
                s.token[c] = 0
            else:
                place_token(s, c, BLOC_OF[p])
            ops -= 1
    elif kind == "prestige":
        ops -= prestige_cost(s, p)
        change_prestige(s, p, 1)
        flags |= OPF_PRESTIGE_USED
    elif kind == "media":
        ops -= 2
        shift_media(s, BLOC_OF[p], 1)
        flags |= OPF_MEDIA_USED
    elif kind == "media_reserve":
        ops -= 1
        gain_media_reserve(s, p)
        flags |= OPF_MEDIA_RES_DONE
    elif kind == "reserve":
        ops -= 1
        gain_op_reserve(s, p)
        flags |= OPF_RESERVE_DONE
    if ops > 0:
        s.stack.append(Frame("ops", p, f.card, ops, flags, mask, items, f.scope, f.tag))
