"""Cards, countries and objectives by name and text, from the game catalogue (CatalogService).

A view carries bare ids; the catalogue (`warroom.v1.Catalog`, fetched and cached by
`warroom.sdk.CatalogClient`) turns them into what a player reads. Without a catalogue,
ids are shown as they are.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.table import Table
from rich.text import Text

from warroom.v1 import catalog_pb2

Catalog = catalog_pb2.Catalog


def card_index(catalog: Catalog | None) -> dict[int, catalog_pb2.Card]:
    """Cards by id."""
    return {c.id: c for c in catalog.cards} if catalog is not None else {}


def card_line(catalog: Catalog | None, number: int) -> str:
    """ "#12 Name (China, 2 OPs)" — or "#12" without a catalogue entry."""
    card = card_index(catalog).get(number)
    if card is None:
        return f"#{number}"
    facts = [card.owner or "neutral"]
    if card.has_ops:
        facts.append(
            f"{card.ops_low}-{card.ops} OPs" if card.ops_low != card.ops else f"{card.ops} OPs"
        )
    if card.cost:
        facts.append(f"cost {card.cost}")
    return f"#{number} {card.name} ({', '.join(facts)})"


def objective_line(catalog: Catalog | None, number: int) -> str:
    """ "#3 (15 VP) South America + South East Asia" — or "#3"."""
    for objective in catalog.objectives if catalog is not None else ():
        if objective.id == number:
            return f"#{number} ({objective.vp} VP) {objective.text}"
    return f"#{number}"


def hand_ids(data: Mapping[str, Any]) -> list[int] | None:
    """The viewer's hand in a view as plain data (None for a spectator's view)."""
    viewer = data.get("viewer", -1)
    if isinstance(viewer, int) and viewer < 0:
        return None
    if isinstance(data.get("hand"), list):
        return [int(v) for v in data["hand"]]
    seats = data.get("seats")
    if isinstance(seats, list) and isinstance(viewer, int) and viewer < len(seats):
        own = seats[viewer]
        if isinstance(own, dict) and isinstance(own.get("hand"), list):
            return [int(v) for v in own["hand"]]
    return None


def hand_table(catalog: Catalog | None, numbers: Sequence[int], title: str = "Your hand") -> Table:
    """The cards with their names, owners, values and full texts."""
    cards = card_index(catalog)
    table = Table(title=title, title_justify="left", show_lines=True)
    for column in ("card", "text"):
        table.add_column(column, overflow="fold")
    for number in numbers:
        card = cards.get(number)
        if card is None:
            table.add_row(f"#{number}", Text("(not in the catalogue)", style="dim"))
            continue
        text = card.text
        if len(card.faces) > 1:
            text = "\n".join(f"{face.name}: {face.text}" for face in card.faces)
        table.add_row(card_line(catalog, number), text)
    if not numbers:
        table.add_row(Text("(none)", style="dim"), "")
    return table
