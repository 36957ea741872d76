"""The turn sequence and actions: movement steps, the Action step, supply, draw, rounds.

The pending decision is the top frame of the stack when it is a decision frame, else
the phase's own decision ("move1", "action", "move2"). `advance` runs everything that
needs no decision: effect steps, the end of an action, supply, draw and scoring.

Phase option ids: m<piece>-<space>[-<carrier>] (move), done, war<country>, rm<piece>
(remove an own piece, with anything it carries);
action: play<card>, ct<card>, cons<faction>.<kind>, fm, da, pi, pass.
"""

from __future__ import annotations

from warroom.engine import rng
from warroom.games.qmg_sf import board, cards, combat, effects, scoring, supply
from warroom.games.qmg_sf.board import side_of
from warroom.games.qmg_sf.content import COUNTRIES, FACTIONS, KINDS, SIDE_OF_FACTION, tables
from warroom.games.qmg_sf.movement import destinations, movable, stranded
from warroom.games.qmg_sf.state import (
    ALLIES,
    AXIS,
    CARRIER,
    GONE,
    INF,
    NEUTRAL,
    SECOND,
    SIDES,
    Ctx,
    Frame,
    SfState,
)
from warroom.games.qmg_sf.supply import airplane_on

Options = list[tuple[str, str]]
MOVE_PHASES = ("move1", "move2")
HAND_TARGET, MAX_DRAW = 5, 2


def seat_to_act(s: SfState) -> int:
    """The seat owing the pending decision."""
    top = s.top()
    return top.seat if top is not None else s.active


def options(s: SfState) -> Options:
    """The options of the pending decision (memoized on the state while its signature is
    unchanged: a state edited in place is answered afresh)."""
    sig = s.signature()
    memo = s.cached_options
    if memo is not None and memo[0] == sig:
        return memo[1]
    out = _options(s)
    s.cached_options = (sig, out)
    return out


def _options(s: SfState) -> Options:
    top = s.top()
    if top is not None:
        if top.kind.startswith("c_"):
            return combat.options(s, top)
        if top.kind.startswith("fx_"):
            return effects.options(s, top)
        return _frame_options(s, top)
    if s.phase in MOVE_PHASES:
        return _move_options(s)
    if s.phase == "action":
        return _action_options(s)
    raise AssertionError(f"no decision in phase {s.phase}")


def _war_options(s: SfState) -> Options:
    return [
        (f"war{c}", f"Declare war on {COUNTRIES[c]}")
        for c in range(len(COUNTRIES))
        if s.minor[c] == NEUTRAL
    ]


def move_options(s: SfState, side: int, mode: str) -> Options:
    """Every piece move of a movement step."""
    out: Options = []
    for p in movable(s, side, mode):
        for sp, on in destinations(s, p, mode):
            tail = f"-{on}" if on >= 0 else ""
            where = board.name(sp) + (f" aboard {board.piece_name(on)}" if on >= 0 else "")
            out.append((f"m{p}-{sp}{tail}", f"Move {board.piece_name(p)} to {where}"))
    return out


def _removal_options(s: SfState) -> Options:
    """'At any time during your turn you may remove any of your own pieces from the board':
    a transported or carried piece on its own too (a fleet takes its cargo along). "A
    carrier can never be removed while it carries an airplane ... the airplane will always
    be removed instead"."""
    out: Options = []
    sides, _, kinds = board.pieces()
    active = s.active
    for p, at in enumerate(s.loc):
        if at < 0 or sides[p] != active:
            continue
        label = f"Remove {board.piece_name(p)} from the board"
        if kinds[p] == CARRIER and airplane_on(s, p):
            label += " (its airplane is removed instead)"
        out.append((f"rm{p}", label))
    return out


def _move_options(s: SfState) -> Options:
    label = "End the First Movement step" if s.phase == "move1" else "End the Second Movement step"
    return [
        ("done", label),
        *_war_options(s),
        *move_options(s, s.active, s.phase),
        *_removal_options(s),
    ]


