"""Combat: forces, attack rounds, ranks and the defender/attacker reaction windows.

A UK or USA force with the French infantry beside it first asks whether the French piece
is included ("c_fr": it "may be included"). Each attack round opens a defender window
("c_def": a reaction or a removal); then the attacker may counter an airplane loss (land
and sea) or a fleet loss (land) ("c_aa_atk"), and decides to continue or stop ("c_cont"),
matching the rank of what the defender removed. Exchange makes the attacker remove a
piece ("c_exch"); an attacker's airplane loss (land and sea) or fleet loss (land) opens a
defender counter ("c_aa_def"). No round begins without a surviving attacking piece, and
no removal to continue may take the last one (a fleet takes the piece it transports).
After the last round an Advance! window ("c_adv") may follow. Option ids: with, without,
rm<piece>, rm-mcf, sf<card>, ex<card>-<piece|mcf>, rt<card>-<piece>-<space>,
wn<card>-<piece>-<space>, aa<card>, nc<card>, sa<card>, free, stop, pass,
adv<card>-<piece>.
"""

from __future__ import annotations

from warroom.games.qmg_sf import board, cards
from warroom.games.qmg_sf.board import adjacent, faction, kind, side_of
from warroom.games.qmg_sf.content import FACTIONS, SIDE_OF_FACTION, tables
from warroom.games.qmg_sf.movement import destinations
from warroom.games.qmg_sf.state import (
    AIR,
    CARRIER,
    FLEET,
    FRANCE,
    INF,
    OFF,
    TANK,
    UK,
    USA,
    Combat,
    Ctx,
    Frame,
    SfState,
)
from warroom.games.qmg_sf.supply import airplane_on, is_supplied

MCF_BIT = 1 << 5
LAND_RANK = {INF: 1, TANK: 2, AIR: 3, FLEET: 3}
SEA_RANK = {CARRIER: 1, AIR: 2, FLEET: 3}
TOP = 4
WINTER, SPRING = 2, 3

Options = list[tuple[str, str]]


def season(s: SfState) -> int:
    """0 Summer, 1 Autumn, 2 Winter, 3 Spring."""
    return (s.round - 1) % 4


def rank(piece: int, sea: bool) -> int:
    """A piece's combat rank in land or sea combat."""
    return (SEA_RANK if sea else LAND_RANK).get(kind(piece), 0)


def side_factions(side: int) -> int:
    """Bitmask of a side's factions."""
    return sum(1 << f for f in range(len(FACTIONS)) if SIDE_OF_FACTION[f] == side)


def in_force(fac: int, piece: int) -> bool:
    """Whether a piece's faction may join a force of `fac` (French infantry joins UK/USA)."""
    pf = faction(piece)
    return pf == fac or (fac in (UK, USA) and pf == FRANCE)


def force_of(s: SfState, fac: int, src: int, tgt: int) -> list[int]:
    """Every supplied piece that may attack from `src` into `tgt` for faction `fac`.

    A UK or USA force needs a piece of its own faction: the French infantry "may be
    included in a UK or USA attacking force", it does not make one.
    """
    t = tables()
    sea = t.water[tgt]
    out = []
    cache: dict[int, frozenset[int]] = {}
    for p, at in enumerate(s.loc):
        if at != src or not in_force(fac, p):
            continue
        k, on = kind(p), s.on[p]
        if sea:
            if fac == FRANCE or (faction(p) != fac):
                continue
            if t.water[src]:
                ok = k in (FLEET, CARRIER) or (k == AIR and on >= 0 and kind(on) == CARRIER)
            else:
                ok = k == AIR and on < 0
        else:
            if k not in (INF, TANK):
                continue
            ok = (on >= 0) if t.water[src] else (on < 0)
        if ok and is_supplied(s, p, cache):
            out.append(p)
    if fac != FRANCE and all(faction(p) == FRANCE for p in out):
        return []
    return out


