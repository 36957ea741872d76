"""Cards in use: when a prepared card may be used, costs, WMD cost and escalation,
and the interpreter of the effect-primitive vocabulary (see EFFECTS.md).

A card resolves as a `resolve` frame: pc 0 pays the card's own cost, pc 1 picks the
target Bloc of a WMD, pc 2 pays the WMD cost and advances escalation, then each
effect runs in order (a `sub` frame runs a chosen branch of `choose`). The target
Bloc of a non-WMD card is fixed by its first effect that picks an enemy piece or
Bloc, which is also when its escalation symbols count.
"""

from __future__ import annotations

from typing import Any

from warroom.games.qmg_cw import board
from warroom.games.qmg_cw.anytime import freeable, in_card_organic, label, take_organic
from warroom.games.qmg_cw.content import KINDS, NAT_BLOC, NATS, Card, tables
from warroom.games.qmg_cw.flow import (
    DECIDE,
    Ctx,
    Options,
    auto,
    bloc_hand,
    bloc_name,
    card_name,
    chooser,
    decision,
    draw,
    escalate,
    find_resolve,
    gain_vp,
    last_to_answer,
    lose_vp,
    pay,
    pop,
    push,
    space_name,
    update_top,
)
from warroom.games.qmg_cw.state import (
    AIR,
    ARMY,
    NAVY,
    NOBODY,
    CwState,
    Frame,
    nat_bloc,
    piece_bloc,
    piece_kind,
    piece_nat,
    piece_space,
)

NAT_CODE = {name: i for i, name in enumerate(NATS)}


def card(cid: int) -> Card:
    """A card by id."""
    return tables().cards[cid]


def enemies(bloc: int) -> tuple[int, int]:
    """The two other blocs."""
    a, b = (x for x in range(3) if x != bloc)
    return a, b


def wmd_cost(state: CwState, c: Card, me: int, target: int) -> int:
    """The VP cost of a WMD against one target: printed cost less the target's level against me."""
    return max(0, c.wmd_cost - state.level(target, me))


def affordable_targets(state: CwState, c: Card, me: int) -> list[int]:
    """Target blocs a card may be used against (WMD cost never drives VPs negative)."""
    if c.target == "none":
        return []
    if c.target == "each_enemy":
        total = sum(wmd_cost(state, c, me, e) for e in enemies(me))
        return list(enemies(me)) if state.vp[me] >= total else []
    return [e for e in enemies(me) if state.vp[me] >= wmd_cost(state, c, me, e)]


def cost_payable(state: CwState, seat: int, c: Card) -> bool:
    """Whether a seat can pay a card's own cost (you never take a VP penalty for your own card)."""
    need = int(c.cost.get("discard_hand", 0))
    if need and len(state.seats[seat].hand) < need:
        return False
    if c.cost.get("eliminate_own") == "army":
        me = c.bloc
        if not any(piece_bloc(p) == me and piece_kind(p) == ARMY for p in state.pieces):
            return False
    seats = state.bloc_seats(c.bloc)
    deck = sum(len(state.seats[s].deck) for s in seats)
    wmds = sum(1 for s in seats for x in state.seats[s].prepared if card(x).type == "wmd")
    for effect in c.effects:
        if effect["op"] == "each_bloc_discard_deck" and deck < int(effect["count"]):
            return False
        # "each Bloc must discard a prepared WMD card; if it has none prepared, it must lose
        # 3 VPs" includes the user: it may not take that penalty for its own card
        if effect["op"] == "each_bloc_discard_wmd_or_lose_vp" and wmds < 1:
            return False
    return c.target == "none" or bool(affordable_targets(state, c, c.bloc))


def table_cards(state: CwState, seat: int) -> list[int]:
    """A seat's prepared cards: face-up Status/WMD then face-down Espionage."""
    player = state.seats[seat]
    return player.prepared + player.espionage


def usable(state: CwState, seat: int, timings: tuple[str, ...]) -> list[int]:
    """A seat's prepared cards usable now for one of these timings."""
    out = []
    for cid in table_cards(state, seat):
        c = card(cid)
        if c.when not in timings:
            continue
        if c.once and cid in state.used:
            continue
        if cost_payable(state, seat, c):
            out.append(cid)
    return out


def use_card(state: CwState, seat: int, cid: int, ctx: Ctx) -> None:
    """Use a prepared card: Espionage and WMD go to the discard pile face up; Status stays."""
    player = state.seats[seat]
    c = card(cid)
    if cid in player.espionage:
        player.espionage.remove(cid)
        player.discard_up.append(cid)
        ctx.irreversible = True
    elif c.type == "wmd":
        player.prepared.remove(cid)
        player.discard_up.append(cid)
    if c.once:
        state.used.append(cid)
    ctx.log(f"{bloc_name(c.bloc)} uses {c.name}", kind="use")
    push(state, Frame("resolve", bloc=c.bloc, owner=seat, card=cid))


