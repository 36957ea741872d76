"""The effect interpreter: runs a card's effect steps (data from cards.yaml) on a state.

The core calls `resolve_event` on its working copy when an event resolves. Steps run in
order; a step that needs a player's choice pushes an "fx:" frame on the decision stack
and stops. The core then offers `frame_options(state, frame)` to `frame.seat` and calls
`apply_frame(state, frame, option_id)`, which pops the frame, applies the pick and runs
on until the next choice or the end. An `ops` step hands over to the core's own "ops"
step (`push_ops`) and is always a card's last step. The vocabulary is in EFFECTS.md.

Where the effect picks continue is kept in the frame itself: `tag` is the path of the
step (e.g. "3" or "1/0/2" inside a `choice`), `items` = (executor, player, picks left,
countries already picked...), `mask` = powers picked by `choose_powers`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from warroom.engine.errors import ContentError
from warroom.games.ncw import ops as board
from warroom.games.ncw.cards import (
    PYTHON_EFFECT_NAMES,
    Access,
    CancelPermanent,
    Card,
    Choice,
    ChoosePowers,
    ClearTokens,
    Control,
    CountryVp,
    Coup,
    Destabilize,
    Discard,
    Effect,
    ExtraVeto,
    Media,
    MediaReserve,
    NegativeMedia,
    OpReserve,
    Permanent,
    Pos,
    Prestige,
    PythonEffect,
    RegionVp,
    SpendOps,
    Stabilize,
    Target,
    Uncontrol,
    Vp,
    cards_by_number,
)
from warroom.games.ncw.content import REGION_IDS, tables
from warroom.games.ncw.ops import permanent_active as permanent_active
from warroom.games.ncw.ops import tracks_frozen as tracks_frozen
from warroom.games.ncw.state import (
    ALLY_OF,
    BLOC_OF,
    BLOCS,
    BLUE,
    CHINA,
    NOBODY,
    OPF_CONTROL_ONLY,
    POWERS,
    RED,
    US,
    VETO_UNSC,
    Block,
    Frame,
    NcwState,
    replaced,
)

FX_COUNTRY = "fx:country"
FX_REGION = "fx:region"
FX_POWER = "fx:power"
FX_OPTION = "fx:option"
FX_CARD = "fx:card"
PASS = "pass"


class Ctx(NamedTuple):
    """Who an event runs for: `executor` (the flag, or the player of a neutral card),
    `player` (who placed the card), `chosen` (bitmask of powers picked by the event).
    A named tuple: cheaper to build than a frozen dataclass."""

    card: int
    executor: int
    player: int
    chosen: int = 0


# ---------------------------------------------------------------- public API (called by the core)


def resolve_event(state: NcwState, card: int, owner: int, player: int) -> None:
    """Execute card `card`'s event for `owner` on the working copy `state` (see module doc)."""
    spec = cards_by_number()[card]
    _run(state, Ctx(card, owner, player), spec.effect, (0,))


def frame_options(state: NcwState, frame: Frame) -> list[tuple[str, str]]:
    """The options (id, label) of an "fx:" frame; never empty.

    Each label names the card and what the option does with it.
    """
    t = tables()
    name = cards_by_number()[frame.card].name
    step = _step_at(frame.card, _path(frame.tag))
    ctx = Ctx(frame.card, frame.items[0], frame.items[1], frame.mask)
    out: list[tuple[str, str]]
    if frame.kind == FX_COUNTRY:
        assert isinstance(step, Target)
        head, tail = _LABELS[type(step)](step, ctx)
        head = f"{name}: {head}"
        countries = t.countries
        out = [(f"pick:{countries[c].id}", f"{head}{countries[c].name}{tail}") for c in frame.scope]
    elif frame.kind.startswith(FX_REGION):
        verb = "gain access to" if frame.kind == FX_REGION else "in force in"
        out = [
            (f"region:{REGION_IDS[r]}", f"{name}: {verb} {t.regions[r].name}") for r in frame.scope
        ]
    elif frame.kind == FX_POWER:
        out = [(f"power:{POWERS[p]}", f"{name}: choose {POWERS[p]}") for p in frame.scope]
    elif frame.kind == FX_OPTION:
        assert isinstance(step, Choice)
        out = [(f"opt:{i}", f"{name}: {option.label}") for i, option in enumerate(step.options)]
    elif frame.kind == FX_CARD:
        out = [(f"card:{n}", f"{name}: discard {cards_by_number()[n].name}") for n in frame.scope]
    else:
        raise ValueError(f"not an effect frame: {frame.kind!r}")
    if not out:
        out.append((PASS, f"{name}: nothing to choose, go on"))
    elif frame.flags & _OPTIONAL:
        out.append((PASS, f"{name}: choose no (more), go on"))
    return out


