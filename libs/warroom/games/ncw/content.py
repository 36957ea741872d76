"""New Cold War content: record models, loaders and the indexed tables the rules use.

Map data (countries, regions, subregions, setup) is owned here. Card and objective
data are owned by the cards engineer (`content/cards.yaml`, `content/objectives.yaml`);
this module reads only the few fields the core rules need from them and falls back
to a placeholder deck when those files are not there yet.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from warroom.engine.content import (
    Provenance,
    Record,
    load_document,
    load_records,
    read_yaml,
    require,
)
from warroom.engine.errors import ContentError
from warroom.games.ncw.state import BLOC_OF, POWERS

CONTENT_DIR = Path(__file__).parent / "content"
REGION_IDS: tuple[str, ...] = ("CAM", "SAM", "EUR", "MEA", "AFR", "ASI", "SEA")
TYPE_VALUES = {"regional_power": 3, "geo": 2, "non_geo": 1}
PowerName = Literal["US", "EU", "China", "Russia"]


class PowerRewards(BaseModel):
    """A VP amount per power (None where the power cannot earn it)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    US: int | None
    EU: int | None
    China: int | None
    Russia: int | None

    def as_tuple(self) -> tuple[int, ...]:
        """Rewards in power order, 0 for None."""
        return tuple(getattr(self, name) or 0 for name in POWERS)


class CountryRecord(Record):
    """One country of the map."""

    id: str
    name: str
    region: str
    subregion: str | None = None
    type: Literal["regional_power", "geo", "non_geo"]
    orbit: PowerName | None = None
    stability_red: int
    stability_blue: int
    reconstructed_fields: tuple[str, ...] = ()


class RegionRecord(Record):
    """One region: minimum countries to control it and its VP reward per power."""

    id: str
    name: str
    min_countries: int
    reward: PowerRewards
    printed_reward: PowerRewards
    scoring_order: int


class SubregionRecord(Record):
    """One subregion: its member countries and the one-time VP reward per power."""

    id: str
    name: str
    region: str
    members: list[str]
    reward: PowerRewards
    printed_reward: PowerRewards


class ValueSource(BaseModel):
    """A value with its own provenance inside a setup document."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    value: int
    provenance: Provenance
    source: str


class PrestigeRow(BaseModel):
    """One box of the prestige track and what a prestige check gives there."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    position: int
    vp: int
    ops: int
    media_marker: int
    op_reserve: int


class PowerSpec(BaseModel):
    """A power and its bloc."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: PowerName
    bloc: Literal["blue", "red"]


class AutoAccess(BaseModel):
    """Regions unlocked automatically at the start of a turn."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    turn: int
    unlock: dict[str, list[str]]


class SetupDoc(Record):
    """The setup tables of the base game."""

    powers: list[PowerSpec]
    initial_order: list[PowerName]
    starting_vp: int
    starting_media: int
    starting_prestige: dict[str, ValueSource]
    coups_per_turn: int
    turns: int
    rounds_per_turn: int
    hand_size: int
    objectives_dealt: int
    objectives_kept: int
    objective_draw_turn: int
    ally_exchange_turns: list[int]
    leftover_exchange_turns: list[int]
    prestige_check_turns: list[int]
    global_scoring_turns: list[int]
    deck_rebuild_turns: list[int]
    automatic_victory_turns: list[int]
    objectives_for_victory: int
    access_locks: dict[str, dict[str, int]]
    permanent_locks: dict[str, list[str]]
    automatic_access: AutoAccess
    deployment_order: list[PowerName]
    deployments: dict[str, dict[str, list[str]]]
    vetoes: list[int]
    extra_veto_powers: list[PowerName]
    extra_veto_last_decade: int
    prestige_table: list[PrestigeRow]
    prestige_leader_bonus: int
    prestige_extreme_vp: int
    country_values: dict[str, int]
    orbit_bonus: int


@dataclass(frozen=True, slots=True)
class CardStats:
    """What the core rules need to know about an event card.

    `power` is a power index or -1 for a neutral card; `ops_low` equals `ops` unless
    the card prints two values; `war` is the country index a war card targets (-1).
    """

    number: int
    name: str
    power: int
    decade: int
    ops: int
    ops_low: int
    crisis: bool
    negative: bool
    war: int
    unique: bool
    provenance: str


@dataclass(frozen=True, slots=True)
class ObjectiveStats:
    """An objective card: number, power index and VP reward."""

    number: int
    power: int
    vp: int
    text: str


