"""Quartermaster General: South Front rules: the `Rules` implementation (registered as "qmg_sf").

Seat 0 plays the Axis (Germany, Pact), seat 1 the Allies (UK, USA, France).
`evaluate` (from `heuristic.py`) is the position value used by the heuristic bot, and
`follow_ups` the moves its second ply looks at in a movement step.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from google.protobuf.message import Message

from warroom.engine.errors import IllegalOptionError, SetupError
from warroom.engine.model import Applied, Decision, Event, Option, Result, SeatInfo, VariantInfo
from warroom.engine.rules import Rules
from warroom.games.qmg_sf import board, codec, turn, views
from warroom.games.qmg_sf.board import side_of
from warroom.games.qmg_sf.content import tables
from warroom.games.qmg_sf.heuristic import evaluate as evaluate
from warroom.games.qmg_sf.heuristic import follow_ups as follow_ups
from warroom.games.qmg_sf.setup import VARIANTS, new_state
from warroom.games.qmg_sf.state import OFF, SIDES, Ctx, SfState
from warroom.games.qmg_sf.v1 import qmg_sf_pb2

_PROMPTS = {
    "move1": "First Movement step: move a piece or end the step",
    "move2": "Second Movement step: move tanks, fleets, carriers, or unload",
    "action": "Action step: take one action",
    "mulligan": "Keep your opening hand or take a mulligan?",
    "fg_leave": "Choose the First Game card to leave in your deck",
    "pay": "Choose a card to discard",
    "cons_place": "Deploy the conscripted piece",
    "fm_move": "Forced March: move one piece",
    "da_attack": "Desperate Attack: choose the attack",
    "c_fr": "Include the French infantry in the attacking force?",
    "c_def": "Defend: use a reaction or remove a piece",
    "c_defrm": "Remove a defending piece",
    "c_aa_atk": "Counter the loss with a reaction?",
    "c_aa_def": "Counter the attacker's loss with a reaction?",
    "c_cont": "Continue the attack?",
    "c_exch": "Exchange: remove an attacking piece",
    "c_adv": "Advance! into the attacked space?",
    "fx_place": "Place the piece",
    "fx_follow": "Move that piece or attack with it",
    "fx_move": "Move a piece",
    "fx_attack": "Choose the attack",
    "fx_elim": "Choose the piece to eliminate",
    "fx_unless": "Discard a card to save your piece?",
    "fx_pay": "Discard a card or give VPs",
    "fx_more": "Discard a card to take another action?",
    "fx_enemy_discard": "Choose a card to discard",
    "fx_choose": "Choose one",
}


class SouthFrontRules(Rules[SfState]):
    """The rules of Quartermaster General: South Front (rulebook v1.0)."""

    game_id = "qmg_sf"
    title = "Quartermaster General: South Front"
    evaluate = staticmethod(evaluate)
    follow_ups = staticmethod(follow_ups)

    def variants(self) -> Sequence[VariantInfo]:
        """Standard opening hands, or the First Game hands."""
        return [VariantInfo(vid, text, 2, SIDES) for vid, text in VARIANTS.items()]

    def setup(self, seed: int, variant: str, options: Mapping[str, str]) -> SfState:
        """A new game waiting for the opening-hand decisions."""
        self.variant(variant)
        if options:
            raise SetupError(f"qmg_sf: unknown options {sorted(options)}")
        state = new_state(seed, variant)
        turn.advance(state, Ctx())
        return state

    def seats(self, state: SfState) -> Sequence[SeatInfo]:
        """Axis and Allies."""
        return [SeatInfo(0, "Axis", "Axis"), SeatInfo(1, "Allies", "Allies")]

    def decision(self, state: SfState) -> Decision | None:
        """The pending decision."""
        if state.over:
            return None
        seat = turn.seat_to_act(state)
        top = state.top()
        kind = top.kind if top is not None else state.phase
        options = tuple(Option(i, label) for i, label in turn.options(state))
        return Decision(kind=kind, prompt=_PROMPTS.get(kind, kind), options={seat: options})

    def apply(self, state: SfState, seat: int, option_id: str) -> Applied[SfState]:
        """Apply one option to a clone of the state."""
        if state.over:
            raise IllegalOptionError("", option_id, seat, "the game is over")
        if seat != turn.seat_to_act(state):
            raise IllegalOptionError("", option_id, seat, f"seat {seat} does not act now")
        if not any(i == option_id for i, _ in turn.options(state)):
            raise IllegalOptionError("", option_id, seat, "not a legal option")
        work = state.clone()
        ctx = Ctx()
        turn.apply(work, seat, option_id, ctx)
        events = tuple(Event(text, visible_to=vis) for text, vis in ctx.events)
        revealed = any(
            len(work.revealed[i]) != len(state.revealed[i])
            or len(work.decks[i]) != len(state.decks[i])
            for i in (0, 1)
        )
        return Applied(work, events, ctx.irreversible or revealed or work.rng != state.rng)

    def result(self, state: SfState) -> Result | None:
        """VPs as scores; the winner ranked first."""
        if not state.over:
            return None
        w = state.winner
        return Result(
            {0: float(state.vp[0]), 1: float(state.vp[1])},
            frozenset({w}),
            {w: 0, 1 - w: 1},
            state.reason,
        )

    def scores(self, state: SfState) -> Mapping[int, float]:
        """Current VPs per seat."""
        return {0: float(state.vp[0]), 1: float(state.vp[1])}

    def view(self, state: SfState, seat: int | None) -> Message:
        """What a seat (or a spectator) may see."""
        return views.make_view(state, seat)

    def encode_state(self, state: SfState) -> Message:
        """The full state as qmg_sf_pb2.State."""
        return codec.encode(state)

    def decode_state(self, message: Message) -> SfState:
        """The state back from qmg_sf_pb2.State."""
        assert isinstance(message, qmg_sf_pb2.State)
        return codec.decode(message)

    def state_message_type(self) -> type[Message]:
        """qmg_sf_pb2.State."""
        return qmg_sf_pb2.State

    def determinize(self, view: Message, seat: int, rng_seed: int) -> SfState:
        """A full state consistent with the view, hidden facts sampled afresh."""
        assert isinstance(view, qmg_sf_pb2.View)
        return views.determinize(view, seat, rng_seed)

    def invariants(self, state: SfState) -> list[str]:
        """Conservation of cards, no mixed spaces, carried pieces beside their carrier."""
        t = tables()
        out: list[str] = []
        for side in (0, 1):
            held = state.hands[side] + state.decks[side] + state.late[side] + state.discards[side]
            if sorted(held) != sorted(t.deck_cards[side]):
                out.append(f"{SIDES[side]} cards not conserved")
            if not set(state.revealed[side]) <= set(state.discards[side]):
                out.append(f"{SIDES[side]} revealed cards not in the discard pile")
        first: dict[int, int] = {}
        for p, at in enumerate(state.loc):
            if at == OFF:
                continue
            sd = side_of(p)
            if first.setdefault(at, sd) != sd:
                out.append(f"both sides in {t.names[at]}")
        for sp, n in enumerate(state.mcf):
            if (
                n > 0
                and board.mcf_side(state, sp) >= 0
                and first.get(sp, -9) == 1 - board.mcf_side(state, sp)
            ):
                out.append(f"an MCF shares {t.names[sp]} with the enemy")
        for p, c in enumerate(state.on):
            if c >= 0 and (state.loc[p] != state.loc[c] or state.loc[c] == OFF):
                out.append(f"piece {p} carried by {c} elsewhere")
        return out