_Label = tuple[str, str]
"""What choosing a country for a targeted step does: the text before and after its name."""


def _label_control(step: Control, ctx: Ctx) -> _Label:
    return f"{POWERS[_one(ctx, step.who)]} takes control of ", ""


def _label_pos(step: Pos, ctx: Ctx) -> _Label:
    plural = "s" if step.n > 1 else ""
    return "move ", f" {step.n} position{plural} toward {POWERS[_one(ctx, step.who)]}"


def _label_coup(step: Coup, ctx: Ctx) -> _Label:
    return "coup d'etat in ", f" for {POWERS[_one(ctx, step.who)]}"


def _label_destabilize(step: Destabilize, ctx: Ctx) -> _Label:
    return "destabilize ", f" for the {BLOCS[_bloc(ctx, step.bloc)]} bloc"


def _label_stabilize(step: Stabilize, ctx: Ctx) -> _Label:
    return f"{BLOCS[_bloc(ctx, step.bloc)]} stability token in ", ""


def _label_country_vp(step: CountryVp, ctx: Ctx) -> _Label:
    return f"{step.delta:+d} VP marker in ", ""


_LABELS: dict[type, Callable[[Any, Ctx], _Label]] = {
    Control: _label_control,
    Pos: _label_pos,
    Uncontrol: lambda step, ctx: ("remove the control of ", ""),
    Coup: _label_coup,
    Destabilize: _label_destabilize,
    Stabilize: _label_stabilize,
    ClearTokens: lambda step, ctx: ("remove the stability tokens from ", ""),
    CountryVp: _label_country_vp,
}
"""Each targeted step type's `_Label` in a context."""


def apply_frame(state: NcwState, frame: Frame, option_id: str) -> None:
    """Apply the chosen option of the "fx:" frame on top of the stack and run on."""
    state.stack.pop()
    path = _path(frame.tag)
    executor, player, left, *picked = frame.items
    ctx = Ctx(frame.card, executor, player, frame.mask)
    step = _step_at(frame.card, path)
    kind, _, value = option_id.partition(":")
    if option_id == PASS:
        _run_after(state, ctx, path)
        return
    if frame.kind == FX_OPTION and isinstance(step, Choice):
        index = int(value)
        _run(state, ctx, step.options[index].effect, (*path, index, 0))
        return
    if frame.kind == FX_COUNTRY:
        c = tables().country_index[value]
        assert isinstance(step, Target)
        _apply_to_country(state, ctx, step, c)
        picked.append(c)
        if left > 1 and _continue_picks(state, ctx, step, path, left - 1, tuple(picked)):
            return
    elif frame.kind == FX_REGION:
        board.grant_access(state, frame.seat, REGION_IDS.index(value))
    elif frame.kind.startswith(FX_REGION + ":") and isinstance(step, Permanent):
        place_permanent(state, step.id, ctx.executor, step.until, REGION_IDS.index(value))
    elif frame.kind == FX_POWER:
        ctx = Ctx(ctx.card, ctx.executor, ctx.player, ctx.chosen | 1 << POWERS.index(value))
        if left > 1:
            scope = tuple(p for p in frame.scope if p != POWERS.index(value))
            state.push(
                Frame(
                    FX_POWER,
                    executor,
                    ctx.card,
                    0,
                    0,
                    ctx.chosen,
                    (executor, player, left - 1),
                    scope,
                    frame.tag,
                )
            )
            return
    elif frame.kind == FX_CARD and kind == "card":
        number = int(value)
        owner = frame.seat
        if number in state.hands[owner]:
            state.hands[owner] = [n for n in state.hands[owner] if n != number]
            state.removed = [*state.removed, number]
    _run_after(state, ctx, path)