def attack_targets(s: SfState, fac: int, src: int) -> list[int]:
    """Spaces a force of `fac` in `src` may attack."""
    t = tables()
    side = SIDE_OF_FACTION[fac]
    out = []
    for tgt in adjacent(s, src, side):
        if t.water[tgt]:
            if not board.enemy_occupied(s, tgt, side):
                continue
        elif s.control[tgt] != 1 - side:
            continue
        force = force_of(s, fac, src, tgt)
        if not force:
            continue
        if t.water[tgt] and not any(kind(p) in (FLEET, AIR) for p in force):
            continue
        out.append(tgt)
    return sorted(set(out))


def all_attacks(s: SfState, side: int) -> list[tuple[int, int, int]]:
    """Every (faction, source, target) attack a side may make now."""
    out = []
    sides = board.pieces()[0]
    sources = sorted({at for p, at in enumerate(s.loc) if at != OFF and sides[p] == side})
    for fac in range(len(FACTIONS)):
        if SIDE_OF_FACTION[fac] != side:
            continue
        for src in sources:
            for tgt in attack_targets(s, fac, src):
                out.append((fac, src, tgt))
    return out


def defenders(s: SfState, tgt: int) -> list[int]:
    """Pieces defending a space (transported pieces go only with their fleet)."""
    return [p for p, at in enumerate(s.loc) if at == tgt and not board.transported(s, p)]


def has_defenders(s: SfState, tgt: int) -> bool:
    """Whether anything (pieces or MCFs) remains in the attacked space."""
    return bool(defenders(s, tgt)) or board.mcf_side(s, tgt) >= 0


def start(s: SfState, fac: int, src: int, tgt: int, ctx: Ctx, with_piece: int = -1) -> None:
    """Initiate combat: the force is fixed and the first attack round begins.

    When the French infantry could join a UK/USA force, the attacker first chooses
    ("c_fr"), unless the force must contain it (`with_piece`, a card's "force containing
    that infantry").
    """
    t = tables()
    force = force_of(s, fac, src, tgt)
    s.combat = Combat(SIDE_OF_FACTION[fac], fac, src, tgt, t.water[tgt], force)
    french = [p for p in force if faction(p) == FRANCE]
    if fac != FRANCE and french and with_piece not in french:
        s.stack.append(Frame("c_fr", s.combat.side))
        return
    _open(s, ctx)


def _open(s: SfState, ctx: Ctx) -> None:
    c = s.combat
    assert c is not None
    ctx.log(
        f"{FACTIONS[c.faction]} attacks {board.name(c.tgt)} from {board.name(c.src)}"
        f" with {len(c.force)} piece(s)"
    )
    begin_round(s, ctx)


def begin_round(s: SfState, ctx: Ctx) -> None:
    """Open an attack round (or end the combat when the space or the force is empty)."""
    c = s.combat
    assert c is not None
    if not has_defenders(s, c.tgt) or not alive_force(s, c):
        end(s, ctx)
        return
    c.rounds += 1
    c.free = False
    c.factions = _present(s, c)
    s.stack.append(Frame("c_def", 1 - c.side))


def _present(s: SfState, c: Combat) -> int:
    """Bitmask of the factions in the attacked space now (MCF_BIT for an MCF)."""
    mask = 0
    for p in defenders(s, c.tgt):
        mask |= 1 << faction(p)
    if board.mcf_side(s, c.tgt) >= 0:
        mask |= MCF_BIT
    return mask


def _reaction_factions(c: Combat, present: int) -> int:
    """Factions whose reactions the defender may use: those of the pieces in the attacked
    space (`present`, from `_present`); an MCF allows any of its side's."""
    out = present & ~MCF_BIT
    if present & MCF_BIT:
        out |= side_factions(1 - c.side)
    return out


def _support(s: SfState, c: Combat, side: int, factions: int, supplied_only: bool) -> list[int]:
    """Airplanes/fleets adjacent to the attacked space that may be removed instead."""
    near = set(adjacent(s, c.tgt, side))
    cache: dict[int, frozenset[int]] = {}
    out = []
    for p, at in enumerate(s.loc):
        if at == OFF or at not in near or side_of(p) != side or p in c.force:
            continue
        if kind(p) not in (AIR, FLEET) or board.transported(s, p):
            continue
        if not factions >> faction(p) & 1:
            continue
        if supplied_only and not is_supplied(s, p, cache):
            continue
        out.append(p)
    return out


