"""QMG: The Cold War's catalogue: blocs, nationalities, decks, cards, spaces, straits and pieces."""

from __future__ import annotations

from warroom.catalog.common import provenance, view_fields
from warroom.games.qmg_cw.content import (
    BLOC_NAMES,
    BLOCS,
    CONTENT_DIR,
    DECK_BLOC,
    DECKS,
    KINDS,
    NAT_BLOC,
    NATS,
    CardRecord,
    tables,
)
from warroom.games.qmg_cw.state import LAST_ROUND
from warroom.v1 import catalog_pb2 as pb

ESCALATION_MAX = 9


def sides() -> list[pb.Side]:
    """Blocs (view index = bloc), nationalities and deck colours."""
    out = [pb.Side(id=b, name=BLOC_NAMES[i], kind="bloc", index=i) for i, b in enumerate(BLOCS)]
    out += [
        pb.Side(id=n, name=n.title(), kind="nationality", index=i, parent=BLOCS[NAT_BLOC[i]])
        for i, n in enumerate(NATS)
    ]
    out += [
        pb.Side(id=d, name=f"{d.title()} deck", kind="deck", index=i, parent=BLOCS[DECK_BLOC[i]])
        for i, d in enumerate(DECKS)
    ]
    return out


def card(c: CardRecord) -> pb.Card:
    """One card (its id is its index in the view)."""
    classes = [c.type, f"when:{c.when}"]
    if c.once_per_turn:
        classes.append("once_per_turn")
    if c.target != "none":
        classes.append(f"target:{c.target}")
    attributes = {"nationality": c.nationality, "when": c.when, "target": c.target}
    if c.cost:
        attributes["extra_cost"] = ", ".join(f"{k} {v}" for k, v in sorted(c.cost.items()))
    if c.wmd_cost:
        attributes["wmd_cost"] = str(c.wmd_cost)
    if c.escalation:
        attributes["escalation"] = str(c.escalation) + (
            " (conditional)" if c.escalation_conditional else ""
        )
    return pb.Card(
        id=c.id,
        name=c.name,
        text=c.text,
        owner=c.bloc,
        owner_kind="bloc",
        deck=c.deck,
        cost=c.wmd_cost,
        classes=classes,
        faces=[pb.CardFace(name=c.name, text=c.text)],
        attributes=attributes,
        provenance=provenance(c),
    )


def game_map() -> pb.GameMap:
    """Spaces (view index = position), adjacencies (land, sea, coast) and straits."""
    t = tables()
    spaces = [
        pb.Space(
            id=s.id,
            index=i,
            name=s.name,
            terrain=s.kind,
            supply=s.supply,
            provenance=provenance(s),
        )
        for i, s in enumerate(t.space_records)
    ]
    adjacencies: list[pb.Adjacency] = []
    for i, s in enumerate(t.space_records):
        for j in sorted(t.adjacent[i]):
            if j > i:
                kinds = {t.is_sea[i], t.is_sea[j]}
                kind = "coast" if len(kinds) == 2 else ("sea" if t.is_sea[i] else "land")
                adjacencies.append(pb.Adjacency(a=s.id, b=t.space_ids[j], kind=kind))
    for st in t.strait_records:
        adjacencies.append(pb.Adjacency(a=st.seas[0], b=st.seas[1], kind="strait", via=st.anchor))
    return pb.GameMap(spaces=spaces, adjacencies=adjacencies)


def piece_types() -> list[pb.PieceType]:
    """Armies, navies and air forces of each nationality, and supply tokens."""
    t = tables()
    out = [
        pb.PieceType(
            id=f"{nat}_{kind}",
            name=f"{nat.title()} {kind}",
            owner=nat,
            kind=kind,
            count=t.piece_pool[n][k],
            code=n * 4 + k,
        )
        for n, nat in enumerate(NATS)
        for k, kind in enumerate(KINDS)
    ]
    out += [
        pb.PieceType(
            id=f"{nat}_supply_token",
            name=f"{nat.title()} supply token",
            owner=nat,
            kind="supply_token",
            count=t.token_pool[n],
            code=n,
        )
        for n, nat in enumerate(NATS)
        if t.token_pool[n]
    ]
    return out


def tracks() -> list[pb.Track]:
    """VPs per bloc, escalation levels and the round track."""
    return [
        pb.Track(id="vp", name="Victory points", view_field="vp[bloc]"),
        pb.Track(
            id="escalation",
            name="Escalation of one bloc against another",
            max=ESCALATION_MAX,
            view_field="esc[of * 3 + against]",
        ),
        pb.Track(id="round", name="Round", min=1, max=LAST_ROUND, start=1, view_field="round"),
    ]


VIEW_FIELDS = (
    ("seats[].hand", "card", "card ids (Card.id); only in the viewer's own seat"),
    ("seats[].discard_up", "card", "card ids"),
    ("seats[].discard_down", "card", "card ids (the viewer's own)"),
    ("seats[].prepared", "card", "card ids"),
    ("seats[].espionage", "card", "card ids (the viewer's own)"),
    ("seats[].opening", "card", "card ids (the viewer's own)"),
    ("seats[].deck", "card", "card ids left in the viewer's own deck, sorted"),
    ("seats[].bloc", "side_index:bloc", "bloc (Side.index of a bloc)"),
    ("seats[].colour", "side_index:deck", "deck colour (Side.index of a deck), -1 whole bloc"),
    ("pieces", "piece_code", "space_index * 32 + PieceType.code (nationality * 4 + kind)"),
    ("organic", "piece_code", "as pieces: the pieces built this turn"),
    ("tokens", "token_code", "space_index * 8 + nationality (supply token PieceType.code)"),
    ("last_space", "space_index", "Space.index, -1 when none"),
    ("vp", "per_side:bloc", "VPs of each bloc, by Side.index"),
    ("stack[].card", "card", "the card a pending step resolves, -1 none"),
    ("stack[].space", "space_index", "the space of a pending step, -1 none"),
)


def seat_decks(catalog: pb.Catalog) -> None:
    """Name the deck colour of each teammate seat (setup.yaml's player assignment)."""
    assignment = tables().variants
    for variant in catalog.variants:
        _, seats = assignment[variant.id]
        for seat, (_, deck) in zip(variant.seats, seats, strict=True):
            seat.deck = DECKS[deck] if deck >= 0 else ""


def build() -> pb.Catalog:
    """The QMG Cold War catalogue (content version unset)."""
    t = tables()
    return pb.Catalog(
        sides=sides(),
        cards=[card(c) for c in t.card_records],
        map=game_map(),
        tracks=tracks(),
        piece_types=piece_types(),
        view_fields=view_fields(VIEW_FIELDS),
    )


CONTENT = CONTENT_DIR
