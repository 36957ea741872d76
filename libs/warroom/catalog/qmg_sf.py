"""QMG: South Front's catalogue: sides, factions, cards, spaces, minor countries and pieces."""

from __future__ import annotations

from warroom.catalog.common import provenance, view_fields
from warroom.games.qmg_sf.content import (
    CONTENT_DIR,
    COUNTRIES,
    FACTIONS,
    KINDS,
    SIDE_OF_FACTION,
    CardRecord,
    ContingencyRecord,
    SpaceRecord,
    tables,
)
from warroom.games.qmg_sf.state import SIDES
from warroom.v1 import catalog_pb2 as pb


def sides() -> list[pb.Side]:
    """Axis and Allies (view index = side) and the five factions (view index = faction)."""
    out = [pb.Side(id=s, name=s, kind="side", index=i) for i, s in enumerate(SIDES)]
    out += [
        pb.Side(id=f, name=f, kind="faction", index=i, parent=SIDES[SIDE_OF_FACTION[i]])
        for i, f in enumerate(FACTIONS)
    ]
    return out


def card(c: CardRecord) -> pb.Card:
    """One deck card."""
    classes: list[str] = [f"era:{c.era}"]
    attributes: dict[str, str] = {"era": c.era}
    if c.first_game:
        classes.append("first_game")
    if c.reaction is not None:
        classes.append(f"reaction:{c.reaction.type}")
        attributes["reaction"] = c.reaction.type
        if c.reaction.spaces:
            attributes["reaction_spaces"] = ", ".join(c.reaction.spaces)
    return pb.Card(
        id=c.id,
        name=c.name,
        text=c.text,
        owner=c.faction,
        owner_kind="faction",
        deck=f"{SIDES[SIDE_OF_FACTION[FACTIONS.index(c.faction)]]} {c.era}",
        classes=classes,
        faces=[pb.CardFace(name=c.name, text=c.text)],
        attributes=attributes,
        provenance=provenance(c),
    )


def contingency(c: ContingencyRecord) -> pb.Card:
    """A Contingency card: its Initial side first, then its Second side."""
    side = SIDES[SIDE_OF_FACTION[FACTIONS.index(c.faction)]]
    return pb.Card(
        id=c.id,
        name=c.initial.name,
        text=c.initial.text,
        owner=c.faction,
        owner_kind="faction",
        deck=f"{side} contingency",
        classes=["contingency"],
        faces=[
            pb.CardFace(name=c.initial.name, text=c.initial.text),
            pb.CardFace(name=c.second.name, text=c.second.text),
        ],
        provenance=provenance(c),
    )


def _space(i: int, s: SpaceRecord, flags: list[str]) -> pb.Space:
    control = {"Axis": "Axis", "Allies": "Allies", "Neutral": "neutral"}.get(s.control or "", "")
    return pb.Space(
        id=s.id,
        index=i,
        name=s.name,
        terrain="sea" if s.kind == "water" else "land",
        region=s.minor.lower() if s.minor else "",
        supply_flags=flags,
        victory_star=s.star,
        desert=s.desert,
        minor_country=s.minor or "",
        control_at_start=control,
        attributes={"mcf": str(s.mcf)} if s.minor else {},
        provenance=provenance(s),
    )


def game_map() -> pb.GameMap:
    """Spaces (view index = position), adjacencies, straits and the minor countries."""
    t = tables()
    records = t.records
    spaces: list[SpaceRecord] = list(records["spaces"])  # type: ignore[arg-type]
    flags: dict[str, list[str]] = {s.id: list(s.flags) for s in spaces}
    for fl in records["flags"]:
        flags[fl.space] += [f"{f} ({fl.marker} marker)" if fl.marker else f for f in fl.factions]  # type: ignore[attr-defined]
    out = [_space(i, s, flags[s.id]) for i, s in enumerate(spaces)]
    adjacencies: list[pb.Adjacency] = []
    for e in records["adjacency"]:
        a, b = t.space(e.a), t.space(e.b)  # type: ignore[attr-defined]
        kind = "coast" if t.water[a] != t.water[b] else ("sea" if t.water[a] else "land")
        adjacencies.append(pb.Adjacency(a=e.a, b=e.b, kind=kind))  # type: ignore[attr-defined]
    for st in records["straits"]:
        a, b = st.seas  # type: ignore[attr-defined]
        adjacencies.append(pb.Adjacency(a=a, b=b, kind="strait", via=st.anchor))  # type: ignore[attr-defined]
    regions = [
        pb.Region(
            id=name.lower(),
            name=name,
            kind="minor_country",
            members=[t.space_ids[i] for i in t.country_spaces[n]],
            index=n,
        )
        for n, name in enumerate(COUNTRIES)
    ]
    return pb.GameMap(spaces=out, adjacencies=adjacencies, regions=regions)