def play_card(state: CwState, seat: int, cid: int, ctx: Ctx) -> None:
    """Play a card from hand: it goes on the discard pile face up, then resolves."""
    player = state.seats[seat]
    player.hand.remove(cid)
    player.discard_up.append(cid)
    ctx.log(f"{bloc_name(card(cid).bloc)} plays {card_name(cid)}", kind="play")
    push(state, Frame("resolve", bloc=card(cid).bloc, owner=seat, card=cid))


def prepare_card(state: CwState, seat: int, cid: int, ctx: Ctx) -> None:
    """Prepare a card from hand: Status/WMD face up, Espionage face down."""
    player = state.seats[seat]
    player.hand.remove(cid)
    if card(cid).type == "espionage":
        player.espionage.append(cid)
        ctx.log(f"seat {seat} prepares an Espionage card face down")
    else:
        player.prepared.append(cid)
        ctx.log(f"{bloc_name(card(cid).bloc)} prepares {card_name(cid)}", kind="prepare")
        # "Use any time." (Akula: "Discard a prepared enemy WMD card"): a card just put face
        # up on the table may be answered at once, as after a card resolves
        push(state, Frame("window", bloc=card(cid).bloc, tag="resolved", card=cid))


def set_target(state: CwState, target: int, ctx: Ctx, escalates: bool = False) -> None:
    """Fix the target Bloc of the resolving card, counting its escalation symbols once."""
    index = find_resolve(state)
    if index < 0:
        return
    frame = state.stack[index]
    c = card(frame.card)
    tag = frame.tag
    if frame.target == NOBODY:
        frame = _replace(frame, target=target)
    if c.type != "wmd" and "e" not in tag and c.esc > 0 and not c.escq:
        escalate(state, c.bloc, target, c.esc, ctx)
        tag += "e"
    if escalates and c.escq:
        escalate(state, c.bloc, target, 1, ctx)
    state.stack[index] = _replace(frame, tag=tag)


def _replace(frame: Frame, **changes: Any) -> Frame:
    from dataclasses import replace

    return replace(frame, **changes)


def resolve_target(state: CwState) -> int:
    """The current target Bloc of the resolving card."""
    index = find_resolve(state)
    return state.stack[index].target if index >= 0 else NOBODY


# ---------------------------------------------------------------- resolve frames


@auto("resolve")
def _resolve(state: CwState, frame: Frame, ctx: Ctx) -> None:
    c = card(frame.card)
    if frame.pc == 0:
        update_top(state, pc=1)
        need = int(c.cost.get("discard_hand", 0))
        if need:
            pay(state, 1 << frame.owner, need)
        if c.cost.get("eliminate_own") == "army":
            push(
                state, Frame("own_army", bloc=frame.bloc, mask=1 << frame.owner, owner=frame.owner)
            )
        return
    if frame.pc == 1:
        update_top(state, pc=2)
        if c.target == "one_enemy":
            push(
                state,
                Frame(
                    "pick_target",
                    bloc=frame.bloc,
                    mask=1 << frame.owner,
                    owner=frame.owner,
                    card=frame.card,
                    tag="wmd",
                ),
            )
        elif c.target == "each_enemy":
            first, second = enemies(frame.bloc)
            update_top(state, target=first, items=(second,))
        return
    if frame.pc == 2:
        update_top(state, pc=3)
        if c.type == "wmd" and frame.target != NOBODY:
            targets = [frame.target, *frame.items] if c.target == "each_enemy" else [frame.target]
            for t in targets:
                lose_vp(state, frame.bloc, wmd_cost(state, c, frame.bloc, t), ctx)
            for t in targets:
                escalate(state, frame.bloc, t, c.esc, ctx)
        return
    index = frame.pc - 3
    if index < len(c.effects):
        update_top(state, pc=frame.pc + 1)
        start_effect(state, c.effects[index], frame, ctx)
        return
    if frame.items and c.target == "each_enemy":
        update_top(state, pc=3, target=frame.items[0], items=frame.items[1:])
        return
    pop(state)
    push(state, Frame("window", bloc=frame.bloc, tag="resolved", card=frame.card))


@auto("sub")
def _sub(state: CwState, frame: Frame, ctx: Ctx) -> None:
    c = card(frame.card)
    branch = c.effects[frame.items[0]]["branches"][frame.items[1]]
    if frame.pc < len(branch):
        update_top(state, pc=frame.pc + 1)
        start_effect(state, branch[frame.pc], frame, ctx)
        return
    pop(state)


