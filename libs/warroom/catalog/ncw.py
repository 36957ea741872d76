"""New Cold War's catalogue: powers, event cards, objectives, countries, regions and tracks."""

from __future__ import annotations

from warroom.catalog.common import provenance, view_fields
from warroom.games.ncw.cards import Card, cards_by_number, objectives_by_number
from warroom.games.ncw.content import CONTENT_DIR, PowerRewards, tables
from warroom.games.ncw.state import BLOC_OF, BLOCS, POWERS
from warroom.v1 import catalog_pb2 as pb

TYPE_NAMES = {"regional_power": "Regional power", "geo": "GEO", "non_geo": "Non-GEO"}


def sides() -> list[pb.Side]:
    """The two blocs and the four powers (view index = power index)."""
    out = [
        pb.Side(id=b, name=f"{b.title()} bloc", kind="bloc", index=i) for i, b in enumerate(BLOCS)
    ]
    out += [
        pb.Side(id=p, name=p, kind="power", index=i, parent=BLOCS[BLOC_OF[i]])
        for i, p in enumerate(POWERS)
    ]
    return out


def _classes(card: Card) -> list[str]:
    flags = {
        "crisis": card.crisis,
        "negative": card.negative,
        "war": card.war is not None,
        "permanent": card.permanent,
        "unique": card.unique,
        "access": bool(card.access),
    }
    return [name for name, on in flags.items() if on]


def card(c: Card) -> pb.Card:
    """One event card."""
    attributes = {"decade": str(c.decade)}
    if c.war:
        attributes["war"] = ", ".join((c.war, *c.war_also))
    if c.access:
        attributes["access"] = ", ".join(c.access)
    if c.not_playable_by:
        attributes["not_playable_by"] = ", ".join(c.not_playable_by)
    return pb.Card(
        id=c.number,
        name=c.name,
        text=c.text,
        owner=c.power or "",
        owner_kind="power" if c.power else "",
        deck=f"decade {c.decade}",
        has_ops=True,
        ops=c.ops,
        ops_low=c.ops if c.ops_low is None else c.ops_low,
        classes=_classes(c),
        faces=[pb.CardFace(name=c.name, text=c.text)],
        attributes=attributes,
        provenance=provenance(c),
    )


def objectives() -> list[pb.Objective]:
    """The 32 objective cards."""
    return [
        pb.Objective(
            id=o.number,
            name=f"Objective {o.number}",
            text=o.text,
            owner=o.power,
            vp=o.vp,
            provenance=provenance(o),
        )
        for o in sorted(objectives_by_number().values(), key=lambda o: o.number)
    ]


def _rewards(rewards: PowerRewards) -> list[pb.Reward]:
    return [
        pb.Reward(side=p, vp=getattr(rewards, p) or 0, available=getattr(rewards, p) is not None)
        for p in POWERS
    ]


def game_map() -> pb.GameMap:
    """Countries (no adjacency: New Cold War plays by region), regions and subregions."""
    t = tables()
    spaces = [
        pb.Space(
            id=c.id,
            index=i,
            name=c.name,
            terrain="land",
            region=c.region,
            subregion=c.subregion or "",
            type=c.type,
            value=t.country_value[i],
            stability={"blue": c.stability_blue, "red": c.stability_red},
            orbit=c.orbit or "",
            attributes={"type_name": TYPE_NAMES[c.type]},
            provenance=provenance(c),
        )
        for i, c in enumerate(t.countries)
    ]
    regions = [
        pb.Region(
            id=r.id,
            name=r.name,
            kind="region",
            members=[c.id for c in t.countries if c.region == r.id],
            min_countries=r.min_countries,
            rewards=_rewards(r.reward),
            scoring_order=r.scoring_order,
            index=i,
            provenance=provenance(r),
        )
        for i, r in enumerate(t.regions)
    ]
    regions += [
        pb.Region(
            id=s.id,
            name=s.name,
            kind="subregion",
            parent=s.region,
            members=list(s.members),
            rewards=_rewards(s.reward),
            index=i,
            provenance=provenance(s),
        )
        for i, s in enumerate(t.subregions)
    ]
    return pb.GameMap(spaces=spaces, regions=regions)


def tracks() -> list[pb.Track]:
    """VPs, prestige (with the prestige-check table), media, turns and rounds."""
    setup = tables().setup
    boxes = [
        pb.TrackBox(
            position=row.position,
            label=f"{row.position:+d}",
            values={
                "vp": row.vp,
                "ops": row.ops,
                "media_marker": row.media_marker,
                "op_reserve": row.op_reserve,
            },
        )
        for row in setup.prestige_table
    ]
    positions = [row.position for row in setup.prestige_table]
    return [
        pb.Track(id="vp", name="Victory points", start=setup.starting_vp, view_field="powers[].vp"),
        pb.Track(
            id="prestige",
            name="Prestige (PC) track",
            min=min(positions),
            max=max(positions),
            boxes=boxes,
            view_field="powers[].prestige",
        ),
        pb.Track(
            id="media",
            name="Media (MC) track: positive toward the blue bloc",
            min=-5,
            max=5,
            start=setup.starting_media,
            view_field="media",
        ),
        pb.Track(id="turn", name="Turn", min=1, max=setup.turns, start=1, view_field="turn"),
        pb.Track(
            id="round", name="Round", min=1, max=setup.rounds_per_turn, start=1, view_field="round"
        ),
    ]


VIEW_FIELDS = (
    ("hand", "card", "event card ids (Card.id)"),
    ("discard", "card", "event card ids"),
    ("leftover", "card", "event card ids"),
    ("removed", "card", "event card ids"),
    ("placements[].play.card", "card", "event card id (when visible; 0 when hidden)"),
    ("placements[].power", "side", "power id (Side.id)"),
    ("own_exchange", "card", "event card id, -1 when none"),
    ("objectives", "objective", "objective ids (Objective.id)"),
    ("objective_offer", "objective", "objective ids"),
    ("objectives_out", "objective", "objective ids"),
    ("powers[].declared", "objective", "objective ids"),
    ("countries", "per_space", "one CountryView per country, in Space.index order"),
    ("countries[].id", "space", "country id (Space.id)"),
    ("countries[].control", "side_index:power", "controlling power (Side.index), -1 none"),
    ("powers", "per_side:power", "one PowerView per power, in Side.index order"),
    ("powers[].power", "side", "power id (Side.id)"),
    ("powers[].access", "region_mask:region", "bit i set: region with Region.index i is open"),
    ("subregion_claimed", "per_region:subregion", "one entry per subregion, by Region.index"),
    ("subregion_claimed", "side_index:power", "the power that claimed it, -1 none"),
    ("stack[].card", "card", "the card a pending step resolves (0 none)"),
)


def build() -> pb.Catalog:
    """The New Cold War catalogue (content version unset)."""
    return pb.Catalog(
        sides=sides(),
        cards=[card(c) for _, c in sorted(cards_by_number().items())],
        map=game_map(),
        objectives=objectives(),
        tracks=tracks(),
        view_fields=view_fields(VIEW_FIELDS),
    )


CONTENT = CONTENT_DIR