def event_playable(state: NcwState, card: int, power: int) -> bool:
    """Whether `power` may play `card` for its event now (orange band, required or blocking
    permanent events, and the war condition of 2.2.1)."""
    spec = cards_by_number()[card]
    if POWERS[power] in spec.not_playable_by:
        return False
    if spec.requires is not None and not permanent_active(state, spec.requires):
        return False
    if spec.blocked_by is not None and permanent_active(state, spec.blocked_by):
        return False
    if spec.war is not None:
        return war_happens(state, card)
    return True


def war_happens(state: NcwState, card: int) -> bool:
    """Whether a war card's war takes place (2.2.1): some country it is about (`war`,
    `war_also`) is not held by the card's power (the core's `flow.war_held`; docs/rulings.md)."""
    spec = cards_by_number()[card]
    if spec.war is None or spec.power is None:
        return False
    owner = POWERS.index(spec.power)
    index = tables().country_index
    return any(state.control[index[name]] != owner for name in spec.war_targets)


def fake_news(state: NcwState) -> tuple[str, int] | None:
    """80-Fake News still waiting: ("prestige" or "scoring", the power that played it)."""
    for kind in ("prestige", "scoring"):
        value = state.flags.get(_flag(f"fake_news_{kind}"), 0)
        if value:
            return kind, state.flags.get(_flag(f"fake_news_{kind}") + ":by", 0)
    return None


# ---------------------------------------------------------------- the runner

_OPTIONAL = 1


def _path(tag: str) -> tuple[int, ...]:
    return tuple(int(part) for part in tag.split("/")) if tag else ()


def _tag(path: Sequence[int]) -> str:
    return "/".join(str(i) for i in path)


def _steps_at(card: int, path: tuple[int, ...]) -> tuple[Effect, ...]:
    """The step list the last index of `path` points into."""
    steps: tuple[Effect, ...] = cards_by_number()[card].effect
    i = 0
    while i < len(path) - 1:
        step = steps[path[i]]
        assert isinstance(step, Choice)
        steps = step.options[path[i + 1]].effect
        i += 2
    return steps


def _step_at(card: int, path: tuple[int, ...]) -> Effect:
    return _steps_at(card, path)[path[-1]]


def choice_effects(frame: Frame) -> tuple[tuple[Effect, ...], ...]:
    """The effects of each option of an FX_OPTION frame, in the order of its "opt:i" ids."""
    step = _step_at(frame.card, _path(frame.tag))
    assert isinstance(step, Choice)
    return tuple(option.effect for option in step.options)


def _run_after(state: NcwState, ctx: Ctx, path: tuple[int, ...]) -> None:
    """Continue with the step after `path` (climbing out of finished choice branches)."""
    while path:
        steps = _steps_at(ctx.card, path)
        if path[-1] + 1 < len(steps):
            _run(state, ctx, steps, (*path[:-1], path[-1] + 1))
            return
        path = path[:-2]


def _run(state: NcwState, ctx: Ctx, steps: Sequence[Effect], path: tuple[int, ...]) -> None:
    """Run `steps` from index path[-1]; stop at the first pushed choice."""
    depth = len(state.stack)
    for i in range(path[-1], len(steps)):
        here = (*path[:-1], i)
        _step(state, ctx, steps[i], here)
        if len(state.stack) > depth:
            top = state.stack[-1]
            if top.kind.startswith("fx:") or top.kind == "ops":
                return
    if len(path) > 1:
        _run_after(state, ctx, (*path[:-1], len(steps) - 1))


def _step(state: NcwState, ctx: Ctx, step: Effect, path: tuple[int, ...]) -> None:
    if isinstance(step, Target):
        if step.choose == 0:
            for c in _candidates(state, ctx, step):
                _apply_to_country(state, ctx, step, c)
        else:
            _continue_picks(state, ctx, step, path, step.choose, ())
        return
    _HANDLERS[type(step)](state, ctx, step, path)


def _continue_picks(
    state: NcwState,
    ctx: Ctx,
    step: Target,
    path: tuple[int, ...],
    left: int,
    picked: tuple[int, ...],
) -> bool:
    """Push the next country pick of `step` if any candidate is left; True when pushed."""
    scope = tuple(c for c in _candidates(state, ctx, step) if c not in picked)
    if not scope:
        return False
    chooser = _one(ctx, step.chooser)
    flags = _OPTIONAL if step.upto else 0
    state.push(
        Frame(
            FX_COUNTRY,
            chooser,
            ctx.card,
            0,
            flags,
            ctx.chosen,
            (ctx.executor, ctx.player, left, *picked),
            scope,
            _tag(path),
        )
    )
    return True