def area(state: CwState, effect: dict[str, Any], me: int) -> set[int] | None:
    """The spaces an effect is limited to (None: anywhere)."""
    t = tables()
    if effect.get("at_last"):
        if state.last_space == NOBODY:
            return set()
        return board.within(state, state.last_space, int(effect.get("range", 0)), me)
    if "spaces" in effect:
        return {t.space(s) for s in effect["spaces"]}
    if "near" in effect:
        return board.within(state, t.space(effect["near"]), int(effect.get("range", 0)), me)
    return None


def start_effect(state: CwState, effect: dict[str, Any], frame: Frame, ctx: Ctx) -> None:
    """Begin one effect primitive of the card resolving in `frame`."""
    op = effect["op"]
    c = card(frame.card)
    me = c.bloc
    owner = frame.owner
    mask = 1 << owner
    common: dict[str, Any] = {"bloc": me, "mask": mask, "owner": owner, "card": frame.card}
    path = _path(frame, effect)
    if op in ("build", "recruit", "battle", "eliminate", "air_power"):
        push(state, Frame(f"fx_{op}", items=path, **common))
    elif op == "gain_vp":
        gain_vp(state, me, _vp_amount(state, effect, me), ctx)
    elif op == "enemy_lose_vp":
        push(state, Frame("fx_lose", items=path, count=int(effect["amount"]), **common))
        _need_target(state, frame, common)
    elif op == "enemy_discard_hand":
        push(state, Frame("fx_discard_hand", count=int(effect["count"]), **common))
        _need_target(state, frame, common)
    elif op == "enemy_discard_deck":
        push(state, Frame("fx_discard_deck", count=int(effect["count"]), **common))
        _need_target(state, frame, common)
    elif op == "discard_enemy_wmd":
        push(state, Frame("fx_wmd", count=int(effect["max"]), pc=0, **common))
        _need_target(state, frame, common)
    elif op == "each_bloc_discard_deck":
        for b in (2, 1, 0):
            if state.teamed(b):
                # "you and your teammate may divide up the discards as you see fit"
                n = int(effect["count"])
                push(state, Frame("bloc_deck", bloc=b, mask=state.bloc_mask(b), count=n))
            else:
                _bloc_discard_deck(state, b, int(effect["count"]), ctx)
    elif op == "each_bloc_discard_wmd_or_lose_vp":
        for b in (2, 1, 0):
            push(
                state, Frame("fx_own_wmd", bloc=b, mask=state.bloc_mask(b), count=int(effect["vp"]))
            )
    elif op == "supply_token":
        nat = NAT_CODE[effect["nat"]]
        space = tables().space(effect["space"])
        code = space * 8 + nat
        if code not in state.tokens and board.tokens_left(state, nat) > 0:
            state.tokens.append(code)
            state.tokens.sort()
            ctx.log(f"{NATS[nat].title()} supply token placed in {space_name(space)}")
    elif op == "escalate_enemies":
        for e in enemies(me):
            escalate(state, e, me, int(effect["amount"]), ctx)
    elif op == "play_type":
        push(state, Frame("fx_play", tag=str(effect["type"]), **common))
    elif op == "prepare_type":
        push(state, Frame("fx_prepare", tag=str(effect["type"]), **common))
    elif op == "draw":
        draw(state, owner, int(effect["count"]), ctx)
    elif op == "eliminate_own_armies":
        push(
            state,
            Frame("fx_own_elim", count=int(effect["max"]), pc=int(effect["vp_each"]), **common),
        )
    elif op == "protect":
        below = _strike_index(state)
        if below >= 0:
            state.stack[below] = _replace(state.stack[below], pc=3)
            ctx.log("the piece is not removed")
    elif op == "choose":
        push(state, Frame("fx_branch", items=path, count=len(effect["branches"]), **common))
    else:  # pragma: no cover - content validation rejects unknown primitives
        raise AssertionError(op)


def _path(frame: Frame, effect: dict[str, Any]) -> tuple[int, ...]:
    """(effect index[, branch index, effect index in branch]) of an effect, for lookup."""
    if frame.kind == "sub":
        return (frame.items[0], frame.items[1], frame.pc)
    return (frame.pc - 3,)


def effect_at(cid: int, path: tuple[int, ...]) -> dict[str, Any]:
    """The effect a path names."""
    c = card(cid)
    effect = c.effects[path[0]]
    if len(path) == 3:
        branch: list[dict[str, Any]] = effect["branches"][path[1]]
        return branch[path[2]]
    return effect


def _need_target(state: CwState, frame: Frame, common: dict[str, Any]) -> None:
    if resolve_target(state) == NOBODY:
        push(state, Frame("pick_target", tag="any", **common))


def _strike_index(state: CwState) -> int:
    for i in range(len(state.stack) - 1, -1, -1):
        if state.stack[i].kind == "strike":
            return i
    return -1