@dataclass(frozen=True, slots=True)
class Tables:
    """Every content table indexed for speed (built once, shared by all states)."""

    countries: tuple[CountryRecord, ...]
    regions: tuple[RegionRecord, ...]
    subregions: tuple[SubregionRecord, ...]
    setup: SetupDoc
    country_index: dict[str, int]
    region_index: dict[str, int]
    country_region: tuple[int, ...]
    country_value: tuple[int, ...]
    country_orbit: tuple[int, ...]
    stability: tuple[tuple[int, int], ...]
    region_countries: tuple[tuple[int, ...], ...]
    region_min: tuple[int, ...]
    region_reward: tuple[tuple[int, ...], ...]
    scoring_order: tuple[int, ...]
    subregion_members: tuple[tuple[int, ...], ...]
    subregion_reward: tuple[tuple[int, ...], ...]
    cards: dict[int, CardStats]
    decade_cards: tuple[tuple[int, ...], ...]
    objectives: dict[int, ObjectiveStats]
    power_objectives: tuple[tuple[int, ...], ...]
    starting_prestige: tuple[int, ...]
    prestige_rows: dict[int, PrestigeRow]


def power_index(name: str) -> int:
    """The index of a power name (US, EU, China, Russia); -1 for neutral/None."""
    for index, power in enumerate(POWERS):
        if power.lower() == name.lower():
            return index
    return -1


def load_countries(path: Path | None = None) -> list[CountryRecord]:
    """Load and validate countries.yaml."""
    path = path or CONTENT_DIR / "countries.yaml"
    records = load_records(path, CountryRecord)
    for rec in records:
        require(rec.region in REGION_IDS, path, rec.id, "region", f"unknown region {rec.region!r}")
        for stab in (rec.stability_red, rec.stability_blue):
            require(1 <= stab <= 4, path, rec.id, "stability", "stability must be 1-4")
        if rec.orbit is None:
            require(
                rec.stability_red == rec.stability_blue,
                path,
                rec.id,
                "orbit",
                "non-orbit country with two ratings",
            )
        else:
            own = BLOC_OF[power_index(rec.orbit)]
            own_stab = (rec.stability_blue, rec.stability_red)[own]
            other = (rec.stability_red, rec.stability_blue)[own]
            require(
                own_stab <= other, path, rec.id, "orbit", "owner's bloc must have the lower rating"
            )
    return records


def load_regions(path: Path | None = None) -> list[RegionRecord]:
    """Load and validate regions.yaml."""
    path = path or CONTENT_DIR / "regions.yaml"
    records = load_records(path, RegionRecord)
    require(
        sorted(r.id for r in records) == sorted(REGION_IDS),
        path,
        None,
        "id",
        "expected the 7 regions",
    )
    return records


def load_subregions(
    countries: list[CountryRecord], path: Path | None = None
) -> list[SubregionRecord]:
    """Load subregions.yaml, checking members against the countries."""
    path = path or CONTENT_DIR / "subregions.yaml"
    records = load_records(path, SubregionRecord)
    known = {c.id for c in countries}
    for rec in records:
        for member in rec.members:
            require(member in known, path, rec.id, "members", f"unknown country {member!r}")
    return records


def load_setup(path: Path | None = None) -> SetupDoc:
    """Load setup.yaml."""
    return load_document(path or CONTENT_DIR / "setup.yaml", SetupDoc)


def _int(raw: Any, default: int = 0) -> int:
    if raw is None or raw == "":
        return default
    if isinstance(raw, bool):
        return int(raw)
    if isinstance(raw, int):
        return raw
    try:
        return int(str(raw).strip())
    except ValueError:
        return default


def _card_from_raw(raw: dict[str, Any], country_index: dict[str, int], path: Path) -> CardStats:
    number = _int(raw.get("number", raw.get("id")), -1)
    if number < 0:
        raise ContentError(str(path), repr(raw.get("name")), "number", "a card needs a number")
    power_raw = raw.get("power") or ""
    power = power_index(str(power_raw)) if power_raw else -1
    ops = _int(raw.get("ops"))
    ops_low = _int(raw.get("ops_low"), ops)
    war_raw = raw.get("war")
    war = -1
    if isinstance(war_raw, str) and war_raw:
        if war_raw not in country_index:
            raise ContentError(str(path), str(number), "war", f"unknown country {war_raw!r}")
        war = country_index[war_raw]
    crisis = bool(raw.get("crisis", False))
    return CardStats(
        number=number,
        name=str(raw.get("name", f"Card {number}")),
        power=power,
        decade=_int(raw.get("decade"), 1),
        ops=0 if crisis else ops,
        ops_low=0 if crisis else min(ops, ops_low),
        crisis=crisis,
        negative=bool(raw.get("negative", False)),
        war=war,
        unique=bool(raw.get("unique", True)),
        provenance=str(raw.get("provenance", "reconstructed")),
    )