# ---------------------------------------------------------------- powers and candidates


def _one(ctx: Ctx, ref: str) -> int:
    if ref == "self":
        return ctx.executor
    if ref == "player":
        return ctx.player
    if ref == "ally":
        return ALLY_OF[ctx.executor]
    return POWERS.index(ref)


def _many(ctx: Ctx, ref: str) -> list[int]:
    if ref == "opponents":
        return [p for p in range(4) if p != ctx.executor]
    if ref == "rival_bloc":
        return [p for p in range(4) if BLOC_OF[p] != BLOC_OF[ctx.executor]]
    if ref == "chosen":
        return [p for p in range(4) if ctx.chosen >> p & 1]
    return [_one(ctx, ref)]


def _bloc(ctx: Ctx, ref: str) -> int:
    own = BLOC_OF[ctx.executor]
    return {"self": own, "rival": 1 - own, "red": RED, "blue": BLUE}[ref]


def _beneficiary(ctx: Ctx, step: Target) -> int | None:
    """The power a step influences for (subject to access and blocks), or None."""
    if isinstance(step, (Control, Pos, Coup)):
        return _one(ctx, step.who)
    if (
        isinstance(step, (Destabilize, Stabilize))
        and _bloc(ctx, step.bloc) == BLOC_OF[ctx.executor]
    ):
        return ctx.executor
    return None


_ControlTest = Callable[[int, int], bool]
"""Whether a country's controller passes a `controlled_by` filter, given the executor."""

_CONTROL_TESTS: dict[str, _ControlTest] = {
    "none": lambda ctrl, me: ctrl < 0,
    "controlled": lambda ctrl, me: ctrl >= 0,
    "self": lambda ctrl, me: ctrl == me,
    "ally": lambda ctrl, me: ctrl == ALLY_OF[me],
    "opponent": lambda ctrl, me: ctrl >= 0 and ctrl != me,
    "not_self": lambda ctrl, me: ctrl != me,
    "rival_bloc": lambda ctrl, me: ctrl >= 0 and BLOC_OF[ctrl] != BLOC_OF[me],
    "own_bloc": lambda ctrl, me: ctrl >= 0 and BLOC_OF[ctrl] == BLOC_OF[me],
    "not_own_bloc": lambda ctrl, me: ctrl < 0 or BLOC_OF[ctrl] != BLOC_OF[me],
}


def _control_test(flt: str) -> _ControlTest | None:
    """The test of a `controlled_by` filter ("any": None, every controller passes; a power's
    name: that power controls)."""
    if flt == "any":
        return None
    test = _CONTROL_TESTS.get(flt)
    if test is None:
        power = POWERS.index(flt)
        _CONTROL_TESTS[flt] = test = lambda ctrl, me: ctrl == power
    return test


_TARGETS: dict[int, tuple[Target, tuple[int, ...]]] = {}


def _target_countries(step: Target) -> tuple[int, ...]:
    """The distinct countries a step names (`countries`, then `regions`, then `subregions`).

    Memoized per step object (content steps live as long as the process).
    """
    hit = _TARGETS.get(id(step))
    if hit is not None and hit[0] is step:
        return hit[1]
    t = tables()
    index = t.country_index
    names: list[int] = [index[n] for n in step.countries]
    for region_id in step.regions:
        names.extend(t.region_countries[REGION_IDS.index(region_id)])
    for sub in step.subregions:
        names.extend(t.subregion_members[[s.id for s in t.subregions].index(sub)])
    countries = tuple(dict.fromkeys(names))
    if len(_TARGETS) < 10_000:
        _TARGETS[id(step)] = (step, countries)
    return countries


