"""Card effects: play text as data over a small vocabulary of effect primitives.

A card's `effect` is a list of steps, each a mapping with an `op`:

- `deploy` / `recruit` {piece, faction?, at?, optional?, tag?, optional_after?}: place one
  available piece (deploy: a controlled space where it is supplied; recruit: also an
  unoccupied enemy-controlled space, supply not needed, taking control). With none
  available the player may first remove one of that kind from the board, or deploy fewer.
  `optional_after: <tag>` is "A and/or B": B may be skipped only once A (the tagged step)
  placed its piece, and A only while B is possible.
- `follow` {tag, move, attack}: "then move that piece or attack with a force containing it".
- `move` {factions, kinds?, into?, count?}: move pieces (Action-step rules; may "move" in place).
- `attack` {faction?, containing?, target?, optional?}: start a combat.
- `eliminate` {side: enemy|own, factions?, kinds?, at?, unless_discard?}: remove a piece, no
  reactions; with `unless_discard` the owner may discard a card of its faction instead.
- `activate` {country, if_possible} / `declare_war` {country, if_possible}: minor countries.
- `vp` {who: self|enemy, amount}, `draw` {count}, `enemy_discard` {count}.
- `pay` {discard, or_enemy_vp}: discard cards or give the opponent VPs.
- `another_action` {discard?}: take another action (optionally paying a discard).
- `require` {controls | piece}: a prerequisite; `malta_depot`; `supply_flag` {marker}.
- `choose` {options, labels}: one of several step lists.

Filters (`at`, `into`, `target`): location alternatives `in`, `near` (in or adjacent),
`adjacent`, `desert`, `near_tag`, `adjacent_piece` {faction, kind} (any may match), and
`kind` land|water (must match).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from warroom.games.qmg_sf import board, cards, combat
from warroom.games.qmg_sf.board import adjacent, faction, kind, side_of
from warroom.games.qmg_sf.content import COUNTRIES, FACTIONS, KINDS, SIDE_OF_FACTION, tables
from warroom.games.qmg_sf.movement import destinations
from warroom.games.qmg_sf.state import (
    AIR,
    CARRIER,
    FLEET,
    FRANCE,
    GONE,
    NEUTRAL,
    OFF,
    UK,
    USA,
    Ctx,
    Frame,
    SfState,
)
from warroom.games.qmg_sf.supply import airplane_on, reach, supplied_at

Step = dict[str, Any]
Options = list[tuple[str, str]]
PLACING = ("deploy", "recruit")


def steps_of(card_id: int, face: int, branch: str) -> tuple[Step, ...]:
    """The step list of a card face, or of a chosen sub-list ("i.b" paths)."""
    info = cards.card(card_id)
    steps: tuple[Step, ...] = info.second_effect if face else info.effect
    if branch:
        parts = [int(x) for x in branch.split(".")]
        for i in range(0, len(parts), 2):
            steps = tuple(steps[parts[i]]["options"][parts[i + 1]])
    return steps


def step_of(frame: Frame) -> Step:
    """The step a decision frame belongs to."""
    return steps_of(frame.card, frame.face, frame.branch)[frame.pc]


def card_faction(frame: Frame, step: Step) -> int:
    """The faction a step acts for: its own `faction` or the card's."""
    if "faction" in step:
        return FACTIONS.index(step["faction"])
    return cards.card(frame.card).faction


def match(s: SfState, flt: dict[str, Any] | None, space: int, side: int) -> bool:
    """Whether a space passes a filter."""
    if not flt:
        return True
    t = tables()
    if "kind" in flt and t.water[space] != (flt["kind"] == "water"):
        return False
    alts = False
    hit = False
    if "in" in flt:
        alts = True
        hit = hit or t.space_ids[space] in flt["in"]
    if "near" in flt:
        alts = True
        ids = [t.space(x) for x in flt["near"]]
        hit = hit or space in ids or any(i in adjacent(s, space, side) for i in ids)
    if "adjacent" in flt:
        alts = True
        ids = [t.space(x) for x in flt["adjacent"]]
        hit = hit or any(i in adjacent(s, space, side) for i in ids)
    if "desert" in flt:
        alts = True
        hit = hit or t.desert[space]
    if "near_tag" in flt:
        alts = True
        p = s.tags.get(flt["near_tag"], -1)
        if p >= 0 and s.loc[p] != OFF:
            hit = hit or space == s.loc[p] or s.loc[p] in adjacent(s, space, side)
    if "adjacent_piece" in flt:
        alts = True
        fac = FACTIONS.index(flt["adjacent_piece"]["faction"])
        k = KINDS.index(flt["adjacent_piece"]["kind"])
        near = adjacent(s, space, side)
        # "An airplane being transported cannot fulfill a card's prerequisite" (airplanes
        # only: a transported infantry is still a piece in its water space, ruling 24)
        hit = hit or any(
            at in near
            and faction(p) == fac
            and kind(p) == k
            and not (k == AIR and board.transported(s, p))
            for p, at in enumerate(s.loc)
            if at != OFF
        )
    return hit or not alts