def conscription_placements(s: SfState, fac: int, k: int) -> list[tuple[int, int]]:
    """Conscription: in or adjacent to a Supply Flag space of the piece's faction."""
    flags = supply.flag_spaces(s, fac)
    side = SIDE_OF_FACTION[fac]
    ids = tables().space_ids
    spots = effects.placements(s, fac, k, False, {"near": [ids[f] for f in flags]})
    return [
        sp
        for sp in spots
        if sp[0] in flags or any(f in board.adjacent(s, sp[0], side) for f in flags)
    ]


def _action_options(s: SfState) -> Options:
    side = s.active
    hand = s.hands[side]
    out: Options = [("pass", "Pass: take no action this step")]
    for c in sorted(set(hand)):
        if effects.playable(s, side, c):
            out.append((f"play{c}", f"Play {cards.card(c).name}"))
    for c in tables().contingency_cards[side]:
        st = s.contingency.get(c, GONE)
        if st != GONE and effects.playable(s, side, c, st):
            info = cards.card(c)
            out.append((f"ct{c}", f"Contingency: {info.second_name if st else info.name}"))
    for fac in range(len(FACTIONS)):
        if SIDE_OF_FACTION[fac] != side:
            continue
        for k in range(len(KINDS)):
            cost = 1 if k == INF else 2
            if len(hand) < cost:
                continue
            if not board.available(s, fac, k) and not board.on_board(s, fac, k):
                continue
            if conscription_placements(s, fac, k):
                out.append(
                    (f"cons{fac}.{k}", f"Conscription: {FACTIONS[fac]} {KINDS[k]} ({cost} card(s))")
                )
    if hand and any(destinations(s, p, "action") for p in _own_pieces(s, side)):
        out.append(("fm", "Forced March (discard 1 card)"))
    if len(hand) >= 2 and combat.all_attacks(s, side):
        out.append(("da", "Desperate Attack (discard 2 cards)"))
    if s.decks[side]:
        out.append(("pi", "Production Initiative (draw 1 card)"))
    out.extend(_war_options(s))
    out.extend(_removal_options(s))
    return out


def _own_pieces(s: SfState, side: int) -> list[int]:
    return [p for p, at in enumerate(s.loc) if at >= 0 and side_of(p) == side]


def _frame_options(s: SfState, f: Frame) -> Options:
    side = f.seat
    if f.kind == "mulligan":
        return [
            ("keep", "Keep this hand"),
            ("mulligan", "Mulligan: reshuffle and draw 5 new cards"),
        ]
    if f.kind == "fg_leave":
        labelled = [c for c in tables().deck_cards[side] if cards.card(c).first_game]
        return [(f"k{c}", f"Leave {cards.card(c).name} in the deck") for c in labelled]
    if f.kind == "pay":
        return [(f"d{c}", f"Discard {cards.card(c).name}") for c in sorted(set(s.hands[side]))]
    if f.kind == "cons_place":
        fac, k = f.data
        out: Options = []
        if not board.available(s, fac, k):
            return [
                (f"free{p}", f"Remove {board.piece_name(p)} from the board first")
                for p in board.on_board(s, fac, k)
            ]
        for sp, on in conscription_placements(s, fac, k):
            tail = f"-{on}" if on >= 0 else ""
            out.append((f"d{sp}{tail}", f"Deploy {FACTIONS[fac]} {KINDS[k]} in {board.name(sp)}"))
        return out or [("skip", "Nothing can be deployed")]
    if f.kind == "fm_move":
        out = []
        for p in _own_pieces(s, side):
            for sp, on in destinations(s, p, "action"):
                tail = f"-{on}" if on >= 0 else ""
                out.append((f"m{p}-{sp}{tail}", f"Move {board.piece_name(p)} to {board.name(sp)}"))
        return out or [("skip", "Nothing can move")]
    if f.kind == "da_attack":
        out = [
            (
                f"a{fac}-{src}-{tgt}",
                f"{FACTIONS[fac]} attacks {board.name(tgt)} from {board.name(src)}",
            )
            for fac, src, tgt in combat.all_attacks(s, side)
        ]
        return out or [("skip", "Nothing can attack")]
    raise AssertionError(f.kind)


