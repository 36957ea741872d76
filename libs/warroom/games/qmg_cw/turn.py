"""Setup's opening hands and the 7-step turn, with the team-play restrictions.

Each Bloc's turn is a `turn` frame whose pc walks the steps: Begin Turn (Reallocate
Resources, prepared cards, Organic Supply, removing own pieces; teammates act
jointly, each answers `done`), Air and Action (one teammate acts: taking the step
closes it for both, a pass only for the seat that passes), Supply (Organic Supply, then out-of-supply pieces go),
Discard (discard 1 or give 1 to the teammate), Espionage (discard 1 to prepare
an Espionage card face down) and Draw (each player to 7).
"""

from __future__ import annotations

from dataclasses import replace

from warroom.games.qmg_cw import board
from warroom.games.qmg_cw.anytime import do_organic, organic_options, out_of_supply
from warroom.games.qmg_cw.battle import may_be_protected
from warroom.games.qmg_cw.content import KINDS, tables
from warroom.games.qmg_cw.effects import (
    card,
    piece_label,
    play_card,
    prepare_card,
    remove_piece,
    usable,
    use_card,
)
from warroom.games.qmg_cw.flow import (
    Ctx,
    Options,
    auto,
    bloc_name,
    card_name,
    chooser,
    decision,
    discard_hand_card,
    draw,
    last_to_answer,
    pay,
    pop,
    push,
    seat_done,
    shuffle_deck,
    space_name,
    update_top,
)
from warroom.games.qmg_cw.state import (
    AIR,
    HAND_SIZE,
    LAST_ROUND,
    NA,
    NATIONALIST,
    SOV,
    CwState,
    Frame,
    piece_bloc,
    piece_kind,
    piece_nat,
    seat_bits,
)

REALLOC_TYPES = frozenset({"build_army", "build_navy", "land_battle", "sea_battle", "air_power"})


def opening_need(state: CwState, seat: int) -> tuple[int, int]:
    """(Espionage cards to place, cards to put on the bottom) for a seat's opening draw."""
    return (1, 2) if state.teamed(state.seats[seat].bloc) else (2, 3)


@decision(
    "open", "Opening hand: place Espionage cards face down, then cards on the bottom of your deck"
)
def _open_options(state: CwState, frame: Frame) -> Options:
    out: Options = {}
    for seat in seat_bits(frame.mask):
        player = state.seats[seat]
        esp, _ = opening_need(state, seat)
        if len(player.espionage) < esp:
            cards = [c for c in player.opening if card(c).type == "espionage"]
            out[seat] = [
                (f"esp:{c}", f"Place {card_name(c)} face down as Espionage") for c in cards
            ]
        else:
            out[seat] = [
                (f"bottom:{c}", f"Put {card_name(c)} on the bottom of your deck")
                for c in player.opening
            ]
    return out


@chooser("open")
def _open_choose(state: CwState, frame: Frame, seat: int, option: str, ctx: Ctx) -> None:
    player = state.seats[seat]
    kind, _, value = option.partition(":")
    cid = int(value)
    player.opening.remove(cid)
    if kind == "esp":
        player.espionage.append(cid)
    else:
        player.deck.append(cid)
    if len(player.opening) == HAND_SIZE and len(player.espionage) >= opening_need(state, seat)[0]:
        player.hand.extend(player.opening)
        player.opening.clear()
        if seat_done(state, frame, seat):
            push(state, Frame("turn", bloc=SOV))


def start_turn(state: CwState, bloc: int) -> None:
    """Reset the per-turn bookkeeping."""
    state.active = bloc
    state.organic.clear()
    state.used.clear()
    state.realloc = 0


STEP_FRAMES = ("begin", "air", "action", "supply", "discard_step", "esp_step")


@auto("turn")
def _turn(state: CwState, frame: Frame, ctx: Ctx) -> None:
    bloc = frame.bloc
    if frame.pc == 0:
        start_turn(state, bloc)
        ctx.log(f"Round {state.round}: {bloc_name(bloc)} turn", kind="turn")
    if frame.pc < len(STEP_FRAMES):
        update_top(state, pc=frame.pc + 1)
        push(state, Frame(STEP_FRAMES[frame.pc], bloc=bloc, mask=state.bloc_mask(bloc)))
        if frame.pc == 0:
            # "Use any time.": the enemies may use such a card before this Bloc's Begin Turn
            # step (Reaction Example: Akula could have hit the MX Peacekeeper before its use);
            # the moving Bloc is offered its own in the Begin Turn step (ruling 23)
            push(state, Frame("window", bloc=bloc, tag="turn_start"))
        return
    pop(state)
    for seat in state.bloc_seats(bloc):
        draw(state, seat, HAND_SIZE - len(state.seats[seat].hand), ctx)
    state.organic.clear()
    if bloc < NA:
        push(state, Frame("turn", bloc=bloc + 1))
    else:
        push(state, Frame("round_end"))