def matching(s: SfState, flt: dict[str, Any] | None, side: int) -> list[int]:
    """Every space passing a filter (in index order)."""
    t = tables()
    if not flt:
        return list(range(len(t.space_ids)))
    if set(flt) <= {"in", "near", "kind", "desert"}:
        cand: set[int] = set()
        alts = False
        if "in" in flt:
            alts = True
            cand.update(t.space(x) for x in flt["in"])
        if "near" in flt:
            alts = True
            for x in flt["near"]:
                i = t.space(x)
                cand.add(i)
                cand.update(adjacent(s, i, side))
        if "desert" in flt:
            alts = True
            cand.update(i for i, d in enumerate(t.desert) if d)
        if not alts:
            cand = set(range(len(t.space_ids)))
        if "kind" in flt:
            water = flt["kind"] == "water"
            cand = {i for i in cand if t.water[i] == water}
        return sorted(cand)
    return [sp for sp in range(len(t.space_ids)) if match(s, flt, sp, side)]


def placements(
    s: SfState, fac: int, k: int, recruit: bool, flt: dict[str, Any] | None
) -> list[tuple[int, int]]:
    """Where a piece of `fac`/`k` may be deployed (or recruited): (space, fleet/carrier or -1)."""
    t = tables()
    side = SIDE_OF_FACTION[fac]
    if not recruit and board.usa_idle(s, fac):
        return []
    reached = reach(s, fac) if not recruit else frozenset()
    occ = board.occupancy(s)
    enemy_bit = 1 << (1 - side)
    enemy_fleet_bit = 4 << (1 - side)
    out: list[tuple[int, int]] = []
    for sp in matching(s, flt, side):
        if s.control[sp] == NEUTRAL or occ[sp] & enemy_bit:
            continue
        if not recruit:
            if t.water[sp]:
                if occ[sp] & enemy_fleet_bit:
                    continue
            elif s.control[sp] != side:
                continue
        if not recruit and not supplied_at(s, fac, sp, reached):
            continue
        water = t.water[sp]
        if k in (FLEET, CARRIER):
            if water:
                out.append((sp, -1))
            continue
        if not water:
            out.append((sp, -1))
            continue
        for p, at in enumerate(s.loc):
            if at != sp or side_of(p) != side:
                continue
            if (kind(p) == FLEET and not board.cargo(s, p) and _transportable(p, fac)) or (
                kind(p) == CARRIER and k == AIR and faction(p) == fac and not airplane_on(s, p)
            ):
                out.append((sp, p))
    return out


def _transportable(fleet: int, fac: int) -> bool:
    ff = faction(fleet)
    if SIDE_OF_FACTION[ff] != SIDE_OF_FACTION[fac]:
        return False
    return SIDE_OF_FACTION[ff] == 0 or fac in (ff, 4)


def place_options(
    s: SfState,
    fac: int,
    k: int,
    recruit: bool,
    flt: dict[str, Any] | None,
    optional: bool,
    must_attack: bool = False,
) -> Options:
    """Options of a deploy/recruit decision: d<space>[-<carrier>], free<piece>, skip.

    `must_attack`: the piece must then attack ("then attack with a force containing that
    tank"), so only a placement from which it can attack is offered."""
    out: Options = []
    if optional:
        out.append(("skip", "Do not place"))
    spots = placements(s, fac, k, recruit, flt)
    if must_attack:
        spots = [spot for spot in spots if _attacks_after(s, fac, k, spot)]
    if not spots:
        return out or [("skip", "Nothing can be placed")]
    if not board.available(s, fac, k):
        if not optional:
            out.append(("skip", "Deploy fewer pieces"))
        for p in board.on_board(s, fac, k):
            out.append((f"free{p}", f"Remove {board.piece_name(p)} from the board to place it"))
        return out
    for sp, on in spots:
        tail = f"-{on}" if on >= 0 else ""
        where = board.name(sp) + (f" aboard {board.piece_name(on)}" if on >= 0 else "")
        out.append(
            (
                f"d{sp}{tail}",
                f"{'Recruit' if recruit else 'Deploy'} {FACTIONS[fac]} {KINDS[k]} in {where}",
            )
        )
    return out