def _removable_defenders(s: SfState, c: Combat) -> list[int]:
    return [p for p in defenders(s, c.tgt) if not (kind(p) == CARRIER and airplane_on(s, p))]


def options(s: SfState, frame: Frame) -> Options:
    """The options of a combat decision frame."""
    c = s.combat
    assert c is not None
    if frame.kind == "c_def":
        return _def_options(s, c, reactions=True)
    if frame.kind == "c_defrm":
        return _def_options(s, c, reactions=False)
    if frame.kind == "c_fr":
        return [
            ("with", "Include the French infantry in the attacking force"),
            ("without", "Attack without the French infantry"),
        ]
    if frame.kind == "c_aa_atk":
        react = "anti_air" if frame.n == AIR else "naval_combat"
        cs = cards.reactions(s, c.side, react, attacker_factions(s, c))
        return [
            ("pass", "Do not counter"),
            *(
                (
                    f"{'aa' if react == 'anti_air' else 'nc'}{x}",
                    f"{react} with {cards.card(x).name}",
                )
                for x in cs
            ),
        ]
    if frame.kind == "c_aa_def":
        react = "anti_air" if frame.n == AIR else "naval_combat"
        allowed = frame.data[0] if frame.data else _reaction_factions(c, _present(s, c))
        cs = cards.reactions(s, 1 - c.side, react, allowed)
        return [
            ("pass", "Do not counter"),
            *(
                (
                    f"{'aa' if react == 'anti_air' else 'nc'}{x}",
                    f"{react} with {cards.card(x).name}",
                )
                for x in cs
            ),
        ]
    if frame.kind == "c_cont":
        return _cont_options(s, c)
    if frame.kind == "c_exch":
        return _exch_options(s, c)
    if frame.kind == "c_adv":
        return _adv_options(s, c)
    raise AssertionError(frame.kind)


def _def_options(s: SfState, c: Combat, reactions: bool) -> Options:
    t = tables()
    out: Options = []
    removable = _removable_defenders(s, c)
    present = _present(s, c)  # the pieces in the space now (a position may be edited)
    support = _support(s, c, 1 - c.side, present & ~MCF_BIT, False) if reactions else []
    for p in removable + support:
        out.append((f"rm{p}", f"Remove {board.piece_name(p)}"))
    mcf = board.mcf_side(s, c.tgt) >= 0
    if mcf:
        out.append(("rm-mcf", f"Remove a Minor Country Force in {board.name(c.tgt)}"))
    if not reactions:
        return out
    side = 1 - c.side
    allowed = _reaction_factions(c, present)
    if not c.sea:
        for x in cards.reactions(s, side, "stand_fast", allowed):
            info = cards.card(x)
            limited = bool(info.reaction_spaces) or info.reaction_desert
            if (
                not limited
                or c.tgt in info.reaction_spaces
                or (info.reaction_desert and t.desert[c.tgt])
            ):
                out.append((f"sf{x}", f"Stand Fast with {info.name}"))
        for x in cards.reactions(s, side, "exchange", allowed):
            fx = cards.card(x).faction
            for p in removable + support:
                if faction(p) == fx:
                    out.append(
                        (
                            f"ex{x}-{p}",
                            f"Exchange with {cards.card(x).name}, removing {board.piece_name(p)}",
                        )
                    )
            if mcf:
                out.append((f"ex{x}-mcf", f"Exchange with {cards.card(x).name}, removing an MCF"))
        for x in cards.reactions(s, side, "retreat", allowed):
            fx = cards.card(x).faction
            for p in removable:
                if faction(p) != fx:
                    continue
                for sp, _ in destinations(s, p, "retreat"):
                    out.append(
                        (f"rt{x}-{p}-{sp}", f"Retreat {board.piece_name(p)} to {board.name(sp)}")
                    )
    else:
        out.extend(_sea_reactions(s, c, side, allowed))
    return out