@auto("round_end")
def _round_end(state: CwState, frame: Frame, ctx: Ctx) -> None:
    from warroom.games.qmg_cw.scoring import scoring_phase

    scoring = state.round % 2 == 0 or state.round == LAST_ROUND
    if scoring and frame.pc == 0:
        # "Use any time.": the moment before the Scoring Phase is one of its moments (the
        # other Blocs had none since the Non-Aligned Bloc's last card)
        update_top(state, pc=1)
        push(state, Frame("window", bloc=state.active, tag="resolved"))
        return
    pop(state)
    if scoring:
        scoring_phase(state, ctx)
        if state.over:
            return
    state.round += 1
    push(state, Frame("turn", bloc=SOV))


# ---------------------------------------------------------------- options shared by steps


ORGANIC_ENTRY, REMOVE_ENTRY = 0, 1


def declined(step: Frame, seat: int, entry: int) -> bool:
    """Whether the seat cancelled this entry ("organic" / "remove") earlier in the step."""
    return seat * 2 + entry in step.items


def decline(state: CwState, seat: int, entry: int) -> None:
    """Cancel a picker: the step frame (now on top) no longer offers that entry to the seat.

    A cancel must change the state: were it to restore the step as it was, a player
    (or a deterministic bot) could enter and cancel forever without the game advancing.
    """
    step = state.stack[-1]
    update_top(state, items=tuple(sorted({*step.items, seat * 2 + entry})))


def organic_entry(state: CwState, seat: int, step: Frame) -> list[tuple[str, str]]:
    """One "organic" option (the piece is picked next) when Organic Supply is possible."""
    if declined(step, seat, ORGANIC_ENTRY):
        return []
    if state.seats[seat].hand and out_of_supply(state, step.bloc):
        return [("organic", "Organic Supply: discard a card to supply a piece this turn")]
    return []


@decision("organic_pick", "Organic Supply: choose the Army or Navy")
def _organic_pick_options(state: CwState, frame: Frame) -> Options:
    cancel = ("cancel", "Cancel (no Organic Supply for the rest of this step)")
    return {frame.owner: [*organic_options(state, frame.owner, frame.bloc), cancel]}


@chooser("organic_pick")
def _organic_pick_choose(state: CwState, frame: Frame, seat: int, option: str, ctx: Ctx) -> None:
    pop(state)
    if option == "cancel":
        decline(state, seat, ORGANIC_ENTRY)
    else:
        do_organic(state, seat, int(option[8:]), ctx)


def remove_entry(state: CwState, seat: int, step: Frame) -> list[tuple[str, str]]:
    """One "remove" option (the piece is picked next): "At any time during your own Bloc's
    turn, you may remove your own Bloc's piece from the board". Listed after the step's
    pass, so that bots breaking ties by order do not open the picker for nothing."""
    if declined(step, seat, REMOVE_ENTRY):
        return []
    if any(piece_bloc(p) == step.bloc for p in state.pieces):
        return [("remove", "Remove one of your pieces")]
    return []


@decision("remove_pick", "Remove one of your own pieces")
def _remove_pick_options(state: CwState, frame: Frame) -> Options:
    own = [
        (f"remove:{p}", f"Remove your {piece_label(p)}")
        for p in state.pieces
        if piece_bloc(p) == frame.bloc
    ]
    return {frame.owner: [*own, ("cancel", "Cancel (remove no piece for the rest of this step)")]}


@chooser("remove_pick")
def _remove_pick_choose(state: CwState, frame: Frame, seat: int, option: str, ctx: Ctx) -> None:
    pop(state)
    if option == "cancel":
        decline(state, seat, REMOVE_ENTRY)
    else:
        remove_piece(state, int(option[7:]), ctx)