def _candidates(state: NcwState, ctx: Ctx, step: Target) -> list[int]:
    """Every country `step` may affect now, in content order, filtered (see EFFECTS.md).

    The step's filters are looked up once (the country tests by the step's exact type).
    """
    t = tables()
    me = ctx.executor
    my_bloc = BLOC_OF[me]
    control = state.control
    in_control = _control_test(step.controlled_by)
    stability, stability_max = step.stability, step.stability_max
    check_stability = stability is not None or stability_max is not None
    types, countries = step.types, t.countries
    fits = _FIT_TESTS[type(step)](state, ctx, step)
    who = _beneficiary(ctx, step)
    access = state.access[who] if who is not None and not step.grant_access else -1
    region = t.country_region
    blocker = who if who is not None and state.blocks else NOBODY
    out: list[int] = []
    for c in _target_countries(step):
        ctrl = control[c]
        if in_control is not None and not in_control(ctrl, me):
            continue
        if check_stability:
            stab = board.stability_for(state, c, my_bloc)
            if stability is not None and stab != stability:
                continue
            if stability_max is not None and stab > stability_max:
                continue
        if types and countries[c].type not in types:
            continue
        if step.exclude_rival_orbit:
            owner = board.orbit_owner(state, c)
            if owner >= 0 and BLOC_OF[owner] != my_bloc:
                continue
        if fits is not None and not fits(c, ctrl):
            continue
        if not access >> region[c] & 1:
            continue
        if blocker >= 0 and board.blocked(state, blocker, c, by_ops=False):
            continue
        out.append(c)
    return out


_FitTest = Callable[[int, int], bool]
"""Whether a step would change anything in country c with controller ctrl."""


def _fits_who(state: NcwState, ctx: Ctx, step: Control | Pos) -> _FitTest:
    who = _one(ctx, step.who)
    return lambda c, ctrl: ctrl != who


def _fits_coup(state: NcwState, ctx: Ctx, step: Coup) -> _FitTest:
    who = _one(ctx, step.who)
    return lambda c, ctrl: ctrl >= 0 and ctrl != who


def _fits_uncontrol(state: NcwState, ctx: Ctx, step: Uncontrol) -> _FitTest:
    return lambda c, ctrl: ctrl >= 0


def _fits_destabilize(state: NcwState, ctx: Ctx, step: Destabilize) -> _FitTest:
    bloc = _bloc(ctx, step.bloc)
    token, perm = state.token, state.perm_destab

    def fits(c: int, ctrl: int) -> bool:
        if ctrl >= 0 and BLOC_OF[ctrl] == bloc:
            return False
        if bloc == BLUE and perm.get(c, -1) == RED:
            return False
        return token[c] != bloc + 1

    return fits


def _fits_stabilize(state: NcwState, ctx: Ctx, step: Stabilize) -> _FitTest:
    bloc = _bloc(ctx, step.bloc)
    token, perm = state.token, state.perm_destab

    def fits(c: int, ctrl: int) -> bool:
        if ctrl < 0 or BLOC_OF[ctrl] != bloc or token[c] == bloc + 1:
            return False
        return not (bloc == BLUE and perm.get(c, -1) == RED)

    return fits


def _fits_clear(state: NcwState, ctx: Ctx, step: ClearTokens) -> _FitTest:
    token = state.token
    return lambda c, ctrl: token[c] != 0


def _fits_always(state: NcwState, ctx: Ctx, step: Target) -> None:
    return None


_FIT_TESTS: dict[type, Callable[[NcwState, Ctx, Any], _FitTest | None]] = {
    Control: _fits_who,
    Pos: _fits_who,
    Coup: _fits_coup,
    Uncontrol: _fits_uncontrol,
    Destabilize: _fits_destabilize,
    Stabilize: _fits_stabilize,
    ClearTokens: _fits_clear,
    CountryVp: _fits_always,
}
"""Each targeted step type's `_FitTest` for one state and context (None: always fits)."""


def _fits(state: NcwState, ctx: Ctx, step: Target, c: int, ctrl: int) -> bool:
    """Whether the step would change anything in c."""
    test = _FIT_TESTS[type(step)](state, ctx, step)
    return test is None or test(c, ctrl)


def _apply_to_country(state: NcwState, ctx: Ctx, step: Target, c: int) -> None:
    """Apply one targeted step to country c."""
    if step.grant_access:
        region = tables().country_region[c]
        beneficiary = _beneficiary(ctx, step)
        if beneficiary is not None:
            board.grant_access(state, beneficiary, region)
            if not board.has_access(state, beneficiary, region):
                return
    _APPLIERS[type(step)](state, ctx, step, c)


def _apply_control(state: NcwState, ctx: Ctx, step: Control | Coup, c: int) -> None:
    board.set_control(state, c, _one(ctx, step.who))