def _sea_reactions(s: SfState, c: Combat, side: int, allowed: int) -> Options:
    """The defender's sea reactions: Withdraw Navy, Anti-Air against a force containing an
    airplane, Naval Combat."""
    out: Options = []
    for x in cards.reactions(s, side, "withdraw_navy", allowed):
        fx = cards.card(x).faction
        for p in defenders(s, c.tgt):
            if faction(p) != fx or kind(p) not in (FLEET, CARRIER):
                continue
            for sp, _ in destinations(s, p, "withdraw"):
                out.append(
                    (f"wn{x}-{p}-{sp}", f"Withdraw {board.piece_name(p)} to {board.name(sp)}")
                )
    if any(s.loc[p] == c.src and kind(p) == AIR for p in c.force):
        for x in cards.reactions(s, side, "anti_air", allowed):
            out.append((f"aa{x}", f"Anti-Air with {cards.card(x).name}"))
    for x in cards.reactions(s, side, "naval_combat", allowed):
        out.append((f"nc{x}", f"Naval Combat with {cards.card(x).name}"))
    return out


def alive_force(s: SfState, c: Combat) -> list[int]:
    """Attacking pieces still on the board in the attacking space."""
    return [p for p in c.force if s.loc[p] == c.src]


def attacker_factions(s: SfState, c: Combat) -> int:
    """Factions whose reactions the attacker may use: "Only French reactions may be used on
    behalf of the French piece", so a force reduced to it takes French cards only."""
    force = alive_force(s, c)
    if force and all(faction(p) == FRANCE for p in force):
        return 1 << FRANCE
    return 1 << c.faction


def _keeps_force(s: SfState, c: Combat, p: int) -> bool:
    """Whether removing `p` (with what it transports) leaves an attacking piece."""
    gone = {p, *board.cargo(s, p)}
    return any(q not in gone for q in alive_force(s, c))


def _cont_options(s: SfState, c: Combat) -> Options:
    t = tables()
    out: Options = [("stop", "Stop the attack")]
    if c.free:
        out.append(("free", "Continue the attack (countered loss)"))
    force = alive_force(s, c)
    cache: dict[int, frozenset[int]] = {}
    for p in force:
        if kind(p) == CARRIER or rank(p, c.sea) < c.req or not _keeps_force(s, c, p):
            continue
        if kind(p) in (AIR, FLEET) and not is_supplied(s, p, cache):
            continue
        out.append((f"rm{p}", f"Remove {board.piece_name(p)} to continue"))
    mask = attacker_factions(s, c)
    if mask == 1 << c.faction:
        for p in _support(s, c, c.side, 1 << c.faction, True):
            if rank(p, c.sea) >= c.req and _keeps_force(s, c, p):
                out.append((f"rm{p}", f"Remove {board.piece_name(p)} to continue"))
    if not c.sea:
        if season(s) != WINTER or t.desert[c.tgt]:
            for x in cards.reactions(s, c.side, "sustain_attack", mask):
                out.append((f"sa{x}", f"Sustain Attack with {cards.card(x).name}"))
    else:
        for x in cards.reactions(s, c.side, "naval_combat", mask):
            out.append((f"nc{x}", f"Naval Combat with {cards.card(x).name}"))
    return out


def _exch_options(s: SfState, c: Combat) -> Options:
    out: Options = []
    for p in alive_force(s, c):
        out.append((f"rm{p}", f"Remove {board.piece_name(p)} (Exchange)"))
    if not all(faction(p) == FRANCE for p in alive_force(s, c)) or not alive_force(s, c):
        for p in _support(s, c, c.side, 1 << c.faction, True):
            out.append((f"rm{p}", f"Remove {board.piece_name(p)} (Exchange)"))
    return out


def _adv_options(s: SfState, c: Combat) -> Options:
    out: Options = [("pass", "Do not advance")]
    for p in alive_force(s, c):
        if kind(p) not in (INF, TANK):
            continue
        if not any(
            sp == c.tgt for sp, _ in destinations(s, p, "advance" if s.on[p] >= 0 else "action")
        ):
            continue
        # the card belongs to the moving piece's faction: French reactions for the French piece
        for x in cards.reactions(s, c.side, "advance", 1 << faction(p)):
            out.append((f"adv{x}-{p}", f"Advance! {board.piece_name(p)} with {cards.card(x).name}"))
    return out