def _vp_amount(state: CwState, effect: dict[str, Any], me: int) -> int:
    amount = int(effect["amount"])
    t = tables()
    if "if_occupies" in effect:
        space = t.space(effect["if_occupies"])
        occ = board.occupants(state)[space]
        has_army = any(
            piece_space(p) == space and piece_bloc(p) == me and piece_kind(p) == ARMY
            for p in state.pieces
        )
        return amount if has_army and not board.contested(occ) else 0
    if "per_piece" in effect:
        rule = effect["per_piece"]
        spaces = board.within(state, t.space(rule["near"]), int(rule.get("range", 0)), me)
        nat = NAT_CODE[rule["nat"]]
        return amount * sum(
            1 for p in state.pieces if piece_nat(p) == nat and piece_space(p) in spaces
        )
    return amount


def _bloc_discard_deck(state: CwState, bloc: int, count: int, ctx: Ctx) -> int:
    """A Bloc played by one seat discards `count` draw-deck cards; returns the shortfall."""
    player = state.seats[state.bloc_seats(bloc)[0]]
    n = min(count, len(player.deck))
    player.discard_down.extend(player.deck[:n])
    del player.deck[:n]
    if n:
        ctx.irreversible = True
    return count - n


@decision("bloc_deck", "Your Bloc must discard draw deck cards: choose whose deck gives the next")
def _bloc_deck_options(state: CwState, frame: Frame) -> Options:
    """Teammates divide a Bloc-wide draw-deck discard as they see fit, one card at a time:
    either seat with cards in its draw deck gives the next (its top card, face down)."""
    from warroom.games.qmg_cw.state import seat_bits

    if frame.count <= 0:
        return {}
    return {
        seat: [("dd", "Discard the top card of your draw deck")]
        for seat in seat_bits(frame.mask)
        if state.seats[seat].deck
    }


@chooser("bloc_deck")
def _bloc_deck_choose(state: CwState, frame: Frame, seat: int, option: str, ctx: Ctx) -> None:
    player = state.seats[seat]
    player.discard_down.append(player.deck.pop(0))
    ctx.irreversible = True
    ctx.log(f"seat {seat} discards a draw deck card")
    if frame.count <= 1:
        pop(state)
    else:
        update_top(state, count=frame.count - 1)


# ---------------------------------------------------------------- effect decisions


@decision("pick_target", "Choose the enemy Bloc")
def _pick_target_options(state: CwState, frame: Frame) -> Options:
    c = card(frame.card)
    blocs = (
        affordable_targets(state, c, frame.bloc)
        if frame.tag == "wmd"
        else list(enemies(frame.bloc))
    )
    return {frame.owner: [(f"t:{b}", f"Target the {bloc_name(b)} Bloc") for b in blocs]}


@chooser("pick_target")
def _pick_target_choose(state: CwState, frame: Frame, seat: int, option: str, ctx: Ctx) -> None:
    pop(state)
    set_target(state, int(option[2:]), ctx)


def place_options(state: CwState, frame: Frame, recruit: bool) -> list[tuple[str, str]]:
    """Where the effect's piece may be built or recruited."""
    effect = effect_at(frame.card, frame.items)
    c = card(frame.card)
    spaces = area(state, effect, frame.bloc)
    kinds = (ARMY, NAVY, AIR) if effect["piece"] == "any" else (KINDS.index(effect["piece"]),)
    out = []
    for kind in kinds:
        for s in board.build_spaces(state, c.nat, kind, spaces, recruit):
            verb = "Recruit" if recruit else "Build"
            out.append((f"p:{kind}:{s}", f"{verb} {_a_piece(KINDS[kind])} in {space_name(s)}"))
    return out


def _kinds(frame: Frame) -> tuple[int, ...]:
    piece = effect_at(frame.card, frame.items)["piece"]
    return (ARMY, NAVY, AIR) if piece == "any" else (KINDS.index(piece),)


def own_turn_extras(state: CwState, frame: Frame, organic: bool) -> list[tuple[str, str]]:
    """In the owner's own turn: Organic Supply (`organic`: for a build or battle) and freeing
    a piece of a kind with none left to place."""
    extras = in_card_organic(state, frame) if organic else []
    if frame.kind in ("fx_build", "fx_recruit"):
        extras += freeable(state, frame, card(frame.card).nat, _kinds(frame))
    return extras


def took_extra(state: CwState, seat: int, option: str, ctx: Ctx) -> bool:
    """Apply an `organic:` or `free:` option; the card's decision stays on top."""
    if option.startswith("free:"):
        remove_piece(state, int(option[5:]), ctx)
        return True
    return take_organic(state, seat, option, ctx)


