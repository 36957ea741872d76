"""Conversions from engine objects to API messages, filtered per viewer."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from warroom.engine.match import Match, MatchState
from warroom.engine.model import Decision, Event, Option, OptionKind, Result, SeatInfo
from warroom.engine.rules import Rules
from warroom.v1 import common_pb2, persistence_pb2


def fields_message(fields: Mapping[str, str]) -> list[common_pb2.OptionField]:
    """Structured fields as OptionField messages, in key order."""
    return [common_pb2.OptionField(key=k, value=v) for k, v in sorted(fields.items())]


OPTION_KINDS: dict[OptionKind, common_pb2.OptionKind.ValueType] = {
    OptionKind.CHOICE: common_pb2.OPTION_KIND_CHOICE,
    OptionKind.UNDO: common_pb2.OPTION_KIND_UNDO,
}
ENGINE_OPTION_KINDS = {value: kind for kind, value in OPTION_KINDS.items()}


def option_message(option: Option) -> common_pb2.Option:
    """An engine option as an Option message, with its kind (choice or undo)."""
    return common_pb2.Option(
        id=option.id,
        label=option.label,
        fields=fields_message(option.fields),
        kind=OPTION_KINDS[option.kind],
    )


def engine_option(message: common_pb2.Option) -> Option:
    """An engine option back from its message (an unset kind reads as an ordinary choice)."""
    kind = ENGINE_OPTION_KINDS.get(message.kind, OptionKind.CHOICE)
    return Option(message.id, message.label, {f.key: f.value for f in message.fields}, kind)


def decision_message(
    decision: Decision | None, version: int, viewer: int | None
) -> common_pb2.Decision | None:
    """The pending decision as a viewer may see it: options only for that viewer's seat."""
    if decision is None:
        return None
    options = decision.options_for(viewer) if viewer is not None else ()
    return common_pb2.Decision(
        decision_id=decision.id,
        game_version=version,
        seats=list(decision.seats),
        kind=decision.kind,
        prompt=decision.prompt,
        options=[option_message(o) for o in options],
    )


def event_messages(
    events: Iterable[Event], version: int, viewer: int | None
) -> list[common_pb2.GameEvent]:
    """The events a viewer may see, as messages."""
    return [
        common_pb2.GameEvent(
            version=version,
            kind=e.kind,
            text=e.text,
            fields=fields_message(e.fields),
            public=e.visible_to is None,
            visible_to=sorted(e.visible_to or ()),
        )
        for e in events
        if e.visible_for(viewer)
    ]


def result_message(result: Result | None) -> common_pb2.GameResult | None:
    """A result as a message (None while the game runs)."""
    if result is None:
        return None
    return common_pb2.GameResult(
        reason=result.reason,
        seats=[
            common_pb2.SeatResult(
                seat=seat,
                score=result.scores.get(seat, 0.0),
                rank=result.ranks.get(seat, 0),
                winner=seat in result.winners,
            )
            for seat in sorted(result.ranks)
        ],
    )


def seat_messages(seats: Iterable[SeatInfo]) -> list[common_pb2.Seat]:
    """The rules' seat descriptions as Seat messages (player fields left for the caller)."""
    return [common_pb2.Seat(index=s.index, side=s.side, team=s.team) for s in seats]


def snapshot(rules: Rules[Any], state: MatchState[Any]) -> bytes:
    """A match state as MatchSnapshot bytes (undo history is not kept)."""
    message = persistence_pb2.MatchSnapshot(
        game_state=rules.encode_bytes(state.game),
        version=state.version,
        decision_serial=state.decision_serial,
    )
    return message.SerializeToString(deterministic=True)


def restore(rules: Rules[Any], data: bytes) -> MatchState[Any]:
    """A match state from MatchSnapshot bytes."""
    message = persistence_pb2.MatchSnapshot()
    message.ParseFromString(data)
    game = rules.decode_bytes(message.game_state)
    return Match(rules).resume(game, message.version, message.decision_serial)