def do_place(s: SfState, fac: int, k: int, recruit: bool, option: str, ctx: Ctx) -> int:
    """Carry out a d<space>[-<carrier>] option; the piece placed."""
    parts = [int(x) for x in option[1:].split("-")]
    sp, on = parts[0], parts[1] if len(parts) > 1 else -1
    piece = board.available(s, fac, k)[0]
    board.place(s, piece, sp, on)
    if recruit and not tables().water[sp]:
        s.set_control(sp, SIDE_OF_FACTION[fac])
    ctx.log(f"{'recruits' if recruit else 'deploys'} {board.piece_name(piece)} in {board.name(sp)}")
    return piece


def _move_candidates(s: SfState, step: Step, done: tuple[int, ...]) -> Options:
    facs = {FACTIONS.index(f) for f in step.get("factions", [])}
    kinds = {KINDS.index(k) for k in step.get("kinds", KINDS)}
    into = step.get("into")
    out: Options = []
    for p, at in enumerate(s.loc):
        if at == OFF or p in done or faction(p) not in facs or kind(p) not in kinds:
            continue
        side = side_of(p)
        if s.on[p] < 0 and match(s, into, at, side) and not board.usa_idle(s, faction(p)):
            out.append((f"st{p}", f"{board.piece_name(p)} moves in place"))
        for sp, on in destinations(s, p, "action"):
            if match(s, into, sp, side):
                tail = f"-{on}" if on >= 0 else ""
                out.append((f"m{p}-{sp}{tail}", f"Move {board.piece_name(p)} to {board.name(sp)}"))
    return out


def _attack_options(s: SfState, side: int, step: Step, fac: int | None) -> Options:
    containing = KINDS.index(step["containing"]) if step.get("containing") else -1
    target = step.get("target")
    out: Options = []
    for f, src, tgt in combat.all_attacks(s, side):
        if fac is not None and f != fac:
            continue
        if not match(s, target, tgt, side):
            continue
        force = combat.force_of(s, f, src, tgt)
        if containing >= 0 and not any(kind(p) == containing for p in force):
            continue
        out.append(
            (f"a{f}-{src}-{tgt}", f"{FACTIONS[f]} attacks {board.name(tgt)} from {board.name(src)}")
        )
    return out


def _elim_candidates(s: SfState, side: int, step: Step) -> list[int]:
    victim = 1 - side if step.get("side", "enemy") == "enemy" else side
    facs = {FACTIONS.index(f) for f in step.get("factions", FACTIONS)}
    kinds = {KINDS.index(k) for k in step.get("kinds", KINDS)}
    flt = step.get("at")
    return [
        p
        for p, at in enumerate(s.loc)
        if at != OFF
        and side_of(p) == victim
        and faction(p) in facs
        and kind(p) in kinds
        and match(s, flt, at, side)
    ]


def feasible(s: SfState, side: int, card_id: int, step: Step) -> bool:
    """Whether a step can be carried out now (for playability)."""
    op = step["op"]
    fac = FACTIONS.index(step["faction"]) if "faction" in step else cards.card(card_id).faction
    if op in PLACING:
        k = KINDS.index(step["piece"])
        if not board.available(s, fac, k) and not board.on_board(s, fac, k):
            return False
        return bool(placements(s, fac, k, op == "recruit", step.get("at")))
    if op == "attack":
        return bool(_attack_options(s, side, step, fac))
    if op == "eliminate":
        return bool(_elim_candidates(s, side, step))
    if op == "move":
        return bool(_move_candidates(s, step, ()))
    if op in ("activate", "declare_war"):
        return s.minor[COUNTRIES.index(step["country"])] == NEUTRAL
    if op == "require":
        if "controls" in step:
            return s.control[tables().space(step["controls"])] == side
        spec = step["piece"]
        return bool(board.on_board(s, FACTIONS.index(spec["faction"]), KINDS.index(spec["kind"])))
    if op == "choose":
        return any(playable_steps(s, side, card_id, tuple(option)) for option in step["options"])
    return True