def apply(s: SfState, seat: int, option: str, ctx: Ctx) -> None:
    """Apply a legal option to a working copy, then run until the next decision."""
    top = s.top()
    if top is not None:
        s.stack.pop()
        if top.kind.startswith("c_"):
            combat.apply(s, top, option, ctx)
        elif top.kind.startswith("fx_"):
            effects.apply(s, top, option, ctx)
        else:
            _apply_frame(s, top, option, ctx)
    elif s.phase in MOVE_PHASES:
        _apply_move(s, option, ctx)
    else:
        _apply_action(s, option, ctx)
    advance(s, ctx)


def _parse_move(option: str) -> tuple[int, int, int]:
    head, *rest = option[1:].split("-")
    return int(head), int(rest[0]), int(rest[1]) if len(rest) > 1 else -1


def _remove_own(s: SfState, piece: int, ctx: Ctx) -> None:
    """Remove an own piece: a fleet with its cargo; a carrier's airplane instead of it."""
    gone = board.eliminate(s, piece)
    ctx.log("removes " + ", ".join(board.piece_name(p) for p in gone) + " from the board")


def _apply_move(s: SfState, option: str, ctx: Ctx) -> None:
    if option.startswith("war"):
        _declare_war(s, int(option[3:]), ctx)
        return
    if option.startswith("rm"):
        _remove_own(s, int(option[2:]), ctx)
        return
    if option == "done":
        if s.phase == "move1":
            start_action(s)
        else:
            for p in stranded(s, s.active):
                board.remove(s, p)
                ctx.log(f"{board.piece_name(p)} cannot unload and is eliminated")
            s.phase = "end"
        return
    p, sp, on = _parse_move(option)
    board.move(s, p, sp, on)
    s.moved |= 1 << p
    ctx.log(f"{board.piece_name(p)} moves to {board.name(sp)}")


def _declare_war(s: SfState, country: int, ctx: Ctx) -> None:
    board.activate(s, country, 1 - s.active)
    ctx.log(f"the {SIDES[s.active]} declare war on {COUNTRIES[country]}")


def start_action(s: SfState, first: bool = True) -> None:
    """Begin the Action step (`first`) or another action within it.

    Control "at the beginning of the step" is taken once per Action step: "then take
    another action" stays in the same step, so its airplanes still use that snapshot.
    """
    s.phase = "action"
    if first:
        s.step_changes = {}
    s.tags.clear()


def _apply_action(s: SfState, option: str, ctx: Ctx) -> None:
    side = s.active
    if option.startswith("war"):
        _declare_war(s, int(option[3:]), ctx)
        return
    if option.startswith("rm"):
        _remove_own(s, int(option[2:]), ctx)
        return
    s.phase = "acting"
    if option == "pass":
        ctx.log(f"the {SIDES[side]} pass")
    elif option.startswith("play"):
        c = int(option[4:])
        cards.use(s, side, c, True)
        ctx.irreversible = True
        ctx.log(f"the {SIDES[side]} play {cards.card(c).name}: {cards.card(c).text}")
        s.stack.append(Frame("fx", side, c, 0))
    elif option.startswith("ct"):
        c = int(option[2:])
        face = s.contingency[c]
        s.contingency[c] = SECOND if face == 0 else GONE
        info = cards.card(c)
        ctx.log(
            f"Contingency {info.second_name if face else info.name}: {info.second_text if face else info.text}"
        )
        s.stack.append(Frame("fx", side, c, face))
    elif option.startswith("cons"):
        fac, k = (int(x) for x in option[4:].split("."))
        s.stack.append(Frame("cons_place", side, data=(fac, k)))
        s.stack.append(Frame("pay", side, n=1 if k == INF else 2))
        ctx.log(f"Conscription: {FACTIONS[fac]} {KINDS[k]}")
    elif option == "fm":
        s.stack.append(Frame("fm_move", side))
        s.stack.append(Frame("pay", side, n=1))
        ctx.log("Forced March")
    elif option == "da":
        s.stack.append(Frame("da_attack", side))
        s.stack.append(Frame("pay", side, n=2))
        ctx.log("Desperate Attack")
    elif option == "pi":
        cards.draw(s, side, 1)
        ctx.irreversible = True
        ctx.log("Production Initiative: draws 1 card")
    else:
        raise AssertionError(option)