def _apply_pos(state: NcwState, ctx: Ctx, step: Pos, c: int) -> None:
    who = _one(ctx, step.who)
    for _ in range(step.n):
        ctrl = state.control[c]
        if ctrl == who:
            break
        board.set_control(state, c, who if ctrl < 0 else NOBODY)


def _apply_uncontrol(state: NcwState, ctx: Ctx, step: Uncontrol, c: int) -> None:
    board.set_control(state, c, NOBODY)


def _apply_token(state: NcwState, ctx: Ctx, step: Destabilize | Stabilize, c: int) -> None:
    if _fits(state, ctx, step, c, state.control[c]):
        board.place_token(state, c, _bloc(ctx, step.bloc))


def _apply_clear(state: NcwState, ctx: Ctx, step: ClearTokens, c: int) -> None:
    board.remove_token(state, c)


def _apply_country_vp(state: NcwState, ctx: Ctx, step: CountryVp, c: int) -> None:
    ctrl = state.control[c]
    if ctrl >= 0:
        board.change_vp(state, ctrl, step.delta)
    else:
        state.country_vp_mod = replaced(
            state.country_vp_mod, c, state.country_vp_mod[c] + step.delta
        )


_APPLIERS: dict[type, Callable[[NcwState, Ctx, Any, int], None]] = {
    Control: _apply_control,
    Pos: _apply_pos,
    Coup: _apply_control,
    Uncontrol: _apply_uncontrol,
    Destabilize: _apply_token,
    Stabilize: _apply_token,
    ClearTokens: _apply_clear,
    CountryVp: _apply_country_vp,
}
"""Each targeted step type's change to one country."""


# ---------------------------------------------------------------- untargeted primitives

Handler = Callable[[NcwState, Ctx, Effect, tuple[int, ...]], None]


def _prestige(state: NcwState, ctx: Ctx, step: Effect, path: tuple[int, ...]) -> None:
    assert isinstance(step, Prestige)
    for p in _many(ctx, step.who):
        if step.delta > 0 and tracks_frozen(state, p):
            continue
        board.change_prestige(state, p, step.delta)


def _media(state: NcwState, ctx: Ctx, step: Effect, path: tuple[int, ...]) -> None:
    assert isinstance(step, Media)
    bloc = _bloc(ctx, step.toward)
    if bloc == BLOC_OF[CHINA] and tracks_frozen(state, ctx.executor):
        return
    board.shift_media(state, bloc, step.steps)


def _media_reserve(state: NcwState, ctx: Ctx, step: Effect, path: tuple[int, ...]) -> None:
    assert isinstance(step, MediaReserve)
    p = _one(ctx, step.who)
    if not tracks_frozen(state, p):
        board.gain_media_reserve(state, p)


def _negative_media(state: NcwState, ctx: Ctx, step: Effect, path: tuple[int, ...]) -> None:
    assert isinstance(step, NegativeMedia)
    board.negative_media_marker(state, _one(ctx, step.who))


def _op_reserve(state: NcwState, ctx: Ctx, step: Effect, path: tuple[int, ...]) -> None:
    assert isinstance(step, OpReserve)
    board.gain_op_reserve(state, _one(ctx, step.who))


def _vp(state: NcwState, ctx: Ctx, step: Effect, path: tuple[int, ...]) -> None:
    assert isinstance(step, Vp)
    for p in _many(ctx, step.who):
        board.change_vp(state, p, step.delta)


def _region_vp(state: NcwState, ctx: Ctx, step: Effect, path: tuple[int, ...]) -> None:
    assert isinstance(step, RegionVp)
    slot = REGION_IDS.index(step.region) * 4 + _one(ctx, step.who)
    if step.permanent:
        state.region_vp_mod_perm = replaced(
            state.region_vp_mod_perm, slot, state.region_vp_mod_perm[slot] + step.delta
        )
    else:
        state.region_vp_mod = replaced(
            state.region_vp_mod, slot, state.region_vp_mod[slot] + step.delta
        )


