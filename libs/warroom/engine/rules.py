"""The game interface every game in the registry implements.

A `Rules` object is stateless: it holds the game's content and functions over
immutable states. `apply` returns a new state and never mutates its input.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Generic, TypeVar

from google.protobuf.message import Message

from warroom.engine.model import Applied, Decision, Result, SeatInfo, VariantInfo

S = TypeVar("S")

_VIEW_TYPES: dict[type, type[Message]] = {}


class Rules(ABC, Generic[S]):
    """One game's rules.

    Subclasses set `game_id` (the registry key, e.g. "ncw") and `title`, and
    implement the abstract methods. `view` returns the game's typed protobuf view
    message; `encode_state`/`decode_state` go through the game's state schema.

    `team_victory` says what a seat's `team` means: True (the default) when a team
    wins or loses together; False when a team only groups allies who still compete
    for an individual win (New Cold War's blocs), so every seat plays for itself.
    """

    game_id: str
    title: str
    team_victory: bool = True

    @abstractmethod
    def variants(self) -> Sequence[VariantInfo]:
        """Every playable variant, the first being the default."""

    @abstractmethod
    def setup(self, seed: int, variant: str, options: Mapping[str, str]) -> S:
        """A new game from a seed; raises SetupError for an unknown variant or option."""

    @abstractmethod
    def seats(self, state: S) -> Sequence[SeatInfo]:
        """The seats of this game, in index order."""

    @abstractmethod
    def decision(self, state: S) -> Decision | None:
        """Who must choose now and their legal options; None once the game is over."""

    @abstractmethod
    def apply(self, state: S, seat: int, option_id: str) -> Applied[S]:
        """Apply one seat's option; raises IllegalOptionError and leaves `state` unchanged."""

    @abstractmethod
    def view(self, state: S, seat: int | None) -> Message:
        """What one seat (or a spectator, None) may see: never another seat's secrets."""

    @abstractmethod
    def result(self, state: S) -> Result | None:
        """The result once the game is over, else None."""

    @abstractmethod
    def encode_state(self, state: S) -> Message:
        """The full state as the game's protobuf state message."""

    @abstractmethod
    def decode_state(self, message: Message) -> S:
        """The state back from its protobuf message."""

    @abstractmethod
    def state_message_type(self) -> type[Message]:
        """The protobuf class of the state schema (for decoding bytes)."""

    @abstractmethod
    def determinize(self, view: Message, seat: int, rng_seed: int) -> S:
        """A full state consistent with `view`, with every hidden fact sampled.

        This is how a search bot imagines the hidden information: it gets only
        the seat's view, never the true state. Hidden facts (other hands, deck
        order, secret objectives, the RNG) must be drawn afresh from `rng_seed`,
        never copied, so that a view leaking a secret is caught by the harness.
        """

    def view_message_type(self) -> type[Message]:
        """The message class `view` returns (a view given by a client is checked against it).

        Read once per rules class off the public view of its first variant's setup; a game
        may override it to name the class."""
        found = _VIEW_TYPES.get(type(self))
        if found is None:
            state = self.setup(0, self.variants()[0].id, {})
            found = _VIEW_TYPES[type(self)] = type(self.view(state, None))
        return found

    def invariants(self, state: S) -> list[str]:
        """Violated invariants of a state, as messages (empty when sound)."""
        return []

    def variant(self, variant_id: str) -> VariantInfo:
        """One variant by id; raises SetupError naming the known variants."""
        from warroom.engine.errors import SetupError

        for info in self.variants():
            if info.id == variant_id:
                return info
        known = ", ".join(v.id for v in self.variants())
        raise SetupError(f"{self.game_id}: unknown variant {variant_id!r} (known: {known})")

    def encode_bytes(self, state: S) -> bytes:
        """The state serialized deterministically."""
        return self.encode_state(state).SerializeToString(deterministic=True)

    def decode_bytes(self, data: bytes) -> S:
        """The state from bytes produced by `encode_bytes`."""
        message = self.state_message_type()()
        message.ParseFromString(data)
        return self.decode_state(message)