@decision("begin", "Begin Turn step: Reallocate Resources first, then use prepared cards, or done")
def _begin_options(state: CwState, frame: Frame) -> Options:
    out: Options = {}
    for seat in seat_bits(frame.mask):
        player = state.seats[seat]
        opts: list[tuple[str, str]] = []
        if frame.pc == 0 and not state.realloc & (1 << seat) and len(player.hand) >= 3:
            opts.append(("realloc", "Reallocate Resources"))
        opts += [
            (f"use:{c}", f"Use {card_name(c)}")
            for c in usable(state, seat, ("begin_turn", "any_time"))
        ]
        opts += organic_entry(state, seat, frame)
        opts.append(("done", "End the Begin Turn step"))
        opts += remove_entry(state, seat, frame)
        out[seat] = opts
    return out


@chooser("begin")
def _begin_choose(state: CwState, frame: Frame, seat: int, option: str, ctx: Ctx) -> None:
    if option == "done":
        seat_done(state, frame, seat)
    elif option == "realloc":
        state.realloc |= 1 << seat
        pay(state, 1 << seat, 3, Frame("realloc_pick", mask=1 << seat, owner=seat))
    elif option.startswith("use:"):
        cid = int(option[4:])
        if card(cid).when == "begin_turn":
            # "First, you may Reallocate Resources ... Then ... any prepared cards that
            # specify this step": an "any time" card specifies no step and closes nothing
            update_top(state, pc=1)
        use_card(state, seat, cid, ctx)
    else:
        _step_side_choice(state, frame, seat, option, ctx)


@decision("realloc_pick", "Reallocate Resources: choose a card from your draw deck")
def _realloc_options(state: CwState, frame: Frame) -> Options:
    deck = state.seats[frame.owner].deck
    cards = sorted({c for c in deck if card(c).type in REALLOC_TYPES})
    opts = [(f"r:{c}", f"Take {card_name(c)} from your draw deck") for c in cards] or [
        ("none", "No eligible card")
    ]
    return {frame.owner: opts}


@chooser("realloc_pick")
def _realloc_choose(state: CwState, frame: Frame, seat: int, option: str, ctx: Ctx) -> None:
    pop(state)
    player = state.seats[seat]
    if option != "none":
        cid = int(option[2:])
        player.deck.remove(cid)
        player.hand.append(cid)
        ctx.log(f"{bloc_name(player.bloc)} reveals {card_name(cid)} from its deck", kind="reveal")
    shuffle_deck(state, seat, ctx)


@decision("air", "Air step: play an Air Power card, or discard a card to rebase an Air Force")
def _air_options(state: CwState, frame: Frame) -> Options:
    out: Options = {}
    afs = [p for p in state.pieces if piece_bloc(p) == frame.bloc and piece_kind(p) == AIR]
    for seat in seat_bits(frame.mask):
        player = state.seats[seat]
        opts = [
            (f"air:{c}", f"Play {card_name(c)}") for c in player.hand if card(c).type == "air_power"
        ]
        if player.hand:
            for af in afs:
                for dest in rebase_spaces(state, af):
                    opts.append(
                        (
                            f"rebase:{af}:{dest}",
                            f"Rebase the {piece_label(af)} to {space_name(dest)}",
                        )
                    )
        opts += any_time_uses(state, seat)
        opts += organic_entry(state, seat, frame)
        opts.append(("pass", "Skip the Air step"))
        opts += remove_entry(state, seat, frame)
        out[seat] = opts
    return out


def rebase_spaces(state: CwState, af: int) -> list[int]:
    """Where an Air Force may be rebased (built elsewhere: with a supplied Army/Navy of its nationality)."""
    without = replace(
        state,
        pieces=[p for p in state.pieces if p != af],
        organic=[p for p in state.organic if p != af],
        public=None,
        pending=None,
    )
    nat = piece_nat(af)
    here = af // 32
    return [s for s in board.build_spaces(without, nat, AIR, None, recruit=False) if s != here]


def any_time_uses(state: CwState, seat: int) -> list[tuple[str, str]]:
    """The seat's prepared "Use any time." cards (all face up), offered in every own step."""
    return [(f"use:{c}", f"Use {card_name(c)}") for c in usable(state, seat, ("any_time",))]


def _step_side_choice(state: CwState, frame: Frame, seat: int, option: str, ctx: Ctx) -> bool:
    """Handle the choices every step offers (Organic Supply, removing an own piece, an
    any-time card); True if handled (the step stays open)."""
    if option == "organic":
        push(state, Frame("organic_pick", bloc=frame.bloc, mask=1 << seat, owner=seat))
        return True
    if option == "remove":
        push(state, Frame("remove_pick", bloc=frame.bloc, mask=1 << seat, owner=seat))
        return True
    if option.startswith("use:"):
        use_card(state, seat, int(option[4:]), ctx)
        return True
    return False