@decision("fx_build", "Build a piece")
def _build_options(state: CwState, frame: Frame) -> Options:
    opts = place_options(state, frame, recruit=False)
    extras = own_turn_extras(state, frame, organic=True)
    return {frame.owner: [*opts, *extras, ("skip", "Do not build")]}


@chooser("fx_build")
def _build_choose(state: CwState, frame: Frame, seat: int, option: str, ctx: Ctx) -> None:
    if took_extra(state, seat, option, ctx):
        return
    pop(state)
    if option != "skip":
        _, kind, space = option.split(":")
        built(state, card(frame.card).nat, int(kind), int(space), frame.bloc, ctx, recruit=False)


@decision("fx_recruit", "Recruit a piece")
def _recruit_options(state: CwState, frame: Frame) -> Options:
    opts = place_options(state, frame, recruit=True)
    # an Air Force is recruited only beside a supplied Army or Navy: Organic Supply may
    # supply it ("At any time during your own Bloc's turn")
    extras = own_turn_extras(state, frame, organic=AIR in _kinds(frame))
    return {frame.owner: [*opts, *extras, ("skip", "Do not recruit")]}


@chooser("fx_recruit")
def _recruit_choose(state: CwState, frame: Frame, seat: int, option: str, ctx: Ctx) -> None:
    if took_extra(state, seat, option, ctx):
        return
    pop(state)
    if option != "skip":
        _, kind, space = option.split(":")
        built(state, card(frame.card).nat, int(kind), int(space), frame.bloc, ctx, recruit=True)


def built(
    state: CwState, nat: int, kind: int, space: int, bloc: int, ctx: Ctx, recruit: bool
) -> None:
    """Place a built/recruited piece and open the reaction windows a build triggers."""
    board.place(state, space, nat, kind)
    state.last_space = space
    verb = "recruits" if recruit else "builds"
    ctx.log(f"{bloc_name(bloc)} {verb} a {NATS[nat].title()} {KINDS[kind]} in {space_name(space)}")
    if recruit:
        return
    if kind == ARMY:
        push(state, Frame("window", bloc=bloc, tag="after_build_army", space=space))
    if kind == NAVY:
        push(state, Frame("window", bloc=bloc, tag="enemy_builds_navy", space=space))


def battle_targets(state: CwState, frame: Frame) -> list[int]:
    """Enemy Armies/Navies the resolving effect may battle (needs a supplied own piece there)."""
    effect = effect_at(frame.card, frame.items)
    c = card(frame.card)
    me = frame.bloc
    spaces = area(state, effect, me)
    domain = effect.get("domain", "land")
    target = resolve_target(state)
    supply = board.supply_of(state)
    t = tables()
    attackers = set()
    for p in state.pieces:
        if piece_bloc(p) != me or piece_kind(p) == AIR:
            continue
        if me == 2 and piece_nat(p) != c.nat:
            continue
        if supply.supplied(p):
            attackers.add(piece_space(p))
    out = []
    for p in state.pieces:
        s = piece_space(p)
        if piece_bloc(p) == me or piece_kind(p) == AIR or s not in attackers:
            continue
        if spaces is not None and s not in spaces:
            continue
        if (domain == "land" and t.is_sea[s]) or (domain == "sea" and not t.is_sea[s]):
            continue
        if target != NOBODY and piece_bloc(p) != target:
            continue
        out.append(p)
    return out


piece_label = label
"""A piece for humans (`anytime.label`)."""


@decision("fx_battle", "Choose the enemy piece to battle")
def _battle_options(state: CwState, frame: Frame) -> Options:
    opts = [(f"x:{p}", f"Battle the {piece_label(p)}") for p in battle_targets(state, frame)]
    extras = own_turn_extras(state, frame, organic=True)
    return {frame.owner: [*opts, *extras, ("skip", "Do not battle")]}


@chooser("fx_battle")
def _battle_choose(state: CwState, frame: Frame, seat: int, option: str, ctx: Ctx) -> None:
    if took_extra(state, seat, option, ctx):
        return
    _strike_chosen(state, frame, option, ctx, verb="battles", tag="battle")


def _strike_chosen(
    state: CwState, frame: Frame, option: str, ctx: Ctx, *, verb: str, tag: str
) -> None:
    """Resolve a chosen enemy piece ("x:<piece>") of a battle or eliminate effect, or a skip."""
    pop(state)
    if option == "skip":
        return
    victim = int(option[2:])
    effect = effect_at(frame.card, frame.items)
    set_target(state, piece_bloc(victim), ctx, escalates=bool(effect.get("escalates")))
    if tag == "battle":
        state.last_space = piece_space(victim)
    ctx.log(f"{bloc_name(frame.bloc)} {verb} the {piece_label(victim)}")
    push(state, Frame("strike", bloc=frame.bloc, target=piece_bloc(victim), piece=victim, tag=tag))