def _access(state: NcwState, ctx: Ctx, step: Effect, path: tuple[int, ...]) -> None:
    assert isinstance(step, Access)
    p = _one(ctx, step.who)
    for region_id in step.regions:
        board.grant_access(state, p, REGION_IDS.index(region_id))
    if step.choose:
        locks = tables().setup.permanent_locks.get(POWERS[p], [])
        scope = tuple(
            r
            for r in range(len(REGION_IDS))
            if not board.has_access(state, p, r) and REGION_IDS[r] not in locks
        )
        if scope:
            state.push(
                Frame(
                    FX_REGION,
                    p,
                    ctx.card,
                    0,
                    0,
                    ctx.chosen,
                    (ctx.executor, ctx.player, 1),
                    scope,
                    _tag(path),
                )
            )


def _spend_ops(state: NcwState, ctx: Ctx, step: Effect, path: tuple[int, ...]) -> None:
    assert isinstance(step, SpendOps)
    t = tables()
    names = [t.country_index[n] for n in step.countries]
    for region_id in step.regions:
        names.extend(t.region_countries[REGION_IDS.index(region_id)])
    for sub in step.subregions:
        names.extend(t.subregion_members[[s.id for s in t.subregions].index(sub)])
    scope = tuple(sorted(set(names)))
    board.push_ops(state, _one(ctx, step.who), step.amount, ctx.card, OPF_CONTROL_ONLY, scope)


def _permanent(state: NcwState, ctx: Ctx, step: Effect, path: tuple[int, ...]) -> None:
    assert isinstance(step, Permanent)
    if step.choose_region:
        scope = tuple(range(len(REGION_IDS)))
        state.push(
            Frame(
                FX_REGION + ":" + step.id,
                ctx.executor,
                ctx.card,
                0,
                0,
                ctx.chosen,
                (ctx.executor, ctx.player, 1),
                scope,
                _tag(path),
            )
        )
        return
    region = REGION_IDS.index(step.region) if step.region else -1
    place_permanent(state, step.id, ctx.executor, step.until, region)


def _cancel(state: NcwState, ctx: Ctx, step: Effect, path: tuple[int, ...]) -> None:
    assert isinstance(step, CancelPermanent)
    cancel_permanent(state, step.id)


def _extra_veto(state: NcwState, ctx: Ctx, step: Effect, path: tuple[int, ...]) -> None:
    assert isinstance(step, ExtraVeto)
    p = _one(ctx, step.who)
    state.vetoes = replaced(state.vetoes, p, state.vetoes[p] | VETO_UNSC)


def _discard(state: NcwState, ctx: Ctx, step: Effect, path: tuple[int, ...]) -> None:
    assert isinstance(step, Discard)
    p = _one(ctx, step.who)
    specs = cards_by_number()
    scope = tuple(
        n for n in state.hands[p] if n != ctx.card and (step.only == "any" or specs[n].crisis)
    )
    if scope:
        flags = _OPTIONAL if step.upto else 0
        state.push(
            Frame(
                FX_CARD,
                p,
                ctx.card,
                0,
                flags,
                ctx.chosen,
                (ctx.executor, ctx.player, step.n),
                scope,
                _tag(path),
            )
        )


def _choose_powers(state: NcwState, ctx: Ctx, step: Effect, path: tuple[int, ...]) -> None:
    assert isinstance(step, ChoosePowers)
    scope = tuple(p for p in range(4) if p != ctx.executor)
    state.push(
        Frame(
            FX_POWER,
            ctx.executor,
            ctx.card,
            0,
            0,
            ctx.chosen,
            (ctx.executor, ctx.player, step.n),
            scope,
            _tag(path),
        )
    )


def _choice(state: NcwState, ctx: Ctx, step: Effect, path: tuple[int, ...]) -> None:
    assert isinstance(step, Choice)
    state.push(
        Frame(
            FX_OPTION,
            ctx.executor,
            ctx.card,
            0,
            0,
            ctx.chosen,
            (ctx.executor, ctx.player, 1),
            (),
            _tag(path),
        )
    )


def _python(state: NcwState, ctx: Ctx, step: Effect, path: tuple[int, ...]) -> None:
    assert isinstance(step, PythonEffect)
    PYTHON_EFFECTS[step.name](state, ctx)


# ---------------------------------------------------------------- permanent events (Annex III)


_flag = board.permanent_flag


def _opponents_mask(p: int) -> int:
    return sum(1 << q for q in range(4) if q != p)