def passed(state: CwState, frame: Frame, seat: int, option: str) -> bool:
    """A teammate's pass in a one-teammate step (Air, Action, Discard, Espionage) is its own:
    the step stays open for a teammate who has not answered."""
    if option != "pass":
        return False
    seat_done(state, frame, seat)
    return True


@chooser("air")
def _air_choose(state: CwState, frame: Frame, seat: int, option: str, ctx: Ctx) -> None:
    if _step_side_choice(state, frame, seat, option, ctx) or passed(state, frame, seat, option):
        return
    pop(state)
    if option.startswith("air:"):
        play_card(state, seat, int(option[4:]), ctx)
    elif option.startswith("rebase:"):
        _, af, dest = option.split(":")
        pay(state, 1 << seat, 1, Frame("rebase_do", piece=int(af), space=int(dest)))


@auto("rebase_do")
def _rebase_do(state: CwState, frame: Frame, ctx: Ctx) -> None:
    pop(state)
    if frame.piece not in state.pieces:
        return
    state.remove_piece(frame.piece)
    nat = piece_nat(frame.piece)
    if board.can_stand(state, frame.space, nat, AIR):
        board.place(state, frame.space, nat, AIR)
    ctx.log(f"Air Force rebased to {space_name(frame.space)}")


ACTION_PLAY = frozenset({"build_army", "build_navy", "land_battle", "sea_battle", "event"})


@decision("action", "Action step: play or prepare one card")
def _action_options(state: CwState, frame: Frame) -> Options:
    out: Options = {}
    for seat in seat_bits(frame.mask):
        player = state.seats[seat]
        opts = [
            (f"play:{c}", f"Play {card_name(c)}")
            for c in player.hand
            if card(c).type in ACTION_PLAY
        ]
        opts += [
            (f"prep:{c}", f"Prepare {card_name(c)}")
            for c in player.hand
            if card(c).type in ("status", "wmd")
        ]
        opts += any_time_uses(state, seat)
        opts += organic_entry(state, seat, frame)
        opts.append(("pass", "Skip the Action step"))
        opts += remove_entry(state, seat, frame)
        out[seat] = opts
    return out


@chooser("action")
def _action_choose(state: CwState, frame: Frame, seat: int, option: str, ctx: Ctx) -> None:
    if _step_side_choice(state, frame, seat, option, ctx) or passed(state, frame, seat, option):
        return
    pop(state)
    if option.startswith("play:"):
        play_card(state, seat, int(option[5:]), ctx)
    elif option.startswith("prep:"):
        prepare_card(state, seat, int(option[5:]), ctx)


def _supply_removals(state: CwState, frame: Frame, ctx: Ctx) -> None:
    pop(state)
    _remove_unsupplied_air(state, frame.bloc, ctx)
    for p in out_of_supply(state, frame.bloc):
        if piece_nat(p) == NATIONALIST:
            continue
        if may_be_protected(state, p):
            # "Use when a Western Army in or adjacent to Germany is about to be removed"
            # (Berlin Airlift): any removal, the Supply step's too; no Air Defense here
            ctx.log(f"out of supply: the {piece_label(p)} is about to be removed")
            push(state, Frame("strike", bloc=frame.bloc, target=frame.bloc, piece=p, tag="supply"))
        else:
            ctx.log(f"out of supply: the {piece_label(p)} is removed")
            remove_piece(state, p, ctx)


@decision(
    "supply", "Supply step: pay Organic Supply, or let out-of-supply pieces go", _supply_removals
)
def _supply_options(state: CwState, frame: Frame) -> Options:
    removable = [p for p in out_of_supply(state, frame.bloc) if piece_nat(p) != NATIONALIST]
    if not removable:
        return {}
    out: Options = {}
    for seat in seat_bits(frame.mask):
        opts = [
            o
            for o in organic_options(state, seat, frame.bloc)
            if piece_nat(int(o[0][8:])) != NATIONALIST
        ]
        out[seat] = [
            *opts,
            *any_time_uses(state, seat),
            ("done", "Remove the out-of-supply pieces"),
        ]
    return out