def _parse(option: str, prefix: str) -> list[int]:
    return [int(v) for v in option[len(prefix) :].split("-")]


def apply(s: SfState, frame: Frame, option: str, ctx: Ctx) -> None:
    """Apply a combat decision (the frame is already popped)."""
    c = s.combat
    assert c is not None
    k = frame.kind
    if k == "c_fr":
        if option == "without":
            c.force = [p for p in c.force if faction(p) != FRANCE]
        _open(s, ctx)
    elif k in ("c_def", "c_defrm"):
        _apply_def(s, c, option, ctx)
    elif k == "c_aa_atk":
        if option != "pass":
            x = int(option[2:])
            cards.use(s, c.side, x, True)
            c.free = True
            ctx.log(f"{cards.card(x).name}: the attacker counters the loss")
        s.stack.append(Frame("c_cont", c.side))
    elif k == "c_aa_def":
        exchange = frame.data[1] if len(frame.data) > 1 else 0
        if option == "pass":
            if exchange:
                _after_def(s, c, frame.data[2], ctx)
            else:
                begin_round(s, ctx)
            return
        x = int(option[2:])
        cards.use(s, 1 - c.side, x, True)
        ctx.log(f"{cards.card(x).name}: the defender counters the attacker's loss")
        if exchange and _exch_options(s, c):
            s.stack.append(Frame("c_exch", c.side, data=frame.data))
        elif exchange:
            _after_def(s, c, frame.data[2], ctx)
        else:
            s.stack.append(Frame("c_cont", c.side))
    elif k == "c_cont":
        _apply_cont(s, c, option, ctx)
    elif k == "c_exch":
        p = int(option[2:])
        _lose(s, c, p, ctx)
        if not alive_force(s, c):
            end(s, ctx)
            return
        counter = _counter(kind(p), c.sea)
        allowed = frame.data[0] if frame.data else _reaction_factions(c, _present(s, c))
        if counter and cards.reactions(s, 1 - c.side, counter, allowed):
            s.stack.append(
                Frame("c_aa_def", 1 - c.side, n=kind(p), data=(allowed, 1, frame.data[2]))
            )
            return
        _after_def(s, c, frame.data[2], ctx)
    elif k == "c_adv":
        if option != "pass":
            x, p = _parse(option, "adv")
            cards.use(s, c.side, x, True)
            board.move(s, p, c.tgt)
            c.advanced = True
            ctx.log(f"Advance! {board.piece_name(p)} into {board.name(c.tgt)}")
        finish(s)
    else:
        raise AssertionError(k)


def _lose(s: SfState, c: Combat, p: int, ctx: Ctx) -> None:
    gone = board.eliminate(s, p)
    for g in gone:
        if g in c.force:
            c.force.remove(g)
    ctx.log("removed " + ", ".join(board.piece_name(g) for g in gone))


