"""QMG: The Cold War rules: the `Rules` implementation over `CwState` (registered as "qmg_cw")."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from google.protobuf.message import Message

from warroom.engine.errors import IllegalOptionError, SetupError, require_listed
from warroom.engine.model import Applied, Decision, Option, Result, SeatInfo, VariantInfo
from warroom.engine.rules import Rules
from warroom.games.qmg_cw import (  # noqa: F401
    air,
    battle,
    board,
    codec,
    flow,
    heuristic,
    reactions,
    scoring,
    turn,
    views,
)
from warroom.games.qmg_cw.content import BLOC_NAMES, BLOCS, DECKS, KINDS, NATS, tables
from warroom.games.qmg_cw.setup import new_state
from warroom.games.qmg_cw.state import CwState, Frame, piece_kind, piece_nat, piece_space
from warroom.games.qmg_cw.v1 import qmg_cw_pb2 as pb

ALL_CARDS = list(range(len(tables().cards)))


def side_name(bloc: int, colour: int) -> str:
    """A seat's side: the bloc, with its deck colour when shared."""
    return BLOC_NAMES[bloc] if colour < 0 else f"{BLOC_NAMES[bloc]} ({DECKS[colour].title()})"


class ColdWarRules(Rules[CwState]):
    """The rules of Quartermaster General: The Cold War, for 3-6 players."""

    game_id = "qmg_cw"
    title = "Quartermaster General: The Cold War"

    def variants(self) -> Sequence[VariantInfo]:
        """3p, 4p, 5p and 6p per the Player Assignment chart."""
        out = []
        for vid, (description, seats) in tables().variants.items():
            out.append(
                VariantInfo(vid, description, len(seats), tuple(side_name(b, c) for b, c in seats))
            )
        return out

    def setup(self, seed: int, variant: str, options: Mapping[str, str]) -> CwState:
        """A new game waiting for the opening-hand choices."""
        if options:
            raise SetupError(f"qmg_cw: unknown options {sorted(options)}")
        state = new_state(seed, variant)
        flow.run(state, flow.Ctx())
        return state

    def seats(self, state: CwState) -> Sequence[SeatInfo]:
        """The seats; teammates share their bloc as team."""
        return [
            SeatInfo(i, side_name(s.bloc, s.colour), BLOCS[s.bloc])
            for i, s in enumerate(state.seats)
        ]

    def decision(self, state: CwState) -> Decision | None:
        """The pending decision (the top frame; in a set-up position whose top frame has
        nothing to decide, the first decision the game runs on to)."""
        frame = state.top()
        if frame is None or state.over:
            return None
        options = _pending(state, frame)
        if not options:
            state = _settled(state, flow.Ctx())
            frame = state.top()
            if frame is None or state.over:
                return None
            options = flow.options_of(state, frame)
        return Decision(
            kind=frame.kind,
            prompt=flow.PROMPTS.get(frame.kind, frame.kind),
            options={
                s: tuple(Option(i, label) for i, label in opts)
                for s, opts in sorted(options.items())
            },
        )

    def apply(self, state: CwState, seat: int, option_id: str) -> Applied[CwState]:
        """Apply one option to a clone of the state."""
        frame = state.top()
        if frame is None or state.over:
            raise IllegalOptionError("", option_id, seat, "the game is over")
        ctx = flow.Ctx()
        options = _pending(state, frame)
        if options:
            work = state.clone()
        else:
            work = _settled(state, ctx)
            frame = work.top()
            if frame is None or work.over:
                raise IllegalOptionError("", option_id, seat, "the game is over")
            options = flow.options_of(work, frame)
        require_listed(options, seat, option_id, frame.kind)
        before = state.rng
        options = flow.choose(work, seat, option_id, ctx)
        if options:
            work.pending = (work.stack[-1], options, work.signature())
        return Applied(work, tuple(ctx.events), ctx.irreversible or work.rng != before)

    def view(self, state: CwState, seat: int | None) -> Message:
        """A seat's view (see views.py for who sees what)."""
        return views.view(state, seat)

    def result(self, state: CwState) -> Result | None:
        """Scores are the bloc VPs; winners the winning bloc's seats; ranks by bloc VPs."""
        if not state.over:
            return None
        blocs = [s.bloc for s in state.seats]
        others = sorted({state.vp[b] for b in range(3) if b not in state.winners}, reverse=True)
        ranks = {
            i: 0 if b in state.winners else 1 + others.index(state.vp[b])
            for i, b in enumerate(blocs)
        }
        winners = frozenset(i for i, b in enumerate(blocs) if b in state.winners)
        return Result(
            {i: float(state.vp[b]) for i, b in enumerate(blocs)}, winners, ranks, state.reason
        )

    def encode_state(self, state: CwState) -> Message:
        """The State message."""
        return codec.encode(state)

    def decode_state(self, message: Message) -> CwState:
        """The state from a State message."""
        assert isinstance(message, pb.State)
        return codec.decode(message)

    def state_message_type(self) -> type[Message]:
        """qmg_cw_pb2.State."""
        return pb.State

    def determinize(self, view: Message, seat: int, rng_seed: int) -> CwState:
        """A state consistent with a seat's view, hidden cards and RNG sampled afresh."""
        assert isinstance(view, pb.View)
        return views.determinize(view, seat, rng_seed)

    def invariants(self, state: CwState) -> list[str]:
        """Card conservation, piece pools and the stacking limits."""
        problems = []
        held: list[int] = []
        for s in state.seats:
            held += s.hand
            held += s.deck
            held += s.discard_up
            held += s.discard_down
            held += s.prepared
            held += s.espionage
            held += s.opening
        held.sort()
        if held != ALL_CARDS:
            problems.append("cards are not each in exactly one zone")
        cards = tables().cards
        for s in state.seats:
            if any(cards[c].type != "espionage" for c in s.espionage):
                problems.append("a face-down prepared card is not an Espionage card")
            if any(cards[c].type not in ("status", "wmd") for c in s.prepared):
                problems.append("a face-up prepared card is not a Status or WMD card")
            if any(cards[c].bloc != s.bloc for c in (*s.hand, *s.deck, *s.prepared, *s.espionage)):
                problems.append("a player holds another Bloc's card")
        if len(set(state.pieces)) != len(state.pieces):
            problems.append("duplicate piece")
        pool = tables().piece_pool
        is_sea = tables().is_sea
        counts = Counter((piece_nat(p), piece_kind(p)) for p in state.pieces)
        for (nat, kind), n in sorted(counts.items()):
            if n > pool[nat][kind]:
                problems.append(f"too many {NATS[nat]} {KINDS[kind]} pieces")
        for p in state.pieces:
            sea = is_sea[piece_space(p)]
            kind = piece_kind(p)
            if (kind == 0 and sea) or (kind == 1 and not sea):
                problems.append(f"piece {p} on the wrong terrain")
        if not state.over and not state.stack:
            problems.append("no pending step")
        if any(v < 0 for v in state.vp):
            problems.append("negative VPs")
        return problems

    def evaluate(self, state: CwState, seat: int) -> float:
        """A heuristic value in [0, 1] for the seat's Bloc (`heuristic.evaluate`: the pending
        card finished by the rule-based policy, then a logistic of the Bloc's lead)."""
        return heuristic.evaluate(state, seat)


def _settled(state: CwState, ctx: flow.Ctx) -> CwState:
    """A copy of a set-up position run on to its first decision (a position the rules
    returned always has one pending; one put together by hand may stop at a step with
    nothing to decide, e.g. a Supply step with every piece in supply)."""
    work = state.clone()
    flow.run(work, ctx)
    return work


def _pending(state: CwState, frame: Frame) -> flow.Options:
    """The options of the pending frame: those `apply` cached with the state while the state
    is as `apply` returned it (a state edited in place is answered afresh), else computed."""
    cached = state.pending
    if isinstance(cached, tuple) and cached[0] is frame and cached[-1] == state.signature():
        options: flow.Options = cached[1]
        return options
    return flow.options_of(state, frame)
