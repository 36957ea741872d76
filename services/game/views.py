"""Rendering what a viewer sees of a live game: seats, the seat-filtered view, recent events.

Pure functions over a `LiveGame` and a `Frame` (no I/O). A spectator (viewer None) sees
the public view, `spectator_delay_versions` behind the head until the game ends.

What a frame shows one viewer and nothing later changes (the packed, seat-filtered view and
the decision) is rendered once per (frame, viewer) and kept on the live game
(`LiveGame.rendered`): a move's answer, the mover's own stream and a GetView of the same
version share it. The entry is keyed by the viewer and checked against the frame itself, so
a new version (or a frame rebuilt from SQL) is rendered afresh, and one seat's entry is
never served to another.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from google.protobuf import any_pb2, json_format

from services.game.live import BOT, HUMAN, Frame, LiveGame, Rendered
from services.game.models import GameSeatRow
from services.game.owed import clock_of
from warroom import catalog
from warroom.api import convert
from warroom.engine.match import MatchState
from warroom.engine.model import Result
from warroom.v1 import common_pb2, game_pb2

DEFAULT_BOT = {"kind": "heuristic"}
RENDERED_MAX = 64  # entries kept per live game (a few versions x every viewer)


def seat_messages(live: LiveGame, state: MatchState[Any]) -> list[common_pb2.Seat]:
    """The seats with who plays them (shared by every view of one version and seat state)."""
    key = (live.version, live.epoch, id(live.seats), id(state))
    cached = live.seat_cache
    if cached is not None and cached[0] == key:
        return cached[1]  # (the cache holds `state`, so its id is not reused meanwhile)
    out = convert.seat_messages(live.rules.seats(state.game))
    for message, row in zip(out, live.seats, strict=False):
        message.player_id = row.player_id
        message.display_name = row.display_name
        message.is_bot = row.controller == BOT
        if row.controller == BOT:
            spec = row.bot or (row.clock or {}).get("fallback_bot") or DEFAULT_BOT
            json_format.ParseDict(spec, message.bot, ignore_unknown_fields=True)
    live.seat_cache = (key, out, state)
    return out


def add_clocks(messages: Sequence[common_pb2.Seat], rows: Sequence[GameSeatRow]) -> None:
    """Every human seat's clock, from the seat rows held in memory (no I/O): public, so
    every viewer of the current version sees them all."""
    for message, row in zip(messages, rows, strict=False):
        clock = clock_of(row)
        if clock is None or row.controller != HUMAN:
            continue
        message.has_clock = True
        if row.clock_deadline is not None:
            message.clock_running = True
            message.clock_deadline.FromDatetime(row.clock_deadline)
        elif clock.get("mode") == common_pb2.ClockSpec.MODE_LIVE and row.clock_remaining_ms:
            message.clock_remaining_ms = int(row.clock_remaining_ms)
        else:
            message.clock_remaining_ms = int(clock.get("initial_seconds", 0)) * 1000


def recent_events(
    live: LiveGame, viewer: int | None, upto: int, limit: int
) -> list[common_pb2.GameEvent]:
    """The viewer's visible events of the remembered versions up to `upto` (at most `limit`)."""
    chunks: list[list[common_pb2.GameEvent]] = []
    count = 0
    for frame in reversed(live.history):
        if frame.version > upto or not frame.events:
            continue
        visible = live.events_for(frame, viewer)
        if visible:
            chunks.append(visible)
            count += len(visible)
            if count >= limit:
                break
    out = [event for chunk in reversed(chunks) for event in chunk]
    return out[-limit:]


def render(live: LiveGame, viewer: int | None, frame: Frame, keep: bool = True) -> Rendered:
    """The packed view and the decision `viewer` sees at `frame` (kept when `keep`)."""
    key = (frame.version, viewer)
    found = live.rendered.get(key)
    if found is not None and found.frame is frame:
        return found
    state = frame.state
    packed = any_pb2.Any()
    # deterministic bytes: a replay's view hashes are the SHA-256 of exactly these bytes
    packed.Pack(live.rules.view(state.game, viewer), deterministic=True)
    decision = None
    if frame.result is None and state.pending is not None:
        decision = convert.decision_message(state.pending, frame.version, viewer)
    out = Rendered(frame, packed, decision)
    if keep:
        if len(live.rendered) >= RENDERED_MAX:
            live.rendered.clear()
        live.rendered[key] = out
    return out


def seat_view(
    live: LiveGame,
    viewer: int | None,
    frame: Frame,
    recent: int,
    events: Sequence[common_pb2.GameEvent] | None = None,
    into: game_pb2.SeatView | None = None,
    keep: bool = True,
) -> game_pb2.SeatView:
    """What `viewer` (None = spectator) sees of the game at `frame`, written into `into` (an
    empty message, e.g. a response's field: no copy) or a new message.

    Without `events`, the view carries the viewer's last `recent` visible events. `keep`
    False renders without touching the live game's cache (worker threads).
    """
    state = frame.state
    view = game_pb2.SeatView() if into is None else into
    view.game_id = live.id
    view.game = live.kind  # type: ignore[assignment]
    view.variant = live.row.variant
    view.version = frame.version
    view.seat = -1 if viewer is None else viewer
    view.seats.extend(seat_messages(live, state))
    view.rules_id = live.row.rules_id
    view.content_version = catalog.content_version(live.row.rules_id)
    parts = render(live, viewer, frame, keep)
    view.view.CopyFrom(parts.view)
    if parts.decision is not None:
        view.decision.CopyFrom(parts.decision)
    if frame.result is None and state.pending is not None and frame is live.frame:
        add_clocks(view.seats, live.seats)
        if viewer is not None and viewer in state.pending.options:
            row = live.seats[viewer]
            if row.clock_deadline is not None and row.controller == HUMAN:
                view.clock_deadline.FromDatetime(row.clock_deadline)
    if events is None:
        events = recent_events(live, viewer, frame.version, recent)
    view.events.extend(events)
    if frame.result is not None:
        result = result_message(live, frame.result)
        if result is not None:
            view.result.CopyFrom(result)
    return view


def replay_views(
    live: LiveGame, viewer: int | None, frames: Sequence[Frame]
) -> list[game_pb2.SeatView]:
    """A finished game's views of `viewer` at `frames`, each with that version's own events.

    Pure (no shared cache is written but the seat cache), so it may run in a worker thread.
    """
    return [
        seat_view(
            live,
            viewer,
            frame,
            0,
            convert.event_messages(frame.events, frame.version, viewer),
            keep=False,
        )
        for frame in frames
    ]


def result_message(live: LiveGame, result: Result) -> common_pb2.GameResult | None:
    """A finished game's result, with the time it finished."""
    message = convert.result_message(result)
    if message is not None and live.row.finished_at is not None:
        message.finished_at.FromDatetime(live.row.finished_at)
    return message


def view_hash(live: LiveGame, frame: Frame) -> bytes:
    """SHA-256 of the public view's bytes at a frame (`SeatView.view.value` of a spectator)."""
    public = live.rules.view(frame.state.game, None)
    return hashlib.sha256(public.SerializeToString(deterministic=True)).digest()


def spectator_head(live: LiveGame) -> int:
    """The version a spectator sees now."""
    if live.result is not None:
        return live.version
    return max(0, live.version - live.row.spectator_delay_versions)