def place_permanent(
    state: NcwState, perm_id: str, executor: int, until: str = "game", region: int = -1
) -> None:
    """Put permanent event `perm_id` in force, with the board changes its Annex III rule needs."""
    t = tables()
    last = {
        "game": 99,
        "turn": state.turn,
        "next_turn": state.turn + 1,
        "decade": state.decade * 3,
    }[until]
    state.flags = {**state.flags, _flag(perm_id): last}
    state.blocks = state.blocks.copy()
    index = t.country_index
    if perm_id == "consensus_1992":
        state.blocks.append(
            Block(_opponents_mask(CHINA), country=index["taiwan"], ops_only=False, tag=perm_id)
        )
    elif perm_id == "china_japan":
        state.blocks.append(Block(1 << CHINA, country=index["japan"], ops_only=False, tag=perm_id))
    elif perm_id in ("israeli_palestinian", "farc"):
        c = index["israel" if perm_id == "israeli_palestinian" else "colombia"]
        state.perm_destab = {**state.perm_destab, c: RED}
        if state.token[c] == BLUE + 1:
            state.token[c] = 0
    elif perm_id == "netanyahu":
        for name in ("iran", "syria"):
            state.blocks.append(
                Block(_opponents_mask(US), country=index[name], until_turn=last, tag=perm_id)
            )
    elif perm_id == "kurdish_conflict":
        state.orbit_override = {**state.orbit_override, index["turkey"]: NOBODY}
    elif perm_id == "peace_talks":
        state.blocks.append(Block(0b1111, region=region, until_turn=last, tag=perm_id))
    elif perm_id == "sumatra_earthquake":
        state.blocks.append(
            Block(_opponents_mask(executor), region=region, until_turn=last, tag=perm_id)
        )
    elif perm_id.startswith("fake_news"):
        state.flags[_flag(perm_id) + ":by"] = executor


def cancel_permanent(state: NcwState, perm_id: str) -> None:
    """End permanent event `perm_id` (49-Tsai Ing-Wen, 50-Netanyahu; see docs/rulings.md)."""
    if not permanent_active(state, perm_id):
        return
    state.flags = {**state.flags, _flag(perm_id): 0}
    state.blocks = [b for b in state.blocks if b.tag != perm_id]
    if perm_id == "israeli_palestinian":
        slot = REGION_IDS.index("MEA") * 4 + US
        state.region_vp_mod_perm = replaced(
            state.region_vp_mod_perm, slot, state.region_vp_mod_perm[slot] + 1
        )


def consume_fake_news(state: NcwState, kind: str) -> int | None:
    """At a prestige check ("prestige") or global scoring ("scoring"): the power whose 80-Fake
    News applies now, clearing it; None when none waits."""
    key = _flag(f"fake_news_{kind}")
    if not state.flags.get(key):
        return None
    by = state.flags.get(key + ":by", 0)
    state.flags = {**state.flags, key: 0}
    return by


# ---------------------------------------------------------------- Python effects


def _kyoto_us_penalty(state: NcwState, ctx: Ctx) -> None:
    """55-Kyoto Protocol: the US loses 1 prestige unless it is the one playing the event."""
    if ctx.executor != US:
        board.change_prestige(state, US, -1)


PYTHON_EFFECTS: dict[str, Callable[[NcwState, Ctx], None]] = {
    "kyoto_us_penalty": _kyoto_us_penalty,
}
if set(PYTHON_EFFECTS) != PYTHON_EFFECT_NAMES:
    raise ContentError(
        "warroom/games/ncw/effects.py",
        "PYTHON_EFFECTS",
        None,
        f"implements {sorted(PYTHON_EFFECTS)}, but cards may name {sorted(PYTHON_EFFECT_NAMES)}"
        " (cards.PYTHON_EFFECT_NAMES)",
    )

_HANDLERS: dict[type, Handler] = {
    Prestige: _prestige,
    Media: _media,
    MediaReserve: _media_reserve,
    NegativeMedia: _negative_media,
    OpReserve: _op_reserve,
    Vp: _vp,
    RegionVp: _region_vp,
    Access: _access,
    SpendOps: _spend_ops,
    Permanent: _permanent,
    CancelPermanent: _cancel,
    ExtraVeto: _extra_veto,
    Discard: _discard,
    ChoosePowers: _choose_powers,
    Choice: _choice,
    PythonEffect: _python,
}


def card(number: int) -> Card:
    """One card's data."""
    return cards_by_number()[number]