def eliminate_targets(state: CwState, frame: Frame) -> list[int]:
    """Enemy pieces the resolving eliminate effect may remove."""
    effect = effect_at(frame.card, frame.items)
    me = frame.bloc
    spaces = area(state, effect, me)
    want = effect.get("piece", "army")
    target = resolve_target(state)
    own_army = {
        piece_space(p) for p in state.pieces if piece_bloc(p) == me and piece_kind(p) == ARMY
    }
    out = []
    for p in state.pieces:
        if piece_bloc(p) == me:
            continue
        kind = piece_kind(p)
        if (want == "army" and kind != ARMY) or (want == "navy" and kind != NAVY):
            continue
        if (want == "army_or_navy" and kind == AIR) or (want == "air" and kind != AIR):
            continue
        if spaces is not None and piece_space(p) not in spaces:
            continue
        if effect.get("with_own") == "army" and piece_space(p) not in own_army:
            continue
        if target != NOBODY and piece_bloc(p) != target:
            continue
        out.append(p)
    return out


@decision("fx_eliminate", "Choose the enemy piece to eliminate")
def _elim_options(state: CwState, frame: Frame) -> Options:
    opts = [(f"x:{p}", f"Eliminate the {piece_label(p)}") for p in eliminate_targets(state, frame)]
    return {frame.owner: [*opts, ("skip", "Do not eliminate")]}


@chooser("fx_eliminate")
def _elim_choose(state: CwState, frame: Frame, seat: int, option: str, ctx: Ctx) -> None:
    _strike_chosen(state, frame, option, ctx, verb="eliminates", tag="eliminate")


@auto("fx_lose")
def _lose(state: CwState, frame: Frame, ctx: Ctx) -> None:
    pop(state)
    target = resolve_target(state)
    if target != NOBODY:
        lose_vp(state, target, frame.count, ctx)


@auto("fx_discard_hand")
def _discard_hand(state: CwState, frame: Frame, ctx: Ctx) -> None:
    pop(state)
    target = resolve_target(state)
    if target == NOBODY:
        return
    have = bloc_hand(state, target)
    n = min(frame.count, have)
    if card(frame.card).type == "wmd":
        lose_vp(state, target, frame.count - n, ctx)
    ctx.log(f"{bloc_name(target)} must discard {n} cards from hand")
    pay(state, state.bloc_mask(target), n)


@auto("fx_discard_deck")
def _discard_deck(state: CwState, frame: Frame, ctx: Ctx) -> None:
    target = resolve_target(state)
    if target == NOBODY:
        pop(state)
        return
    seats = state.bloc_seats(target)
    if len(seats) > 1 and frame.target == NOBODY:
        pop(state)
        push(state, _replace(frame, kind="fx_pick_player"))
        return
    pop(state)
    seat = seats[0] if frame.target == NOBODY else frame.target
    player = state.seats[seat]
    n = min(frame.count, len(player.deck))
    player.discard_down.extend(player.deck[:n])
    del player.deck[:n]
    if n:
        ctx.irreversible = True
    ctx.log(f"seat {seat} discards {n} draw deck cards")
    if card(frame.card).type == "wmd":
        lose_vp(state, target, frame.count - n, ctx)


@decision("fx_pick_player", "Choose the enemy player")
def _pick_player_options(state: CwState, frame: Frame) -> Options:
    target = resolve_target(state)
    return {frame.owner: [(f"s:{s}", f"seat {s}") for s in state.bloc_seats(target)]}


@chooser("fx_pick_player")
def _pick_player_choose(state: CwState, frame: Frame, seat: int, option: str, ctx: Ctx) -> None:
    pop(state)
    push(state, _replace(frame, kind="fx_discard_deck", target=int(option[2:])))


@decision("fx_wmd", "Choose an enemy prepared WMD card to discard")
def _wmd_options(state: CwState, frame: Frame) -> Options:
    target = resolve_target(state)
    if target == NOBODY or frame.count <= 0:
        return {}
    cards = [
        c
        for s in state.bloc_seats(target)
        for c in state.seats[s].prepared
        if card(c).type == "wmd"
    ]
    if not cards:
        return {}
    opts = [(f"w:{c}", f"Discard the prepared WMD {card_name(c)}") for c in cards]
    if frame.pc > 0:
        opts.append(("done", "No more"))
    return {frame.owner: opts}


@chooser("fx_wmd")
def _wmd_choose(state: CwState, frame: Frame, seat: int, option: str, ctx: Ctx) -> None:
    if option == "done":
        pop(state)
        return
    cid = int(option[2:])
    for player in state.seats:
        if cid in player.prepared:
            player.prepared.remove(cid)
            player.discard_up.append(cid)
    ctx.log(f"{card_name(cid)} is discarded")
    update_top(state, count=frame.count - 1, pc=frame.pc + 1)