def playable_steps(s: SfState, side: int, card_id: int, steps: tuple[Step, ...]) -> bool:
    """Every mandatory step feasible, and something the card does is possible."""
    anything = False
    for i, step in enumerate(steps):
        ok = feasible(s, side, card_id, step)
        optional = (
            step.get("optional", False)
            or step.get("if_possible", False)
            or "optional_after" in step
        )
        nxt = steps[i + 1] if i + 1 < len(steps) else None
        if ok and not optional and nxt is not None and _must_attack_with(step, nxt):
            ok = _placed_piece_can_attack(s, card_id, step)
        if not ok and not optional:
            return False
        anything = anything or ok
    return anything


def _must_attack_with(step: Step, nxt: Step) -> bool:
    """A placement whose piece must then attack ("deploy ...; then attack with that piece")."""
    return (
        step["op"] in PLACING
        and "tag" in step
        and nxt["op"] == "follow"
        and nxt.get("tag") == step["tag"]
        and bool(nxt.get("attack"))
        and not nxt.get("move")
    )


def _placed_piece_can_attack(s: SfState, card_id: int, step: Step) -> bool:
    """Whether some placement of the step leaves the new piece able to attack."""
    fac = FACTIONS.index(step["faction"]) if "faction" in step else cards.card(card_id).faction
    k = KINDS.index(step["piece"])
    if not board.available(s, fac, k):
        return True
    spots = placements(s, fac, k, step["op"] == "recruit", step.get("at"))
    return any(_attacks_after(s, fac, k, spot) for spot in spots)


def _attacks_after(s: SfState, fac: int, k: int, spot: tuple[int, int]) -> bool:
    """Whether an available piece placed at `spot` (space, fleet/carrier) could then attack."""
    spare = board.available(s, fac, k)
    if not spare:
        return True
    trial = s.clone()
    board.place(trial, spare[0], *spot)
    return bool(_follow_options(trial, spare[0], {"attack": True}))


def playable(s: SfState, side: int, card_id: int, face: int = 0) -> bool:
    """Whether a card (or a Contingency card's face) may be played now.

    Before USA at War a USA deploy or move is infeasible (`placements`, `destinations`), so a
    card is barred only when it must deploy or move; an optional one is skipped."""
    info = cards.card(card_id)
    steps = info.second_effect if face else info.effect
    return playable_steps(s, side, card_id, steps)


def run_step(s: SfState, frame: Frame, ctx: Ctx) -> None:
    """Resolve the next step of the effect on top of the stack (pushing a decision if needed)."""
    steps = steps_of(frame.card, frame.face, frame.branch)
    if frame.pc >= len(steps):
        s.stack.pop()
        return
    step = steps[frame.pc]
    at = frame.pc
    frame.pc += 1
    op = step["op"]
    if op == "require":
        if not feasible(s, frame.seat, frame.card, step):
            ctx.log(f"{cards.card(frame.card).name}: prerequisite not met")
            frame.pc = len(steps)
    elif op in _AT_ONCE:
        _AT_ONCE[op](s, frame.seat, step, ctx)
    elif op == "another_action" and int(step.get("discard", 0)) == 0:
        s.extra_actions += 1
        ctx.log("takes another action")
    else:
        sub = _decision(s, frame, at, step)
        if sub is not None:
            s.stack.append(sub)


def _gain_vp(s: SfState, side: int, step: Step, ctx: Ctx) -> None:
    who = side if step["who"] == "self" else 1 - side
    s.vp[who] += int(step["amount"])
    ctx.log(f"{('Axis', 'Allies')[who]} gain {step['amount']} VP")


def _draw(s: SfState, side: int, step: Step, ctx: Ctx) -> None:
    n = cards.draw(s, side, int(step["count"]))
    ctx.irreversible = True
    ctx.log(f"draws {n} card(s)")


def _malta_depot(s: SfState, side: int, step: Step, ctx: Ctx) -> None:
    s.malta_depot = True
    ctx.log("the Malta Depot marker is placed")