def _apply_def(s: SfState, c: Combat, option: str, ctx: Ctx) -> None:
    side = 1 - c.side
    removed_kind = -1
    if option == "rm-mcf":
        s.mcf[c.tgt] -= 1
        c.req = 1
        ctx.log(f"a Minor Country Force in {board.name(c.tgt)} is removed")
    elif option.startswith("rm"):
        p = int(option[2:])
        c.req = rank(p, c.sea)
        removed_kind = kind(p)
        _lose(s, c, p, ctx)
    elif option.startswith("sf"):
        x = int(option[2:])
        cards.use(s, side, x, True)
        c.req = TOP
        ctx.log(f"Stand Fast: {cards.card(x).name}")
    elif option.startswith("ex"):
        head, _, target = option[2:].partition("-")
        x = int(head)
        cards.use(s, side, x, True)
        if target == "mcf":
            s.mcf[c.tgt] -= 1
            c.req = 1
        else:
            p = int(target)
            c.req = rank(p, c.sea)
            removed_kind = kind(p)
            _lose(s, c, p, ctx)
        ctx.log(f"Exchange: {cards.card(x).name}")
        fx = cards.card(x).faction
        if _exch_options(s, c):
            s.stack.append(Frame("c_exch", c.side, data=(1 << fx, 1, removed_kind)))
            return
    elif option.startswith(("rt", "wn")):
        x, p, sp = _parse(option, option[:2])
        cards.use(s, side, x, True)
        board.move(s, p, sp)
        ctx.log(f"{cards.card(x).name}: {board.piece_name(p)} moves to {board.name(sp)}")
        if has_defenders(s, c.tgt):
            s.stack.append(Frame("c_defrm", side))
            return
        c.req = 0
    elif option.startswith("aa"):
        x = int(option[2:])
        cards.use(s, side, x, True)
        c.req = SEA_RANK[AIR]
        ctx.log(f"Anti-Air: {cards.card(x).name}")
    elif option.startswith("nc"):
        x = int(option[2:])
        cards.use(s, side, x, True)
        c.req = TOP
        ctx.log(f"Naval Combat: {cards.card(x).name}")
    else:
        raise AssertionError(option)
    _after_def(s, c, removed_kind, ctx)


def _counter(removed_kind: int, sea: bool) -> str:
    """The reaction that counters a removed piece: Anti-Air for an airplane "in land or sea
    combat"; Naval Combat for a fleet in land combat only (at sea it has its own use)."""
    if removed_kind == AIR:
        return "anti_air"
    if removed_kind == FLEET and not sea:
        return "naval_combat"
    return ""


def _after_def(s: SfState, c: Combat, removed_kind: int, ctx: Ctx) -> None:
    """After the defender's removal: the attacker may counter an airplane loss (land and
    sea) or a fleet loss (land)."""
    counter = _counter(removed_kind, c.sea)
    if (
        counter
        and has_defenders(s, c.tgt)
        and alive_force(s, c)
        and cards.reactions(s, c.side, counter, attacker_factions(s, c))
    ):
        s.stack.append(Frame("c_aa_atk", c.side, n=removed_kind))
        return
    _after_round(s, c, ctx)


def _after_round(s: SfState, c: Combat, ctx: Ctx) -> None:
    if not has_defenders(s, c.tgt) or not alive_force(s, c):
        end(s, ctx)
        return
    s.stack.append(Frame("c_cont", c.side))


def _apply_cont(s: SfState, c: Combat, option: str, ctx: Ctx) -> None:
    if option == "stop":
        ctx.log("the attacker stops")
        end(s, ctx)
        return
    if option == "free":
        begin_round(s, ctx)
        return
    if option.startswith("rm"):
        p = int(option[2:])
        k = kind(p)
        c.free = False
        _lose(s, c, p, ctx)
        counter = _counter(k, c.sea)
        # the defender's card must match "a piece in the attacked space" now, as the
        # removal opens the next round (a faction lost last round no longer counts)
        allowed = _reaction_factions(c, _present(s, c))
        if counter and cards.reactions(s, 1 - c.side, counter, allowed):
            s.stack.append(Frame("c_aa_def", 1 - c.side, n=k, data=(allowed, 0)))
            return
        begin_round(s, ctx)
        return
    x = int(option[2:])
    cards.use(s, c.side, x, True)
    ctx.log(
        f"{'Sustain Attack' if option.startswith('sa') else 'Naval Combat'}: {cards.card(x).name}"
    )
    begin_round(s, ctx)


def end(s: SfState, ctx: Ctx) -> None:
    """The last attack round is over: offer Advance! when the land space is empty."""
    c = s.combat
    assert c is not None
    t = tables()
    if (
        not c.sea
        and not has_defenders(s, c.tgt)
        and not c.advanced
        and (season(s) != SPRING or t.desert[c.tgt])
        and len(_adv_options(s, c)) > 1
    ):
        s.stack.append(Frame("c_adv", c.side))
        return
    finish(s)


def finish(s: SfState) -> None:
    """Close the combat."""
    s.combat = None
