"""New Cold War's seat view for the terminal: tracks, regions, hand, VPs and objectives.

The view (`warroom.games.ncw.v1.View`, as plain data) names countries and cards by id;
the static board (country names, regions, stability, card and objective texts) comes from
the game catalogue (CatalogService, `warroom.cli.cards`); without one, ids are shown as
they are.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from warroom.cli.cards import Catalog, card_line, hand_table, objective_line

POWERS = ("US", "EU", "China", "Russia")
TOKENS = {0: "", 1: "blue", 2: "red"}


def _power(index: int) -> str:
    return POWERS[index] if 0 <= index < len(POWERS) else "-"


def _int(data: Mapping[str, Any], key: str) -> int:
    value = data.get(key, 0)
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


def tracks(view: Mapping[str, Any]) -> Table:
    """One row per power: VPs, prestige, media, OP reserve, coups, vetoes, cards."""
    table = Table(title="Powers and tracks", title_justify="left")
    for column in (
        "power",
        "VP",
        "prestige",
        "media box",
        "OP reserve",
        "coups left",
        "vetoes spent",
        "hand",
        "secret obj.",
        "placed",
    ):
        table.add_column(column, justify="right" if column != "power" else "left")
    viewer = _int(view, "viewer")
    for index, power in enumerate(view.get("powers", [])):
        if not isinstance(power, dict):
            continue
        name = str(power.get("power", _power(index)))
        style = "bold" if index == viewer else ""
        table.add_row(
            Text(name + (" (you)" if index == viewer else ""), style=style),
            str(_int(power, "vp")),
            str(_int(power, "prestige")),
            {-1: "negative", 1: "reserve"}.get(_int(power, "media_box"), "-"),
            {-1: "negative", 1: "reserve"}.get(_int(power, "op_reserve"), "-"),
            str(_int(power, "coups_left")),
            str(_int(power, "vetoes_spent")),
            str(_int(power, "hand_count")),
            str(_int(power, "secret_objectives")),
            "yes" if power.get("placed") else "",
        )
    return table


def regions(view: Mapping[str, Any], catalog: Catalog | None = None) -> Table:
    """Every country grouped by region: control, stability, token, VP modifier."""
    spaces = {s.id: s for s in catalog.map.spaces} if catalog is not None else {}
    table = Table(title="Regions", title_justify="left")
    for column in ("region", "country", "control", "stability blue/red", "token", "VP mod"):
        table.add_column(column)
    countries = [c for c in view.get("countries", []) if isinstance(c, dict)]
    rows: list[tuple[str, str, dict[str, Any], str]] = []
    for country in countries:
        cid = str(country.get("id", "?"))
        region, name, stability = "", cid, ""
        record = spaces.get(cid)
        if record is not None:
            region, name = record.region, record.name
            stability = f"{record.stability.get('blue', 0)}/{record.stability.get('red', 0)}"
        rows.append((region, name, country, stability))
    rows.sort(key=lambda r: (r[0], r[1]))
    previous = None
    for region, name, country, stability in rows:
        control = _int(country, "control") if "control" in country else -1
        token = TOKENS.get(_int(country, "token"), str(country.get("token")))
        modifier = _int(country, "vp_modifier")
        table.add_row(
            region if region != previous else "",
            name,
            Text(_power(control), style="bold" if control >= 0 else "dim"),
            stability,
            token,
            f"{modifier:+d}" if modifier else "",
        )
        previous = region
    return table


def _numbers(view: Mapping[str, Any], key: str) -> list[int]:
    values = view.get(key, [])
    return [int(v) for v in values] if isinstance(values, list) else []


def cards(title: str, numbers: Sequence[int], describe: Any) -> Table:
    """A numbered list of cards or objectives."""
    table = Table(title=title, title_justify="left", show_header=False)
    table.add_column("card")
    for number in numbers:
        table.add_row(describe(number))
    if not numbers:
        table.add_row(Text("(none)", style="dim"))
    return table


def placements(view: Mapping[str, Any], catalog: Catalog | None = None) -> Table | None:
    """The negotiating center: who placed, and the cards the viewer may see."""
    items = [p for p in view.get("placements", []) if isinstance(p, dict)]
    if not items:
        return None
    table = Table(title="Negotiating center", title_justify="left")
    for column in ("power", "placed", "card"):
        table.add_column(column)
    for placement in items:
        play = placement.get("play") or {}
        card = (
            card_line(catalog, _int(play, "card"))
            if placement.get("visible") and isinstance(play, dict) and play.get("card")
            else ("hidden" if placement.get("placed") else "")
        )
        table.add_row(
            str(placement.get("power", "")), "yes" if placement.get("placed") else "", card
        )
    return table


def render(view: Mapping[str, Any], catalog: Catalog | None = None) -> list[RenderableType]:
    """Every section of a New Cold War view, in reading order (names from `catalog`)."""
    summary = Text(
        f"Turn {_int(view, 'turn')} · round {_int(view, 'round')} · phase "
        f"{view.get('phase', '?')} · media track {_int(view, 'media')} · "
        f"deck {_int(view, 'deck_count')} · discard {len(_numbers(view, 'discard'))}",
        style="bold",
    )
    parts: list[RenderableType] = [summary, tracks(view), regions(view, catalog)]
    center = placements(view, catalog)
    if center is not None:
        parts.append(center)
    if _int(view, "viewer") >= 0:
        parts.append(hand_table(catalog, _numbers(view, "hand")))

        def objective(number: int) -> str:
            return objective_line(catalog, number)

        parts.append(cards("Your secret objectives", _numbers(view, "objectives"), objective))
        offer = _numbers(view, "objective_offer")
        if offer:
            parts.append(cards("Objective offer", offer, objective))
    if view.get("over"):
        parts.append(Text(f"Game over: {view.get('reason', '')}", style="bold"))
    return parts