def _supply_flag(s: SfState, side: int, step: Step, ctx: Ctx) -> None:
    s.bulgaria_flag = True
    ctx.log("the Bulgaria Supply Flags marker is placed")


def _activate(s: SfState, side: int, step: Step, ctx: Ctx) -> None:
    if board.activate(s, COUNTRIES.index(step["country"]), side):
        ctx.log(f"{step['country']} is activated for the {('Axis', 'Allies')[side]}")


def _declare_war(s: SfState, side: int, step: Step, ctx: Ctx) -> None:
    country = COUNTRIES.index(step["country"])
    if s.minor[country] == NEUTRAL:
        board.activate(s, country, 1 - side)
        ctx.log(f"war is declared on {step['country']}")


_AT_ONCE: dict[str, Callable[[SfState, int, Step, Ctx], None]] = {
    "vp": _gain_vp,
    "draw": _draw,
    "malta_depot": _malta_depot,
    "supply_flag": _supply_flag,
    "activate": _activate,
    "declare_war": _declare_war,
}
"""By op: the steps resolved at once, with no decision."""


def _decision(s: SfState, frame: Frame, at: int, step: Step) -> Frame | None:
    """The decision frame a step asks for, or None when there is nothing to decide (no
    candidate, or an empty hand). An `another_action` step here is one paid with a discard."""
    side, op = frame.seat, step["op"]
    sub = Frame("", side, frame.card, frame.face, at, frame.branch)
    if op in PLACING or op == "pay":
        sub.kind = "fx_place" if op in PLACING else "fx_pay"
    elif op == "follow":
        p = s.tags.get(step["tag"], -1)
        if not (p >= 0 and s.loc[p] != OFF and _follow_options(s, p, step)):
            return None
        sub.kind = "fx_follow"
    elif op == "move":
        sub.kind = "fx_move" if _move_candidates(s, step, ()) else ""
    elif op == "attack":
        sub.kind = "fx_attack" if _attack_options(s, side, step, card_faction(frame, step)) else ""
    elif op == "eliminate":
        sub.kind = "fx_elim" if _elim_candidates(s, side, step) else ""
    elif op == "another_action":
        sub.kind = "fx_more" if s.hands[side] else ""
    elif op == "enemy_discard":
        if not s.hands[1 - side]:
            return None
        sub.kind, sub.seat, sub.n = "fx_enemy_discard", 1 - side, int(step["count"])
    elif op == "choose":
        options = step["options"]
        playable = any(playable_steps(s, side, frame.card, tuple(o)) for o in options)
        sub.kind = "fx_choose" if playable else ""
    else:
        raise AssertionError(f"unknown op {op} in card {frame.card}")
    return sub if sub.kind else None


def _follow_options(s: SfState, p: int, step: Step) -> Options:
    out: Options = []
    if step.get("move"):
        out.append(("stay", f"{board.piece_name(p)} moves in place"))
        for sp, on in destinations(s, p, "action"):
            tail = f"-{on}" if on >= 0 else ""
            out.append((f"m{sp}{tail}", f"Move {board.piece_name(p)} to {board.name(sp)}"))
    if step.get("attack"):
        src = s.loc[p]
        facs = [faction(p)] + ([UK, USA] if faction(p) == FRANCE else [])
        for fac in facs:
            for tgt in combat.attack_targets(s, fac, src):
                if p in combat.force_of(s, fac, src, tgt):
                    label = f"{FACTIONS[fac]} force attacks {board.name(tgt)}"
                    out.append((f"a{fac}-{tgt}", label))
    return out


def _skippable(s: SfState, frame: Frame, step: Step, nxt: Step | None) -> bool:
    """Whether a placement may be skipped: "you may", or one half of "A and/or B" while the
    other half places something (A placed, or B still possible)."""
    if "optional_after" in step:
        return step["optional_after"] in s.tags
    if nxt is not None and "tag" in step and nxt.get("optional_after") == step["tag"]:
        return feasible(s, frame.seat, frame.card, nxt)
    return bool(step.get("optional"))