@chooser("supply")
def _supply_choose(state: CwState, frame: Frame, seat: int, option: str, ctx: Ctx) -> None:
    if option.startswith("use:"):
        use_card(state, seat, int(option[4:]), ctx)
        return
    if option == "done":
        # the Supply step is joint: a teammate's "done" is its own, so the other may still
        # pay Organic Supply ("Either teammate on a Bloc can discard a card for Organic Supply")
        if last_to_answer(state, frame, seat):
            _supply_removals(state, frame, ctx)
    else:
        do_organic(state, seat, int(option[8:]), ctx)


def _remove_unsupplied_air(state: CwState, bloc: int, ctx: Ctx) -> None:
    """The Supply step's out-of-supply Air Forces go with the Armies and Navies: an Air Force
    is out of supply when its Army or Navy is, so it is removed, not left without its host
    (which would offer the orphaned Air Force's paid relocation)."""
    supply = board.Supply(state)
    for p in list(state.pieces):
        own_air = piece_bloc(p) == bloc and piece_kind(p) == AIR and piece_nat(p) != NATIONALIST
        if own_air and not supply.supplied(p):
            ctx.log(f"out of supply: the {piece_label(p)} is removed")
            state.remove_piece(p)


@decision("discard_step", "Discard step: discard 1 card, or give 1 card to your teammate")
def _discard_options(state: CwState, frame: Frame) -> Options:
    out: Options = {}
    seats = seat_bits(frame.mask)
    for seat in seats:
        hand = state.seats[seat].hand
        uses = any_time_uses(state, seat)
        if not hand and not uses:
            continue
        opts = [(f"discard:{c}", f"Discard {card_name(c)}") for c in hand]
        if state.teamed(frame.bloc):
            opts += [(f"give:{c}", f"Give {card_name(c)} to your teammate") for c in hand]
        opts += uses
        out[seat] = [*opts, ("pass", "Skip the Discard step"), *remove_entry(state, seat, frame)]
    return out


@chooser("discard_step")
def _discard_choose(state: CwState, frame: Frame, seat: int, option: str, ctx: Ctx) -> None:
    if passed(state, frame, seat, option) or _step_side_choice(state, frame, seat, option, ctx):
        return
    pop(state)
    if option.startswith("discard:"):
        discard_hand_card(state, seat, int(option[8:]))
        ctx.log(f"seat {seat} discards a card")
    elif option.startswith("give:"):
        cid = int(option[5:])
        mate = next(s for s in state.bloc_seats(frame.bloc) if s != seat)
        state.seats[seat].hand.remove(cid)
        state.seats[mate].hand.append(cid)
        ctx.log(f"seat {seat} gives a card to seat {mate}")


@decision("esp_step", "Espionage step: discard a card to prepare an Espionage card face down")
def _esp_options(state: CwState, frame: Frame) -> Options:
    """Every seat holding two cards or more is asked, whatever its hand: were only seats
    able to prepare asked, the step would show everyone who holds an Espionage card."""
    out: Options = {}
    for seat in seat_bits(frame.mask):
        hand = state.seats[seat].hand
        uses = any_time_uses(state, seat)
        if len(hand) < 2 and not uses:
            continue
        esp = [c for c in hand if card(c).type == "espionage"]
        opts = [
            (f"espdisc:{c}", f"Discard {card_name(c)}") for c in hand if any(e != c for e in esp)
        ]
        opts += uses
        out[seat] = [*opts, ("pass", "Skip the Espionage step"), *remove_entry(state, seat, frame)]
    return out


@chooser("esp_step")
def _esp_choose(state: CwState, frame: Frame, seat: int, option: str, ctx: Ctx) -> None:
    if passed(state, frame, seat, option) or _step_side_choice(state, frame, seat, option, ctx):
        return
    pop(state)
    discard_hand_card(state, seat, int(option[8:]))
    push(state, Frame("esp_pick", mask=1 << seat, owner=seat))


@decision("esp_pick", "Choose the Espionage card to prepare face down")
def _esp_pick_options(state: CwState, frame: Frame) -> Options:
    hand = state.seats[frame.owner].hand
    return {
        frame.owner: [
            (f"esp:{c}", f"Prepare {card_name(c)} face down")
            for c in hand
            if card(c).type == "espionage"
        ]
    }


@chooser("esp_pick")
def _esp_pick_choose(state: CwState, frame: Frame, seat: int, option: str, ctx: Ctx) -> None:
    pop(state)
    prepare_card(state, seat, int(option[4:]), ctx)


__all__ = ["KINDS", "tables"]