def _apply_frame(s: SfState, f: Frame, option: str, ctx: Ctx) -> None:
    side = f.seat
    if f.kind == "mulligan":
        if option == "mulligan":
            hand = s.hands[side]
            s.decks[side].extend(hand)
            s.rng = rng.shuffle(s.rng, s.decks[side])
            s.hands[side] = []
            cards.draw(s, side, 5)
            ctx.irreversible = True
        ctx.log(
            f"the {SIDES[side]} {'take a mulligan' if option == 'mulligan' else 'keep their hand'}"
        )
        if not s.stack:
            s.phase = "move1"
            s.moved = 0
            s.step_changes = {}
    elif f.kind == "fg_leave":
        left = int(option[1:])
        labelled = [c for c in tables().deck_cards[side] if cards.card(c).first_game]
        s.hands[side] = [c for c in labelled if c != left]
        s.decks[side].append(left)
        s.rng = rng.shuffle(s.rng, s.decks[side])
        ctx.irreversible = True
    elif f.kind == "pay":
        cards.use(s, side, int(option[1:]), False)
        if f.n > 1:
            nxt = f.copy()
            nxt.n -= 1
            s.stack.append(nxt)
    elif f.kind == "cons_place":
        fac, k = f.data
        if option.startswith("free"):
            board.eliminate(s, int(option[4:]))
            s.stack.append(f)
        elif option != "skip":
            effects.do_place(s, fac, k, False, option, ctx)
    elif f.kind == "fm_move":
        if option != "skip":
            p, sp, on = _parse_move(option)
            board.move(s, p, sp, on)
            ctx.log(f"{board.piece_name(p)} moves to {board.name(sp)}")
    elif f.kind == "da_attack":
        if option != "skip":
            fac, src, tgt = (int(x) for x in option[1:].split("-"))
            combat.start(s, fac, src, tgt, ctx)
    else:
        raise AssertionError(f.kind)


def advance(s: SfState, ctx: Ctx) -> None:
    """Run everything that needs no decision."""
    while not s.over:
        top = s.top()
        if top is not None:
            if top.kind == "fx":
                effects.run_step(s, top, ctx)
                continue
            return
        if s.phase == "acting":
            if s.extra_actions > 0:
                s.extra_actions -= 1
                start_action(s, first=False)
            else:
                s.phase = "move2"
                s.moved = 0
                s.step_changes = {}
            continue
        if s.phase == "end":
            end_turn(s, ctx)
            continue
        return


def end_turn(s: SfState, ctx: Ctx) -> None:
    """Supply step, draw step, then the other side's turn or the end of the round."""
    side = s.active
    gone = supply.unsupplied(s, side)
    for p in gone:
        if s.loc[p] >= 0:
            board.remove(s, p)
    if gone:
        ctx.log("supply step: eliminated " + ", ".join(board.piece_name(p) for p in gone))
    hand = len(s.hands[side])
    if hand < HAND_TARGET:
        n = cards.draw(s, side, min(MAX_DRAW, HAND_TARGET - hand))
        ctx.log(f"the {SIDES[side]} draw {n} card(s)", None)
        ctx.irreversible = True
    t = tables()
    if side == AXIS:
        s.active = ALLIES
    else:
        if s.round in t.scoring:
            scoring.score_round(s, ctx)
            if s.over:
                return
        if s.round == t.late_after:
            for sd in (AXIS, ALLIES):
                s.decks[sd].extend(s.late[sd])
                s.late[sd] = []
                s.rng = rng.shuffle(s.rng, s.decks[sd])
            ctx.irreversible = True
            ctx.log("Late War cards are shuffled into both draw decks")
        s.round += 1
        s.active = AXIS
        if s.round > t.rounds:
            scoring.end(s, AXIS if s.vp[0] >= s.vp[1] else ALLIES, "final score", ctx)
            return
    s.phase = "move1"
    s.moved = 0
    s.step_changes = {}
    s.tags.clear()