def options(s: SfState, frame: Frame) -> Options:
    """The options of an effect decision frame."""
    step = step_of(frame)
    side = frame.seat
    if frame.kind == "fx_place":
        fac = card_faction(frame, step)
        steps = steps_of(frame.card, frame.face, frame.branch)
        nxt = steps[frame.pc + 1] if frame.pc + 1 < len(steps) else None
        return place_options(
            s,
            fac,
            KINDS.index(step["piece"]),
            step["op"] == "recruit",
            step.get("at"),
            _skippable(s, frame, step, nxt),
            must_attack=nxt is not None and _must_attack_with(step, nxt),
        )
    if frame.kind == "fx_follow":
        return _follow_options(s, s.tags[step["tag"]], step)
    if frame.kind == "fx_move":
        out = _move_candidates(s, step, frame.data)
        if frame.n > 0 or step.get("optional"):
            out.insert(0, ("skip", "Move no more pieces"))
        return out or [("skip", "Nothing can move")]
    if frame.kind == "fx_attack":
        fac = (
            FACTIONS.index(step["faction"]) if "faction" in step else cards.card(frame.card).faction
        )
        out = _attack_options(s, side, step, fac)
        if step.get("optional"):
            out.insert(0, ("skip", "Do not attack"))
        return out
    if frame.kind == "fx_elim":
        return [
            (f"e{p}", f"Eliminate {board.piece_name(p)}") for p in _elim_candidates(s, side, step)
        ]
    if frame.kind == "fx_unless":
        p = frame.data[0]
        keep = [c for c in s.hands[side] if cards.card(c).faction == faction(p)]
        return [("allow", f"Let {board.piece_name(p)} be eliminated")] + [
            (f"d{c}", f"Discard {cards.card(c).name} to save it") for c in sorted(set(keep))
        ]
    if frame.kind == "fx_pay":
        return [("vp", f"The opponent gains {step['or_enemy_vp']} VP")] + [
            (f"d{c}", f"Discard {cards.card(c).name}") for c in sorted(set(s.hands[side]))
        ]
    if frame.kind == "fx_more":
        return [("no", "No other action")] + [
            (f"d{c}", f"Discard {cards.card(c).name} to take another action")
            for c in sorted(set(s.hands[side]))
        ]
    if frame.kind == "fx_enemy_discard":
        return [(f"d{c}", f"Discard {cards.card(c).name}") for c in sorted(set(s.hands[side]))]
    if frame.kind == "fx_choose":
        labels = step.get("labels", [])
        return [
            (f"o{i}", labels[i] if i < len(labels) else f"option {i}")
            for i, option in enumerate(step["options"])
            if playable_steps(s, side, frame.card, tuple(option))
        ]
    raise AssertionError(frame.kind)


def apply(s: SfState, frame: Frame, option: str, ctx: Ctx) -> None:
    """Apply an effect decision (the frame is already popped)."""
    handler = _ANSWERS.get(frame.kind)
    if handler is None:
        raise AssertionError(frame.kind)
    handler(s, frame, step_of(frame), option, ctx)


def _answer_place(s: SfState, frame: Frame, step: Step, option: str, ctx: Ctx) -> None:
    """Place (build or recruit) a piece, remove one to place it again, or skip."""
    fac = card_faction(frame, step)
    if option == "skip":
        return
    if option.startswith("free"):
        p = int(option[4:])
        board.eliminate(s, p)
        ctx.log(f"removes {board.piece_name(p)} from the board to place it again")
        s.stack.append(frame)
        return
    piece = do_place(s, fac, KINDS.index(step["piece"]), step["op"] == "recruit", option, ctx)
    if "tag" in step:
        s.tags[step["tag"]] = piece


def _answer_follow(s: SfState, frame: Frame, step: Step, option: str, ctx: Ctx) -> None:
    """The tagged piece stays, moves, or attacks."""
    p = s.tags[step["tag"]]
    if option == "stay":
        ctx.log(f"{board.piece_name(p)} moves in place")
    elif option.startswith("m"):
        parts = [int(x) for x in option[1:].split("-")]
        board.move(s, p, parts[0], parts[1] if len(parts) > 1 else -1)
        ctx.log(f"{board.piece_name(p)} moves to {board.name(parts[0])}")
    else:
        fac, tgt = (int(x) for x in option[1:].split("-"))
        combat.start(s, fac, s.loc[p], tgt, ctx, with_piece=p)