@decision("fx_own_wmd", "Discard one of your prepared WMD cards")
def _own_wmd_options(state: CwState, frame: Frame) -> Options:
    from warroom.games.qmg_cw.state import seat_bits

    out: Options = {}
    for seat in seat_bits(frame.mask):
        cards = [c for c in state.seats[seat].prepared if card(c).type == "wmd"]
        out[seat] = [(f"w:{c}", f"Discard your prepared WMD {card_name(c)}") for c in cards]
    return out


def _own_wmd_empty(state: CwState, frame: Frame, ctx: Ctx) -> None:
    pop(state)
    lose_vp(state, frame.bloc, frame.count, ctx)


@chooser("fx_own_wmd")
def _own_wmd_choose(state: CwState, frame: Frame, seat: int, option: str, ctx: Ctx) -> None:
    pop(state)
    cid = int(option[2:])
    state.seats[seat].prepared.remove(cid)
    state.seats[seat].discard_up.append(cid)
    ctx.log(f"{card_name(cid)} is discarded")


DECIDE["fx_own_wmd"] = (_own_wmd_options, _own_wmd_choose, _own_wmd_empty)


@decision("fx_play", "Play a card")
def _play_options(state: CwState, frame: Frame) -> Options:
    cards = [c for c in state.seats[frame.owner].hand if card(c).type == frame.tag]
    return {
        frame.owner: [
            *((f"play:{c}", f"Play {card_name(c)}") for c in cards),
            ("skip", "Do not play"),
        ]
    }


@chooser("fx_play")
def _play_choose(state: CwState, frame: Frame, seat: int, option: str, ctx: Ctx) -> None:
    pop(state)
    if option != "skip":
        play_card(state, seat, int(option[5:]), ctx)


@decision("fx_prepare", "Prepare a card")
def _prepare_options(state: CwState, frame: Frame) -> Options:
    cards = [c for c in state.seats[frame.owner].hand if card(c).type == frame.tag]
    return {
        frame.owner: [
            *((f"prep:{c}", f"Prepare {card_name(c)}") for c in cards),
            ("skip", "Do not prepare"),
        ]
    }


@chooser("fx_prepare")
def _prepare_choose(state: CwState, frame: Frame, seat: int, option: str, ctx: Ctx) -> None:
    pop(state)
    if option != "skip":
        prepare_card(state, seat, int(option[5:]), ctx)


@decision("fx_own_elim", "Eliminate one of your Armies")
def _own_elim_options(state: CwState, frame: Frame) -> Options:
    if frame.count <= 0:
        return {}
    armies = [p for p in state.pieces if piece_bloc(p) == frame.bloc and piece_kind(p) == ARMY]
    return {
        frame.owner: [
            *((f"x:{p}", f"Eliminate your {piece_label(p)}") for p in armies),
            ("done", "Eliminate no more Armies"),
        ]
    }


@chooser("fx_own_elim")
def _own_elim_choose(state: CwState, frame: Frame, seat: int, option: str, ctx: Ctx) -> None:
    if option == "done":
        pop(state)
        return
    code = int(option[2:])
    update_top(state, count=frame.count - 1)
    remove_piece(state, code, ctx)
    gain_vp(state, frame.bloc, frame.pc, ctx)


@decision("own_army", "Eliminate one of your Armies (cost)")
def _own_army_options(state: CwState, frame: Frame) -> Options:
    armies = [p for p in state.pieces if piece_bloc(p) == frame.bloc and piece_kind(p) == ARMY]
    return {frame.owner: [(f"x:{p}", f"Eliminate your {piece_label(p)}") for p in armies]}


@chooser("own_army")
def _own_army_choose(state: CwState, frame: Frame, seat: int, option: str, ctx: Ctx) -> None:
    pop(state)
    remove_piece(state, int(option[2:]), ctx)


@decision("fx_branch", "Choose which action of the card to use")
def _branch_options(state: CwState, frame: Frame) -> Options:
    effect = effect_at(frame.card, frame.items)
    labels = []
    for i, branch in enumerate(effect["branches"]):
        text = ", then ".join(branch_label(e) for e in branch)
        labels.append((f"br:{i}", text[:1].upper() + text[1:]))
    return {frame.owner: labels}


PIECE_WORDS = {"army": "an Army", "navy": "a Navy", "air": "an Air Force", "any": "a piece"}
"""A piece kind of the content, with its article, as labels name it."""


def _a_piece(kind: str) -> str:
    return PIECE_WORDS.get(kind, f"a {kind}")


