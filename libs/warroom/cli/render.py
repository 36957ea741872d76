"""Rendering seat views, decisions, events and results for the terminal (rich).

A seat's typed game view (`SeatView.view`, a `google.protobuf.Any`) is unpacked with
whatever game schemas are importable (`warroom.games.<game>.v1`), turned into plain
data, and laid out: New Cold War gets regions (control, stability, tokens), tracks,
hand, VPs and objectives; any other game a generic layout of its fields. With the game's
catalogue (CatalogService, fetched by `warroom.sdk.CatalogClient`) the hand shows each
card's name, owner, values and full text instead of bare ids.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from google.protobuf import any_pb2, descriptor_pool, json_format, message_factory
from google.protobuf.message import Message
from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from warroom.cli.cards import Catalog, hand_ids, hand_table
from warroom.sdk.client import game_name_of
from warroom.v1 import common_pb2, game_pb2


@cache
def _load_game_schemas() -> None:
    """Import every generated game schema module so Any views can be unpacked."""
    try:
        games = importlib.import_module("warroom.games")
    except ImportError:
        return
    for game in pkgutil.iter_modules(games.__path__):
        try:
            package = importlib.import_module(f"warroom.games.{game.name}.v1")
        except ImportError:
            continue
        for module in pkgutil.iter_modules(package.__path__):
            if module.name.endswith("_pb2"):
                try:
                    importlib.import_module(f"warroom.games.{game.name}.v1.{module.name}")
                except ImportError:
                    continue


def unpack_view(view: any_pb2.Any) -> dict[str, Any]:
    """A typed game view as plain data (empty when unset or of an unknown type)."""
    if not view.type_url:
        return {}
    _load_game_schemas()
    name = view.type_url.rsplit("/", 1)[-1]
    try:
        descriptor = descriptor_pool.Default().FindMessageTypeByName(name)
    except KeyError:
        return {"_unknown_type": name}
    message: Message = message_factory.GetMessageClass(descriptor)()
    if not view.Unpack(message):
        return {"_unknown_type": name}
    data: dict[str, Any] = json_format.MessageToDict(
        message, preserving_proto_field_name=True, always_print_fields_with_no_presence=True
    )
    return data


def seat_label(seats: Sequence[common_pb2.Seat], index: int) -> str:
    """ "2 China (alice)" for a seat index."""
    for seat in seats:
        if seat.index == index:
            who = seat.display_name or ("bot" if seat.is_bot else "")
            return f"{seat.side or f'seat {index}'}" + (f" ({who})" if who else "")
    return f"seat {index}"


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return ", ".join(_scalar(v) for v in value) if value else "-"
    if isinstance(value, dict):
        return ", ".join(f"{k}={_scalar(v)}" for k, v in value.items()) if value else "-"
    return str(value)


def _records_table(title: str, rows: Sequence[Mapping[str, Any]]) -> Table:
    columns: list[str] = []
    for row in rows:
        for key in row:
            if key not in columns:
                columns.append(key)
    table = Table(title=title, title_justify="left", show_lines=False, expand=False)
    for column in columns:
        table.add_column(column.replace("_", " "))
    for row in rows:
        table.add_row(*(_scalar(row.get(column, "")) for column in columns))
    return table


def _section(title: str, value: Any) -> RenderableType:
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        return _records_table(title, value)
    if isinstance(value, dict):
        if value and all(isinstance(v, dict) for v in value.values()):
            rows = [{"name": k, **v} for k, v in value.items()]
            return _records_table(title, rows)
        table = Table(title=title, title_justify="left", show_header=False)
        table.add_column("key", style="bold")
        table.add_column("value")
        for key, item in value.items():
            table.add_row(key.replace("_", " "), _scalar(item))
        return table
    return Text.assemble((f"{title}: ", "bold"), _scalar(value))


# Keys of New Cold War's view, in the order a player wants to read them.
NCW_ORDER = (
    "round",
    "turn",
    "phase",
    "tracks",
    "vps",
    "victory_points",
    "scores",
    "regions",
    "countries",
    "hand",
    "objectives",
    "secret_objectives",
)


def render_game_view(
    data: Mapping[str, Any], catalog: Catalog | None = None
) -> list[RenderableType]:
    """The game-specific part of a view, laid out section by section (names from `catalog`)."""
    if not data:
        return []
    if "_unknown_type" in data:
        return [Text(f"(view of type {data['_unknown_type']}: schema not installed)")]
    if "countries" in data and "powers" in data and "viewer" in data:
        from warroom.cli import ncw

        return ncw.render(data, catalog)
    keys = [k for k in NCW_ORDER if k in data] + [k for k in data if k not in NCW_ORDER]
    scalars = {k: data[k] for k in keys if not isinstance(data[k], list | dict)}
    parts: list[RenderableType] = []
    if scalars:
        parts.append(
            Text("  ".join(f"{k.replace('_', ' ')}: {_scalar(v)}" for k, v in scalars.items()))
        )
    for key in keys:
        if key in scalars:
            continue
        value = data[key]
        if key in ("regions", "countries") and isinstance(value, list):
            parts.append(_regions(key, value))
        else:
            parts.append(_section(key.replace("_", " ").title(), value))
    hand = hand_ids(data)
    if hand is not None and catalog is not None:
        parts.append(hand_table(catalog, hand))
    return parts


def _regions(title: str, regions: Sequence[Any]) -> RenderableType:
    """Regions with their countries (control, stability, tokens) as one table."""
    rows: list[dict[str, Any]] = []
    for region in regions:
        if not isinstance(region, dict):
            continue
        countries = region.get("countries")
        if isinstance(countries, list) and countries:
            name = region.get("name") or region.get("id") or ""
            extra = {k: v for k, v in region.items() if k not in ("countries", "name", "id")}
            for country in countries:
                if isinstance(country, dict):
                    rows.append({"region": name, **country})
            if extra:
                rows.append({"region": f"{name} (region)", **extra})
        else:
            rows.append(region)
    return _records_table(title.title(), rows)


def decision_panel(view: game_pb2.SeatView) -> RenderableType | None:
    """The pending decision with numbered options (None when this seat need not act)."""
    decision = view.decision
    if not decision.decision_id:
        return None
    if not decision.options:
        waiting = ", ".join(seat_label(view.seats, s) for s in decision.seats)
        return Text(f"Waiting for {waiting}: {decision.prompt}", style="dim")
    lines = Text()
    for number, option in enumerate(decision.options, start=1):
        lines.append(f"{number:>3}. ", style="bold cyan")
        lines.append(option.label or option.id)
        lines.append("\n")
    return Panel(lines, title=f"Your decision: {decision.prompt}", title_align="left")


def result_text(view: game_pb2.SeatView) -> Text:
    """The final standings."""
    result = view.result
    text = Text(f"Game over ({result.reason or 'finished'})\n", style="bold")
    for seat in sorted(result.seats, key=lambda s: (s.rank, s.seat)):
        marker = "WIN " if seat.winner else "    "
        you = "  <- you" if seat.seat == view.seat else ""
        text.append(
            f"  {marker}#{seat.rank + 1} {seat_label(view.seats, seat.seat)}: {seat.score:g}{you}\n",
            style="green" if seat.winner else "",
        )
    return text


def event_text(event: common_pb2.GameEvent, seats: Sequence[common_pb2.Seat]) -> Text:
    """One log line."""
    style = "" if event.public else "italic magenta"
    prefix = f"[v{event.version}] " if event.version else ""
    secret = "" if event.public else " (only you see this)"
    return Text(f"{prefix}{event.text}{secret}", style=style)


def header(view: game_pb2.SeatView) -> Text:
    """Game, seat and version line."""
    game = view.rules_id or game_name_of(view.game)
    me = "spectator" if view.seat < 0 else seat_label(view.seats, view.seat)
    return Text(
        f"{game} {view.variant} · game {view.game_id} · you: {me} · version {view.version}",
        style="bold",
    )


def render_view(
    view: game_pb2.SeatView,
    console: Console,
    *,
    with_decision: bool = True,
    catalog: Catalog | None = None,
) -> None:
    """Print a seat's whole view: header, seats, the game's state, decision or result.

    `catalog` (the game's, see `warroom.sdk.CatalogClient.for_view`) names the cards of the hand.
    """
    console.print(header(view))
    seats = Table(show_header=True, title="Seats", title_justify="left")
    for column in ("#", "side", "team", "player"):
        seats.add_column(column)
    for seat in view.seats:
        who = seat.display_name or seat.player_id or ""
        if seat.is_bot:
            who = f"{who} [bot {seat.bot.kind} {seat.bot.difficulty}]".strip()
        seats.add_row(str(seat.index), seat.side, seat.team, who)
    parts: list[RenderableType] = [seats, *render_game_view(unpack_view(view.view), catalog)]
    console.print(Group(*parts))
    if view.HasField("result"):
        console.print(result_text(view))
    elif with_decision:
        panel = decision_panel(view)
        if panel is not None:
            console.print(panel)