def _answer_move(s: SfState, frame: Frame, step: Step, option: str, ctx: Ctx) -> None:
    """Move a piece (or move it in place), then offer the step's next move."""
    if option == "skip":
        return
    if option.startswith("st"):
        p = int(option[2:])
        ctx.log(f"{board.piece_name(p)} moves in place")
    else:
        head, *rest = option[1:].split("-")
        p = int(head)
        board.move(s, p, int(rest[0]), int(rest[1]) if len(rest) > 1 else -1)
        ctx.log(f"{board.piece_name(p)} moves to {board.name(int(rest[0]))}")
    count = int(step.get("count", 1))
    if frame.n + 1 < count:
        nxt = frame.copy()
        nxt.n += 1
        nxt.data = (*frame.data, p)
        if _move_candidates(s, step, nxt.data):
            s.stack.append(nxt)


def _answer_attack(s: SfState, frame: Frame, step: Step, option: str, ctx: Ctx) -> None:
    """Start the chosen attack, or skip."""
    if option == "skip":
        return
    f, src, tgt = (int(x) for x in option[1:].split("-"))
    combat.start(s, f, src, tgt, ctx)


def _answer_elim(s: SfState, frame: Frame, step: Step, option: str, ctx: Ctx) -> None:
    """Eliminate the chosen piece, or first let its owner discard a card to save it."""
    p = int(option[1:])
    if step.get("unless_discard"):
        s.stack.append(
            Frame(
                "fx_unless",
                1 - frame.seat,
                frame.card,
                frame.face,
                frame.pc,
                frame.branch,
                data=(p,),
            )
        )
        return
    board.eliminate(s, p)
    ctx.log(f"eliminates {board.piece_name(p)}")


def _answer_unless(s: SfState, frame: Frame, step: Step, option: str, ctx: Ctx) -> None:
    """Allow the elimination, or discard a card to save the piece."""
    p = frame.data[0]
    if option == "allow":
        board.eliminate(s, p)
        ctx.log(f"eliminates {board.piece_name(p)}")
    else:
        cards.use(s, frame.seat, int(option[1:]), False)
        ctx.log(f"discards a card to save {board.piece_name(p)}")


def _answer_pay(s: SfState, frame: Frame, step: Step, option: str, ctx: Ctx) -> None:
    """Give the opponent the step's VPs, or discard a card instead."""
    if option == "vp":
        s.vp[1 - frame.seat] += int(step["or_enemy_vp"])
        ctx.log(f"the opponent gains {step['or_enemy_vp']} VP")
    else:
        cards.use(s, frame.seat, int(option[1:]), False)
        ctx.log("discards a card")


def _answer_more(s: SfState, frame: Frame, step: Step, option: str, ctx: Ctx) -> None:
    """Discard a card to take another action, or not."""
    if option != "no":
        cards.use(s, frame.seat, int(option[1:]), False)
        s.extra_actions += 1
        ctx.log("discards a card to take another action")


def _answer_enemy_discard(s: SfState, frame: Frame, step: Step, option: str, ctx: Ctx) -> None:
    """Discard the chosen card; the next discard is owed while the count lasts."""
    side = frame.seat
    cards.use(s, side, int(option[1:]), False)
    ctx.log("discards a card")
    if frame.n > 1 and s.hands[side]:
        nxt = frame.copy()
        nxt.n -= 1
        s.stack.append(nxt)


def _answer_choose(s: SfState, frame: Frame, step: Step, option: str, ctx: Ctx) -> None:
    """Run the chosen branch of the card's effect."""
    i = int(option[1:])
    branch = f"{frame.branch}.{frame.pc}.{i}" if frame.branch else f"{frame.pc}.{i}"
    s.stack.append(Frame("fx", frame.seat, frame.card, frame.face, 0, branch))


_ANSWERS: dict[str, Callable[[SfState, Frame, Step, str, Ctx], None]] = {
    "fx_place": _answer_place,
    "fx_follow": _answer_follow,
    "fx_move": _answer_move,
    "fx_attack": _answer_attack,
    "fx_elim": _answer_elim,
    "fx_unless": _answer_unless,
    "fx_pay": _answer_pay,
    "fx_more": _answer_more,
    "fx_enemy_discard": _answer_enemy_discard,
    "fx_choose": _answer_choose,
}
"""By effect decision kind: how an answer is applied."""


def contingency_state(s: SfState, card_id: int) -> int:
    """INITIAL, SECOND or GONE."""
    return s.contingency.get(card_id, GONE)