def piece_types() -> list[pb.PieceType]:
    """Each faction's pieces of each kind, with the view's piece numbers (`loc` index)."""
    t = tables()
    out: list[pb.PieceType] = []
    for f, faction in enumerate(FACTIONS):
        for k, kind in enumerate(KINDS):
            ids = [
                i
                for i, (pf, pk) in enumerate(zip(t.piece_faction, t.piece_kind, strict=True))
                if pf == f and pk == k
            ]
            if ids:
                out.append(
                    pb.PieceType(
                        id=f"{faction.lower()}_{kind}",
                        name=f"{faction} {kind}",
                        owner=faction,
                        kind=kind,
                        count=len(ids),
                        code=-1,
                        piece_ids=ids,
                    )
                )
    return out


def tracks() -> list[pb.Track]:
    """VPs per side and the round track (with its season names)."""
    t = tables()
    boxes = [
        pb.TrackBox(
            position=r,
            label=f"{t.seasons[(r - 1) % len(t.seasons)]} {t.first_year + r // len(t.seasons)}",
            values={"scoring": int(r in t.scoring)},
        )
        for r in range(1, t.rounds + 1)
    ]
    return [
        pb.Track(id="vp", name="Victory points", view_field="public.vp[side]"),
        pb.Track(
            id="round",
            name="Round",
            min=1,
            max=t.rounds,
            start=1,
            boxes=boxes,
            view_field="public.round",
        ),
    ]


VIEW_FIELDS = (
    ("hand", "card", "card ids (Card.id)"),
    ("own_discards", "card", "card ids"),
    ("revealed[].values", "card", "card ids, per side"),
    ("contingency[].card", "card", "Contingency card id (faces[0] Initial, faces[1] Second)"),
    ("public.contingency", "card", "key: Contingency card id; value: 0 Initial, 1 Second, 2 gone"),
    ("public.loc", "per_piece", "one entry per piece number (PieceType.piece_ids)"),
    ("public.loc", "space_index", "the piece's space (Space.index), -1 off the board"),
    ("public.on", "per_piece", "one entry per piece number"),
    ("public.on", "piece", "the fleet or carrier carrying it, -1 none"),
    ("public.control", "per_space", "one entry per space, by Space.index"),
    ("public.control", "side_index:side", "controlling side, -1 neutral, -2 water"),
    ("public.minor", "per_region:minor_country", "one entry per minor country, by Region.index"),
    ("public.minor", "side_index:side", "side the minor country joined, -1 neutral"),
    ("public.mcf", "per_space", "minor country force counters left on each space"),
    ("public.vp", "per_side:side", "VPs of each side, by Side.index"),
    ("public.active", "side_index:side", "the active side"),
)


def build() -> pb.Catalog:
    """The South Front catalogue (content version unset)."""
    t = tables()
    records = t.records
    cards = [card(c) for c in records["cards"]]  # type: ignore[arg-type]
    cards += [contingency(c) for c in records["contingency"]]  # type: ignore[arg-type]
    cards.sort(key=lambda c: c.id)
    return pb.Catalog(
        sides=sides(),
        cards=cards,
        map=game_map(),
        tracks=tracks(),
        piece_types=piece_types(),
        view_fields=view_fields(VIEW_FIELDS),
    )


CONTENT = CONTENT_DIR
