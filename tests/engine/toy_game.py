"""A small two-seat card game that exercises the whole decision model.

It exists only to test the rules-engine core and the services before a real
game is available. Each round both seats secretly place a card at once; the
higher card wins and spends two bonus points one at a time (or stops); the
loser may protest (a coin flip with the game RNG). Three rounds.

Options `leak=1` and `nondet=1` plant a view leak and a non-determinism, for
testing that the conformance harness catches them.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, cast

from google.protobuf import (
    descriptor_pb2,
    descriptor_pool,
    json_format,
    message_factory,
    struct_pb2,
    symbol_database,
)
from google.protobuf.message import Message

from warroom.engine import rng
from warroom.engine.errors import IllegalOptionError, SetupError
from warroom.engine.model import Applied, Decision, Event, Option, Result, SeatInfo, VariantInfo
from warroom.engine.rules import Rules

CARDS = tuple(range(1, 13))
ROUNDS = 3


@dataclass(frozen=True, slots=True)
class ToyState:
    """The whole state of the toy game."""

    rng: int
    deck: tuple[int, ...]
    hands: tuple[tuple[int, ...], tuple[int, ...]]
    placed: tuple[int, int]
    discard: tuple[int, ...]
    scores: tuple[int, int]
    round: int
    phase: str
    round_winner: int
    bonus_left: int
    leak: bool
    nondet: bool


def _view_class() -> type[Message]:
    """The toy game's typed view message (`warroom.games.toy.v1.View`), as every real game
    has one in proto/; built here, in the default pool and symbol database, so the test game
    needs no codegen."""
    field = descriptor_pb2.FieldDescriptorProto
    file = descriptor_pb2.FileDescriptorProto(
        name="tests/engine/toy_view.proto", package="warroom.games.toy.v1", syntax="proto3"
    )
    view = file.message_type.add(name="View")
    for number, (name, kind, repeated) in enumerate(
        (
            ("deck_count", field.TYPE_INT32, False),
            ("hand_counts", field.TYPE_INT32, True),
            ("placed", field.TYPE_BOOL, True),
            ("discard", field.TYPE_INT32, True),
            ("scores", field.TYPE_INT32, True),
            ("round", field.TYPE_INT32, False),
            ("phase", field.TYPE_STRING, False),
            ("round_winner", field.TYPE_INT32, False),
            ("bonus_left", field.TYPE_INT32, False),
            ("seat", field.TYPE_INT32, False),  # -1: a spectator's view
            ("hand", field.TYPE_INT32, True),
            ("my_placed", field.TYPE_INT32, False),
            ("opponent_hand", field.TYPE_INT32, True),  # only with the planted leak
        ),
        start=1,
    ):
        label = field.LABEL_REPEATED if repeated else field.LABEL_OPTIONAL
        view.field.add(name=name, number=number, type=kind, label=label)
    pool = descriptor_pool.Default()
    try:
        pool.FindFileByName(file.name)
    except KeyError:
        pool.Add(file)
    found = message_factory.GetMessageClass(pool.FindMessageTypeByName("warroom.games.toy.v1.View"))
    symbol_database.Default().RegisterMessage(found)  # as a generated module does
    return found


ToyView = _view_class()


def _set(pair: tuple[int, int], index: int, value: int) -> tuple[int, int]:
    return (value, pair[1]) if index == 0 else (pair[0], value)


class ToyRules(Rules[ToyState]):
    """Rules of the toy game."""

    game_id = "toy"
    title = "Toy duel"

    def variants(self) -> Sequence[VariantInfo]:
        return [VariantInfo("duel", "Two seats, three rounds", 2, ("North", "South"))]

    def setup(self, seed: int, variant: str, options: Mapping[str, str]) -> ToyState:
        self.variant(variant)
        unknown = set(options) - {"leak", "nondet"}
        if unknown:
            raise SetupError(f"toy: unknown options {sorted(unknown)}")
        deck = list(CARDS)
        state = rng.shuffle(rng.seed_state(seed), deck)
        hands = (tuple(sorted(deck[:3])), tuple(sorted(deck[3:6])))
        return ToyState(
            state,
            tuple(deck[6:]),
            hands,
            (0, 0),
            (),
            (0, 0),
            1,
            "play",
            -1,
            0,
            options.get("leak") == "1",
            options.get("nondet") == "1",
        )

    def seats(self, state: ToyState) -> Sequence[SeatInfo]:
        return [SeatInfo(0, "North", "North"), SeatInfo(1, "South", "South")]

    def decision(self, state: ToyState) -> Decision | None:
        if state.phase == "play":
            options = {
                seat: tuple(Option(f"card-{c}", f"Place {c}", {"card": str(c)}) for c in hand)
                for seat, hand in enumerate(state.hands)
                if state.placed[seat] == 0
            }
            return Decision("place", "Place a card face down", options)
        if state.phase == "bonus":
            return Decision(
                "bonus",
                f"Spend a bonus point ({state.bonus_left} left)",
                {state.round_winner: (Option("score", "Score a point"), Option("stop", "Stop"))},
            )
        if state.phase == "react":
            loser = 1 - state.round_winner
            return Decision(
                "protest",
                "Protest the round?",
                {loser: (Option("pass", "Accept"), Option("protest", "Protest (coin flip)"))},
            )
        return None

    def apply(self, state: ToyState, seat: int, option_id: str) -> Applied[ToyState]:
        decision = self.decision(state)
        if decision is None or decision.find(seat, option_id) is None:
            raise IllegalOptionError(
                decision.kind if decision else "none", option_id, seat, "not offered"
            )
        if state.phase == "play":
            return self._place(state, seat, int(option_id.removeprefix("card-")))
        if state.phase == "bonus":
            if option_id == "score":
                state = replace(state, scores=_set(state.scores, seat, state.scores[seat] + 1))
                state = replace(state, bonus_left=state.bonus_left - 1)
            if option_id == "stop" or state.bonus_left == 0:
                state = replace(state, phase="react")
            return Applied(state, (Event(f"seat {seat}: {option_id}"),))
        if option_id == "pass":
            return Applied(self._next_round(state), (Event(f"seat {seat} accepts"),))
        state_rng, flip = rng.randbelow(state.rng, 2)
        if state.nondet:
            flip = random.randrange(2)
        state = replace(state, rng=state_rng)
        winner = state.round_winner
        if flip:
            state = replace(
                state, scores=_set(state.scores, winner, max(0, state.scores[winner] - 1))
            )
        event = Event(f"seat {seat} protests: {'upheld' if flip else 'rejected'}", kind="reveal")
        return Applied(self._next_round(state), (event,), irreversible=True)

    def _place(self, state: ToyState, seat: int, card: int) -> Applied[ToyState]:
        hand = tuple(c for c in state.hands[seat] if c != card)
        hands = (hand, state.hands[1]) if seat == 0 else (state.hands[0], hand)
        state = replace(state, hands=hands, placed=_set(state.placed, seat, card))
        secret = Event(f"you placed {card}", visible_to=frozenset({seat}))
        if 0 in state.placed:
            return Applied(state, (Event(f"seat {seat} placed a card"), secret))
        a, b = state.placed
        winner = 0 if a > b else 1 if b > a else -1
        state = replace(state, discard=(*state.discard, a, b), placed=(0, 0), round_winner=winner)
        state = (
            replace(state, phase="bonus", bonus_left=2) if winner >= 0 else self._next_round(state)
        )
        reveal = Event(f"revealed {a} and {b}", kind="reveal", fields={"0": str(a), "1": str(b)})
        return Applied(state, (secret, reveal), irreversible=True)

    def _next_round(self, state: ToyState) -> ToyState:
        if state.round >= ROUNDS:
            return replace(state, phase="over", round_winner=-1)
        deck = state.deck
        hands = (state.hands[0] + deck[:1], state.hands[1] + deck[1:2])
        hands = (tuple(sorted(hands[0])), tuple(sorted(hands[1])))
        return replace(
            state, deck=deck[2:], hands=hands, round=state.round + 1, phase="play", round_winner=-1
        )

    def view(self, state: ToyState, seat: int | None) -> Message:
        view: Any = ToyView(
            deck_count=len(state.deck),
            hand_counts=[len(h) for h in state.hands],
            placed=[p != 0 for p in state.placed],
            discard=state.discard,
            scores=state.scores,
            round=state.round,
            phase=state.phase,
            round_winner=state.round_winner,
            bonus_left=state.bonus_left,
            seat=-1 if seat is None else seat,
        )
        if seat is not None:
            view.hand.extend(state.hands[seat])
            view.my_placed = state.placed[seat]
            if state.leak:
                view.opponent_hand.extend(state.hands[1 - seat])
        return cast(Message, view)

    def result(self, state: ToyState) -> Result | None:
        if state.phase != "over":
            return None
        a, b = state.scores
        ranks = {0: 0 if a >= b else 1, 1: 0 if b >= a else 1}
        winners = frozenset(s for s, r in ranks.items() if r == 0)
        return Result({0: float(a), 1: float(b)}, winners, ranks, "three rounds played")

    def encode_state(self, state: ToyState) -> Message:
        message = struct_pb2.Struct()
        message.update(
            {
                "rng": str(state.rng),
                "deck": list(state.deck),
                "hands": [list(h) for h in state.hands],
                "placed": list(state.placed),
                "discard": list(state.discard),
                "scores": list(state.scores),
                "round": state.round,
                "phase": state.phase,
                "round_winner": state.round_winner,
                "bonus_left": state.bonus_left,
                "leak": state.leak,
                "nondet": state.nondet,
            }
        )
        return message

    def decode_state(self, message: Message) -> ToyState:
        data = json_format.MessageToDict(message)

        def ints(values: list[float]) -> tuple[int, ...]:
            return tuple(int(v) for v in values)

        placed = ints(data["placed"])
        scores = ints(data["scores"])
        return ToyState(
            int(data["rng"]),
            ints(data["deck"]),
            (ints(data["hands"][0]), ints(data["hands"][1])),
            (placed[0], placed[1]),
            ints(data["discard"]),
            (scores[0], scores[1]),
            int(data["round"]),
            data["phase"],
            int(data["round_winner"]),
            int(data["bonus_left"]),
            bool(data["leak"]),
            bool(data["nondet"]),
        )

    def state_message_type(self) -> type[Message]:
        return struct_pb2.Struct

    def determinize(self, view: Message, seat: int, rng_seed: int) -> ToyState:
        data: Any = view
        hand = tuple(data.hand)
        discard = tuple(data.discard)
        my_placed = data.my_placed
        unseen = [c for c in CARDS if c not in hand and c not in discard and c != my_placed]
        state_rng = rng.shuffle(rng.seed_state(rng_seed), unseen)
        other = 1 - seat
        other_hand = tuple(sorted(unseen[: data.hand_counts[other]]))
        rest = unseen[data.hand_counts[other] :]
        placed = [0, 0]
        placed[seat] = my_placed
        if data.placed[other]:
            placed[other] = rest.pop()
        hands = (hand, other_hand) if seat == 0 else (other_hand, hand)
        return ToyState(
            state_rng,
            tuple(rest),
            hands,
            (placed[0], placed[1]),
            discard,
            (data.scores[0], data.scores[1]),
            data.round,
            data.phase,
            data.round_winner,
            data.bonus_left,
            len(data.opponent_hand) > 0,
            False,
        )

    def invariants(self, state: ToyState) -> list[str]:
        cards = list(state.deck) + [c for h in state.hands for c in h] + list(state.discard)
        cards += [p for p in state.placed if p]
        if sorted(cards) != list(CARDS):
            return [f"cards not conserved: {sorted(cards)}"]
        return []