def _where(effect: dict[str, Any]) -> str:
    """Where an effect primitive applies, as " in ..." ("" when anywhere)."""
    t = tables()
    if "spaces" in effect:
        return " in " + " or ".join(t.space_names[t.space(s)] for s in effect["spaces"])
    if "near" in effect:
        name = t.space_names[t.space(effect["near"])]
        return f" in {name}" if int(effect.get("range", 0)) == 0 else f" in or near {name}"
    return ""


def branch_label(effect: dict[str, Any]) -> str:
    """What one primitive of a card's branch does, for the branch's option label."""
    op = str(effect["op"])
    piece = _a_piece(str(effect.get("piece", "any")))
    if op == "recruit":
        return f"recruit {piece}{_where(effect)}"
    if op == "build":
        return f"build {piece}{_where(effect)}"
    if op == "eliminate":
        enemy = piece.split(" ", 1)[1]
        return f"eliminate an enemy {enemy}{_where(effect)}"
    if op == "discard_enemy_wmd":
        count = int(effect.get("max", 1))
        return f"the target discards up to {count} prepared WMD card{'s' if count > 1 else ''}"
    if op == "enemy_discard_deck":
        return f"the target discards the top {effect.get('count', 1)} cards of its draw deck"
    if op == "enemy_lose_vp":
        return f"the target loses {effect.get('amount', 1)} VP"
    return op.replace("_", " ")


@chooser("fx_branch")
def _branch_choose(state: CwState, frame: Frame, seat: int, option: str, ctx: Ctx) -> None:
    pop(state)
    push(
        state,
        Frame(
            "sub",
            bloc=frame.bloc,
            owner=frame.owner,
            card=frame.card,
            items=(frame.items[0], int(option[3:])),
        ),
    )


def remove_piece(state: CwState, code: int, ctx: Ctx) -> None:
    """Take a piece off the board and check for Air Forces left without a host."""
    state.remove_piece(code)
    ctx.log(f"the {piece_label(code)} is removed")
    if piece_kind(code) != AIR:
        orphan_check(state, piece_space(code), piece_nat(code))


def orphan_check(state: CwState, space: int, nat: int) -> None:
    """An Air Force without an Army or Navy of its nationality: eliminate or relocate it."""
    hosts = [
        p
        for p in state.pieces
        if piece_space(p) == space and piece_nat(p) == nat and piece_kind(p) != AIR
    ]
    if hosts:
        return
    for p in state.pieces:
        if piece_space(p) == space and piece_nat(p) == nat and piece_kind(p) == AIR:
            bloc = nat_bloc(nat)
            push(state, Frame("orphan", bloc=bloc, mask=state.bloc_mask(bloc), piece=p))


def relocations(state: CwState, af: int) -> list[int]:
    """Adjacent spaces with an Army or Navy of the Air Force's nationality (supplied or not)."""
    nat = piece_nat(af)
    out = []
    for s in sorted(board.neighbours(state, piece_space(af), nat_bloc(nat))):
        host = any(
            piece_space(p) == s and piece_nat(p) == nat and piece_kind(p) != AIR
            for p in state.pieces
        )
        if host and board.can_stand(state, s, nat, AIR):
            out.append(s)
    return out


@decision("orphan", "Your Air Force has no Army or Navy: eliminate or relocate it")
def _orphan_options(state: CwState, frame: Frame) -> Options:
    from warroom.games.qmg_cw.state import seat_bits

    if frame.piece not in state.pieces:
        return {}
    dests = relocations(state, frame.piece)
    out: Options = {}
    for seat in seat_bits(frame.mask):
        opts = [("elim", "Eliminate the Air Force")]
        if state.seats[seat].hand:
            opts += [(f"reloc:{s}", f"Discard to relocate to {space_name(s)}") for s in dests]
        out[seat] = opts
    return out


@chooser("orphan")
def _orphan_choose(state: CwState, frame: Frame, seat: int, option: str, ctx: Ctx) -> None:
    if option == "elim" and not last_to_answer(state, frame, seat):
        # a teammate's "eliminate" is its own: the other may still pay to relocate
        return
    pop(state)
    state.remove_piece(frame.piece)
    if option == "elim":
        ctx.log(f"the {piece_label(frame.piece)} is eliminated")
        return
    dest = int(option[6:])
    pay(state, 1 << seat, 1, Frame("place_air", piece=frame.piece, space=dest))


@auto("place_air")
def _place_air(state: CwState, frame: Frame, ctx: Ctx) -> None:
    pop(state)
    nat = piece_nat(frame.piece)
    if board.can_stand(state, frame.space, nat, AIR):
        board.place(state, frame.space, nat, AIR)
        ctx.log(f"{NATS[nat].title()} Air Force now in {space_name(frame.space)}")


def nat_of_card(cid: int) -> int:
    """The nationality of a card."""
    return card(cid).nat


__all__ = ["NAT_BLOC", "enemies", "play_card", "prepare_card", "use_card"]
