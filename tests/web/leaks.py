"""Secrets of a game's seats, and what a page received: for the spectator checks.

A seat's secrets are what only its own view holds: New Cold War hand, secret objectives and
objective offer; QMG: The Cold War hand, espionage, opening cards, face-down discards and
deck contents; South Front hand and own discards. Everything a page receives from the
GameService is recorded through the Chrome DevTools protocol (also the server streams, as
their bytes arrive) and decoded with the Python protobuf classes.
"""

from __future__ import annotations

import base64
import gzip
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from google.protobuf import symbol_database
from google.protobuf.message import Message
from playwright.sync_api import Page

import warroom.games.ncw.v1.ncw_pb2
import warroom.games.qmg_cw.v1.qmg_cw_pb2
import warroom.games.qmg_sf.v1.qmg_sf_pb2  # noqa: F401  (registers the view types)
from warroom.v1 import game_pb2

# Typed view -> (card fields, objective fields) only the viewer's own view may fill.
SECRET_FIELDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "warroom.games.ncw.v1.View": (("hand",), ("objectives", "objective_offer", "objectives_out")),
    "warroom.games.qmg_sf.v1.View": (("hand", "own_discards"), ()),
}
QMG_CW_SEAT_FIELDS = ("hand", "espionage", "opening", "discard_down", "deck")


@dataclass
class Secrets:
    """Card and objective ids only some seat may see."""

    cards: set[int] = field(default_factory=set)
    objectives: set[int] = field(default_factory=set)

    def add(self, other: Secrets) -> None:
        self.cards |= other.cards
        self.objectives |= other.objectives


def typed(view: game_pb2.SeatView) -> Message:
    """The game's own View message inside a SeatView."""
    cls = symbol_database.Default().GetSymbol(view.view.TypeName())
    message: Message = cls()
    view.view.Unpack(message)
    return message


def secrets_of(view: game_pb2.SeatView) -> Secrets:
    """The secret ids a SeatView carries (empty for a correct spectator view)."""
    message = typed(view)
    name = message.DESCRIPTOR.full_name
    found = Secrets()
    if name == "warroom.games.qmg_cw.v1.View":
        for seat in message.seats:  # type: ignore[attr-defined]
            for field_name in QMG_CW_SEAT_FIELDS:
                found.cards |= set(getattr(seat, field_name))
        return found
    cards, objectives = SECRET_FIELDS[name]
    for field_name in cards:
        found.cards |= set(getattr(message, field_name))
    for field_name in objectives:
        found.objectives |= set(getattr(message, field_name))
    return found


def dom_ids(page: Page) -> tuple[set[int], set[int], int]:
    """Card ids and objective ids named anywhere in the page, and its hand/objective items."""
    cards, objectives, mine = page.evaluate(
        """() => [
          [...document.querySelectorAll('[data-card-id]')].map(e => Number(e.dataset.cardId)),
          [...document.querySelectorAll('[data-objective-id]')].map(e => Number(e.dataset.objectiveId)),
          document.querySelectorAll(
            '[data-testid="hand-card"], [data-testid="objective"], [data-testid="my-objectives"]'
          ).length,
        ]"""
    )
    return set(cards), set(objectives), int(mine)


class Recorder:
    """Every GameService response body a page receives, streams included (CDP Network)."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.cdp = page.context.new_cdp_session(page)
        self.bodies: dict[str, bytearray] = {}
        self.urls: dict[str, str] = {}
        self._new: list[str] = []
        self.cdp.on("Network.responseReceived", self._on_response)
        self.cdp.on("Network.dataReceived", self._on_data)
        self.cdp.send("Network.enable", {"maxTotalBufferSize": 64 << 20})

    def _on_response(self, event: dict[str, Any]) -> None:
        url = event["response"]["url"]
        if "/warroom.v1.GameService/" in url:
            self.urls[event["requestId"]] = url
            self.bodies.setdefault(event["requestId"], bytearray())
            self._new.append(event["requestId"])

    def _on_data(self, event: dict[str, Any]) -> None:
        data = event.get("data")
        if data and event["requestId"] in self.bodies:
            self.bodies[event["requestId"]].extend(base64.b64decode(data))

    def pump(self) -> None:
        """Ask for the bodies of the responses seen since the last call."""
        new, self._new = self._new, []
        for request_id in new:
            try:
                got = self.cdp.send("Network.streamResourceContent", {"requestId": request_id})
                chunk = base64.b64decode(got.get("bufferedData", ""))
            except Exception:
                try:
                    got = self.cdp.send("Network.getResponseBody", {"requestId": request_id})
                except Exception:
                    continue
                raw = got.get("body", "")
                chunk = base64.b64decode(raw) if got.get("base64Encoded") else raw.encode()
            self.bodies[request_id][:0] = chunk

    def views(self) -> Iterator[tuple[str, game_pb2.SeatView]]:
        """(method, SeatView) of every view the page received."""
        self.pump()
        for request_id, body in self.bodies.items():
            method = self.urls[request_id].rsplit("/", 1)[-1]
            if method == "WatchGame":
                for message in _envelopes(bytes(body)):
                    yield method, game_pb2.WatchGameResponse.FromString(message).view
            elif method == "GetView" and body:
                yield method, game_pb2.GetViewResponse.FromString(bytes(body)).view
            elif method == "SubmitAction" and body:
                yield method, game_pb2.SubmitActionResponse.FromString(bytes(body)).view


def _envelopes(body: bytes) -> Iterator[bytes]:
    """The messages of a Connect streaming body (5-byte envelopes; flag 2 = end of stream)."""
    offset = 0
    while offset + 5 <= len(body):
        flags = body[offset]
        size = int.from_bytes(body[offset + 1 : offset + 5], "big")
        payload = body[offset + 5 : offset + 5 + size]
        if len(payload) < size:
            return
        offset += 5 + size
        if flags & 0x02:
            continue
        yield gzip.decompress(payload) if flags & 0x01 else payload