def placeholder_cards() -> list[CardStats]:
    """A stand-in deck used only while content/cards.yaml does not exist yet."""
    cards: list[CardStats] = []
    for decade in (1, 2, 3):
        for i in range(40):
            number = (decade - 1) * 40 + i + 1
            power = i % 5 - 1
            ops = 1 + i % 3 if i % 10 else 0
            cards.append(
                CardStats(
                    number,
                    f"Placeholder {number}",
                    power if ops or power >= 0 else 0,
                    decade,
                    ops,
                    ops,
                    ops == 0,
                    False,
                    -1,
                    i % 2 == 0,
                    "placeholder",
                )
            )
    return cards


def load_cards(country_index: dict[str, int], path: Path | None = None) -> list[CardStats]:
    """The card facts the core needs, from cards.yaml (or the placeholder deck)."""
    path = path or CONTENT_DIR / "cards.yaml"
    if not path.exists():
        return placeholder_cards()
    data = read_yaml(path)
    if isinstance(data, dict):
        data = data.get("records", data.get("cards"))
    if not isinstance(data, list):
        raise ContentError(str(path), None, None, "expected a list of cards")
    cards = [_card_from_raw(raw, country_index, path) for raw in data if isinstance(raw, dict)]
    seen: set[int] = set()
    for card in cards:
        if card.number in seen:
            raise ContentError(str(path), str(card.number), "number", "duplicate card number")
        seen.add(card.number)
    return cards


def load_objectives(path: Path | None = None) -> list[ObjectiveStats]:
    """Objective numbers, powers and VPs from objectives.yaml (8 placeholders per power if absent)."""
    path = path or CONTENT_DIR / "objectives.yaml"
    if not path.exists():
        order = ("China", "US", "Russia", "EU")
        return [
            ObjectiveStats(n, power_index(order[(n - 1) // 8]), 12, f"Objective {n}")
            for n in range(1, 33)
        ]
    data = read_yaml(path)
    if isinstance(data, dict):
        data = data.get("records", data.get("objectives"))
    if not isinstance(data, list):
        raise ContentError(str(path), None, None, "expected a list of objectives")
    out: list[ObjectiveStats] = []
    for raw in data:
        if not isinstance(raw, dict):
            continue
        number = _int(raw.get("number", raw.get("id")), -1)
        out.append(
            ObjectiveStats(
                number,
                power_index(str(raw.get("power", ""))),
                _int(raw.get("vp", raw.get("vps"))),
                str(raw.get("text", "")),
            )
        )
    return out


@cache
def tables() -> Tables:
    """Every table, loaded and indexed once."""
    countries = load_countries()
    regions_raw = load_regions()
    regions = sorted(regions_raw, key=lambda r: REGION_IDS.index(r.id))
    subregions = load_subregions(countries)
    setup = load_setup()
    country_index = {c.id: i for i, c in enumerate(countries)}
    region_index = {r.id: i for i, r in enumerate(regions)}
    country_region = tuple(region_index[c.region] for c in countries)
    cards = load_cards(country_index)
    decade_cards = tuple(tuple(sorted(c.number for c in cards if c.decade == d)) for d in (1, 2, 3))
    objectives = load_objectives()
    return Tables(
        countries=tuple(countries),
        regions=tuple(regions),
        subregions=tuple(subregions),
        setup=setup,
        country_index=country_index,
        region_index=region_index,
        country_region=country_region,
        country_value=tuple(TYPE_VALUES[c.type] for c in countries),
        country_orbit=tuple(power_index(c.orbit) if c.orbit else -1 for c in countries),
        stability=tuple((c.stability_blue, c.stability_red) for c in countries),
        region_countries=tuple(
            tuple(i for i, r in enumerate(country_region) if r == ri) for ri in range(len(regions))
        ),
        region_min=tuple(r.min_countries for r in regions),
        region_reward=tuple(r.reward.as_tuple() for r in regions),
        scoring_order=tuple(sorted(range(len(regions)), key=lambda i: regions[i].scoring_order)),
        subregion_members=tuple(tuple(country_index[m] for m in s.members) for s in subregions),
        subregion_reward=tuple(s.reward.as_tuple() for s in subregions),
        cards={c.number: c for c in cards},
        decade_cards=decade_cards,
        objectives={o.number: o for o in objectives},
        power_objectives=tuple(
            tuple(sorted(o.number for o in objectives if o.power == p)) for p in range(4)
        ),
        starting_prestige=tuple(setup.starting_prestige[name].value for name in POWERS),
        prestige_rows={row.position: row for row in setup.prestige_table},
    )
