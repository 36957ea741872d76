"""New Cold War event cards and objectives: pydantic models, loading and validation.

Cards live in `content/cards.yaml`, objectives in `content/objectives.yaml`. Both are
loaded through `warroom.engine.content`, so a bad file fails with a `ContentError`
naming the file, the record and the field. Card effects are data: a tuple of effect
primitives (see EFFECTS.md) that `effects.py` interprets; objective conditions are a
tuple of conditions that `objectives.py` evaluates.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from warroom.engine.content import Provenance, Record, load_records, read_yaml, require
from warroom.engine.errors import ContentError

CONTENT_DIR = Path(__file__).parent / "content"
CARDS_FILE = CONTENT_DIR / "cards.yaml"
OBJECTIVES_FILE = CONTENT_DIR / "objectives.yaml"

PowerName = Literal["US", "EU", "China", "Russia"]
RegionId = Literal["CAM", "SAM", "EUR", "MEA", "AFR", "ASI", "SEA"]
CountryType = Literal["regional_power", "geo", "non_geo"]
POWER_NAMES: tuple[str, ...] = ("US", "EU", "China", "Russia")
REGION_IDS: tuple[str, ...] = ("CAM", "SAM", "EUR", "MEA", "AFR", "ASI", "SEA")

# The documented size of each decade's deck (docs/content.md explains the numbering blocks).
DECK_SIZES: Mapping[int, int] = {1: 55, 2: 42, 3: 38}
NUMBER_BLOCKS: Mapping[str, tuple[int, int]] = {
    "China": (1, 27),
    "US": (28, 54),
    "neutral": (55, 81),
    "Russia": (82, 108),
    "EU": (109, 135),
}

PowerRef = Literal["self", "player", "ally", "US", "EU", "China", "Russia"]
"""One power: `self` executes the event (the card's power, or the player of a neutral
card), `player` placed the card, `ally` is the executor's ally."""

PowersRef = Literal[
    "self",
    "player",
    "ally",
    "US",
    "EU",
    "China",
    "Russia",
    "opponents",
    "rival_bloc",
    "chosen",
]
"""One or more powers: also `opponents` (the other three), `rival_bloc` (the two powers
of the other bloc) and `chosen` (powers picked by an earlier `choose_powers` step)."""

BlocRef = Literal["self", "rival", "red", "blue"]
ControlFilter = Literal[
    "any",
    "none",
    "controlled",
    "self",
    "ally",
    "opponent",
    "rival_bloc",
    "own_bloc",
    "not_self",
    "not_own_bloc",
    "US",
    "EU",
    "China",
    "Russia",
]
"""Candidate filter by controller, relative to the executor (`opponent`: any other power;
`not_own_bloc`: uncontrolled or held by the other bloc)."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Target(_Model):
    """Which countries a step affects.

    With `choose` 0 the step affects every candidate; with `choose` n the chooser picks
    n distinct candidates, one atomic decision each (`upto`: may stop early). Candidates
    are `countries`, plus every country of `regions`/`subregions`, filtered.
    """

    countries: tuple[str, ...] = ()
    regions: tuple[RegionId, ...] = ()
    subregions: tuple[str, ...] = ()
    choose: int = Field(0, ge=0, le=6)
    upto: bool = False
    chooser: PowerRef = "self"
    controlled_by: ControlFilter = "any"
    stability_max: int | None = Field(None, ge=1, le=4)
    stability: int | None = Field(None, ge=1, le=4)
    types: tuple[CountryType, ...] = ()
    exclude_rival_orbit: bool = False
    grant_access: bool = False

    @model_validator(mode="after")
    def _has_candidates(self) -> Target:
        if not (self.countries or self.regions or self.subregions):
            raise ValueError("a targeted step needs countries, regions or subregions")
        return self


class Control(Target):
    """`who` gains control of each target (by event: no coup reward, no coup limit)."""

    op: Literal["control"]
    who: PowerRef = "self"


class Pos(Target):
    """Move each target `n` positions toward `who` (uncontrolled -> `who`; other -> uncontrolled)."""

    op: Literal["pos"]
    who: PowerRef = "self"
    n: int = Field(1, ge=1, le=2)


class Uncontrol(Target):
    """Each target becomes uncontrolled (its stability tokens stay, 4.3.2.3)."""

    op: Literal["uncontrol"]


class Coup(Target):
    """Coup d'etat by event (4.3.2.2): `who` takes a rival-held target; no VP reward or coup count."""

    op: Literal["coup"]
    who: PowerRef = "self"


class Destabilize(Target):
    """Each target ends with a token destabilizing it in favour of `bloc`."""

    op: Literal["destabilize"]
    bloc: BlocRef = "self"


class Stabilize(Target):
    """Each target controlled by `bloc` ends with that bloc's stabilizing token."""

    op: Literal["stabilize"]
    bloc: BlocRef = "self"


class ClearTokens(Target):
    """Remove every stability token from each target."""

    op: Literal["clear_tokens"]


class CountryVp(Target):
    """2.3.2 VP modifier in a country: the controller gains `delta` now, else a marker waits."""

    op: Literal["country_vp"]
    delta: int = Field(ge=-3, le=3)


class Prestige(_Model):
    """`who` moves `delta` steps on the prestige track (extremes and turn 9 per 4.3.2.4)."""

    op: Literal["prestige"]
    who: PowersRef = "self"
    delta: int = Field(ge=-3, le=3)


class Media(_Model):
    """The media marker moves `steps` toward `toward` (self = the executor's bloc)."""

    op: Literal["media"]
    toward: BlocRef = "self"
    steps: int = Field(1, ge=1, le=3)


class MediaReserve(_Model):
    """`who` places a media reserve marker (with ally cooperation, 4.3.2.5)."""

    op: Literal["media_reserve"]
    who: PowerRef = "self"


class NegativeMedia(_Model):
    """`who` receives a negative media marker (4.3.2.5)."""

    op: Literal["negative_media"]
    who: PowerRef = "self"


class OpReserve(_Model):
    """`who` places an OP reserve marker (4.3.2.6)."""

    op: Literal["op_reserve"]
    who: PowerRef = "self"


class Vp(_Model):
    """`who` gains (or loses) `delta` VPs now."""

    op: Literal["vp"]
    who: PowersRef = "self"
    delta: int = Field(ge=-5, le=5)


class RegionVp(_Model):
    """A VP modifier marker for `who` in `region` until the next global scoring (2.3.2).

    `permanent` modifiers (36-Israeli-Palestinian Conflict, 83-FARC) are never removed.
    """

    op: Literal["region_vp"]
    region: RegionId
    who: PowerRef = "self"
    delta: int = Field(ge=-2, le=2)
    permanent: bool = False


class Access(_Model):
    """`who` gains access to `regions`; with `choose` 1 it picks one region still locked."""

    op: Literal["access"]
    who: PowerRef = "self"
    regions: tuple[RegionId, ...] = ()
    choose: int = Field(0, ge=0, le=1)


class SpendOps(_Model):
    """`who` spends `amount` OPs, only in the listed countries/regions (4.3.2.2: coups made
    with these OPs earn the usual rewards and count toward the limit)."""

    op: Literal["ops"]
    who: PowerRef = "self"
    amount: int = Field(ge=1, le=6)
    countries: tuple[str, ...] = ()
    regions: tuple[RegionId, ...] = ()
    subregions: tuple[str, ...] = ()


class Permanent(_Model):
    """Place permanent event marker `id` (Annex III); its rule lives where the rule is checked.

    `region`/`country` say where; `choose_region` lets the executor pick the region.
    `until` is when it lapses: `game`, `turn` (end of this turn), `next_turn` or `decade`.
    """

    op: Literal["permanent"]
    id: str
    region: RegionId | None = None
    country: str | None = None
    choose_region: bool = False
    until: Literal["game", "turn", "next_turn", "decade"] = "game"


class CancelPermanent(_Model):
    """Remove permanent event `id` and what it placed (e.g. 49-Tsai Ing-Wen ends 3-Consensus)."""

    op: Literal["cancel_permanent"]
    id: str


class ExtraVeto(_Model):
    """`who` gains a free extra veto of value 3 (UNSC Presidency, 4.3.3)."""

    op: Literal["extra_veto"]
    who: PowerRef = "self"


class Discard(_Model):
    """`who` removes `n` cards matching `only` from their hand (may decline when `upto`)."""

    op: Literal["discard"]
    who: PowerRef = "self"
    n: int = Field(1, ge=1, le=2)
    only: Literal["any", "crisis"] = "any"
    upto: bool = True


class ChoosePowers(_Model):
    """The executor picks `n` powers (not itself) for later `chosen` steps."""

    op: Literal["choose_powers"]
    n: int = Field(1, ge=1, le=3)


class Option(_Model):
    """One branch of a `choice`."""

    label: str
    effect: tuple[Effect, ...]


class Choice(_Model):
    """The executor picks exactly one of `options` and its effects apply."""

    op: Literal["choice"]
    options: tuple[Option, ...] = Field(min_length=2)


class PythonEffect(_Model):
    """A named Python effect from the registry in effects.py, for what no primitive fits."""

    op: Literal["python"]
    name: str


Effect = Annotated[
    Control
    | Pos
    | Uncontrol
    | Coup
    | Destabilize
    | Stabilize
    | ClearTokens
    | CountryVp
    | Prestige
    | Media
    | MediaReserve
    | NegativeMedia
    | OpReserve
    | Vp
    | RegionVp
    | Access
    | SpendOps
    | Permanent
    | CancelPermanent
    | ExtraVeto
    | Discard
    | ChoosePowers
    | Choice
    | PythonEffect,
    Field(discriminator="op"),
]
Option.model_rebuild()
Choice.model_rebuild()

EFFECT_OPS: tuple[str, ...] = (
    "control",
    "pos",
    "uncontrol",
    "coup",
    "destabilize",
    "stabilize",
    "clear_tokens",
    "country_vp",
    "prestige",
    "media",
    "media_reserve",
    "negative_media",
    "op_reserve",
    "vp",
    "region_vp",
    "access",
    "ops",
    "permanent",
    "cancel_permanent",
    "extra_veto",
    "discard",
    "choose_powers",
    "choice",
    "python",
)


class Card(Record):
    """One event card, with every fact the rulebook gives (2.2.1) and its effect as data.

    `ops` is the printed (higher) value; `ops_low` the second, lower value of negative
    and war cards; `war` the country id the war targets (`war_also`: further targets). `power` None is a neutral card. `access` lists the open-padlock
    icons. `requires`/`blocked_by` name permanent events that enable or forbid the
    event; `not_playable_by` is the orange band. `reconstructed_fields` names the facts
    of a rulebook card that we filled in (a reconstructed card is reconstructed whole).
    """

    number: int = Field(ge=1, le=200)
    name: str = Field(min_length=1)
    power: PowerName | None
    decade: Literal[1, 2, 3]
    ops: int = Field(ge=0, le=4)
    ops_low: int | None = Field(None, ge=0, le=3)
    crisis: bool = False
    negative: bool = False
    war: str | None = None
    war_also: tuple[str, ...] = ()
    unique: bool = True
    permanent: bool = False
    access: tuple[RegionId, ...] = ()
    requires: str | None = None
    blocked_by: str | None = None
    not_playable_by: tuple[PowerName, ...] = ()
    text: str = Field(min_length=1)
    effect: tuple[Effect, ...] = ()
    bots: dict[PowerName, str] = Field(default_factory=dict)
    aliases: tuple[str, ...] = ()
    reconstructed_fields: tuple[str, ...] = ()

    @model_validator(mode="after")
    def _consistent(self) -> Card:
        if self.crisis:
            if self.ops != 0 or self.ops_low is not None:
                raise ValueError("a crisis card has 0 OPs and no second value (2.2.1)")
            if self.power is None:
                raise ValueError("there are no neutral crisis cards (2.2.1.3)")
        elif self.ops == 0:
            raise ValueError("only crisis cards have 0 OPs")
        if self.war_also and not self.war:
            raise ValueError("war_also on a card that is not a war card")
        if self.war and self.ops_low is None:
            raise ValueError("a war card has two OPs values (2.2.1)")
        if self.ops_low is not None:
            if not (self.war or self.negative):
                raise ValueError("only negative and war cards have a second OPs value")
            if self.ops_low >= self.ops:
                raise ValueError("ops_low must be below ops")
            if self.power is None:
                raise ValueError("neutral negative cards only ever have one OPs value (2.2.1.3)")
        if self.provenance is Provenance.RULEBOOK and not self.source:
            raise ValueError("a rulebook card cites its source")
        if self.provenance is Provenance.RECONSTRUCTED and self.reconstructed_fields:
            raise ValueError(
                "a reconstructed card is reconstructed whole; drop reconstructed_fields"
            )
        if not self.effect:
            raise ValueError("every card has at least one effect step")
        for step in self.effect[:-1]:
            if isinstance(step, SpendOps):
                raise ValueError(
                    "an ops step must be the card's last step (it hands over to the core)"
                )
        return self

    @property
    def war_targets(self) -> tuple[str, ...]:
        """Every country the war is about (`war` first)."""
        return (self.war, *self.war_also) if self.war else ()

    @property
    def neutral(self) -> bool:
        """Whether the card has no flag."""
        return self.power is None

    @property
    def order_value(self) -> int:
        """The value that orders play and vetoes (the higher value, 4.3.1, 4.3.3)."""
        return self.ops


# ----------------------------------------------------------------------------- objectives


class RegionCond(_Model):
    """Control `region` (2.1.2.1, VP modifiers included)."""

    kind: Literal["region"]
    region: RegionId


class AnyRegionCond(_Model):
    """Control at least one of `regions`."""

    kind: Literal["any_region"]
    regions: tuple[RegionId, ...] = Field(min_length=2)


class CountriesCond(_Model):
    """Control at least `count` countries, optionally only in `regions` / of `types`."""

    kind: Literal["countries"]
    count: int = Field(ge=1, le=40)
    regions: tuple[RegionId, ...] = ()
    types: tuple[CountryType, ...] = ()


class OrbitCond(_Model):
    """Control at least `count` of your own ORBIT countries."""

    kind: Literal["orbit"]
    count: int = Field(ge=1, le=20)


class ControlAllCond(_Model):
    """Control every one of `countries`."""

    kind: Literal["control_all"]
    countries: tuple[str, ...] = Field(min_length=1)


class ControlAnyCond(_Model):
    """Control at least `count` of `countries`."""

    kind: Literal["control_any"]
    countries: tuple[str, ...] = Field(min_length=2)
    count: int = Field(1, ge=1)


class TypeInRegionsCond(_Model):
    """Control a country of one of `types` in at least `regions` different regions."""

    kind: Literal["type_in_regions"]
    types: tuple[CountryType, ...] = Field(min_length=1)
    regions: int = Field(ge=1, le=7)


class PrestigeCond(_Model):
    """Your prestige marker is above `above` ("(PC) Track above n")."""

    kind: Literal["prestige_above"]
    above: int = Field(ge=-5, le=4)


class MediaCond(_Model):
    """The media marker is above `above` in your bloc's favour ("(MC) Track above n")."""

    kind: Literal["media_above"]
    above: int = Field(ge=-5, le=4)


Condition = Annotated[
    RegionCond
    | AnyRegionCond
    | CountriesCond
    | OrbitCond
    | ControlAllCond
    | ControlAnyCond
    | TypeInRegionsCond
    | PrestigeCond
    | MediaCond,
    Field(discriminator="kind"),
]


class Objective(Record):
    """One objective card (2.2.2): all `conditions` must hold to declare it for `vp` VPs."""

    number: int = Field(ge=1, le=32)
    power: PowerName
    text: str = Field(min_length=1)
    vp: int = Field(ge=9, le=17)
    conditions: tuple[Condition, ...] = Field(min_length=1)
    reconstructed_fields: tuple[str, ...] = ()

    @model_validator(mode="after")
    def _consistent(self) -> Objective:
        if self.provenance is Provenance.RECONSTRUCTED and self.reconstructed_fields:
            raise ValueError("a reconstructed objective is reconstructed whole")
        if self.provenance is Provenance.RULEBOOK and not self.source:
            raise ValueError("a rulebook objective cites its source")
        return self


# ----------------------------------------------------------------------------- map ids


@dataclass(frozen=True, slots=True)
class MapIds:
    """The ids a card or objective may reference: countries, regions and subregions."""

    countries: frozenset[str]
    regions: frozenset[str]
    subregions: frozenset[str]


def load_map_ids(content_dir: Path = CONTENT_DIR) -> MapIds:
    """The country, region and subregion ids of the map data (the core's content files)."""

    def ids(name: str) -> frozenset[str]:
        path = content_dir / name
        data: Any = read_yaml(path)
        rows = data.get("records", []) if isinstance(data, dict) else data
        if not isinstance(rows, list):
            raise ContentError(str(path), None, None, "expected a list of records")
        return frozenset(str(row["id"]) for row in rows if isinstance(row, dict) and "id" in row)

    return MapIds(ids("countries.yaml"), ids("regions.yaml"), ids("subregions.yaml"))


# ----------------------------------------------------------------------------- loading


def _walk(effects: Iterable[Effect]) -> Iterable[Effect]:
    for step in effects:
        yield step
        if isinstance(step, Choice):
            for option in step.options:
                yield from _walk(option.effect)


def card_steps(card: Card) -> list[Effect]:
    """Every effect step of a card, branches of choices included (for checks and docs)."""
    return list(_walk(card.effect))


def check_cards(
    cards: Sequence[Card],
    path: Path,
    ids: MapIds,
    python_effects: Iterable[str] = (),
) -> None:
    """Cross-record checks: references to countries, regions, subregions, permanent
    events and Python effects exist; war targets are countries; blocks are respected."""
    known_python = set(python_effects)
    permanents = {
        step.id for card in cards for step in card_steps(card) if isinstance(step, Permanent)
    }
    for index, card in enumerate(cards):
        label = f"#{index} (number={card.number})"
        for name in card.war_targets:
            require(name in ids.countries, path, label, "war_targets", f"unknown country {name!r}")
        for field_name in ("requires", "blocked_by"):
            value = getattr(card, field_name)
            require(
                value is None or value in permanents,
                path,
                label,
                field_name,
                f"no card places permanent event {value!r}",
            )
        for step in card_steps(card):
            _check_step(step, path, label, ids, permanents, known_python)
        low, high = NUMBER_BLOCKS[card.power if card.power is not None else "neutral"]
        require(
            low <= card.number <= high,
            path,
            label,
            "number",
            f"number {card.number} outside the {card.power or 'neutral'} block {low}-{high}",
        )


def _check_step(
    step: Effect, path: Path, label: str, ids: MapIds, permanents: set[str], known_python: set[str]
) -> None:
    """One effect step's references: its countries, regions and subregions, a permanent
    event's country, a cancelled permanent event, a Python effect's name."""
    where = f"effect.{step.op}"
    for name in getattr(step, "countries", ()):
        require(name in ids.countries, path, label, where, f"unknown country {name!r}")
    for name in getattr(step, "regions", ()):
        require(name in ids.regions, path, label, where, f"unknown region {name!r}")
    for name in getattr(step, "subregions", ()):
        require(name in ids.subregions, path, label, where, f"unknown subregion {name!r}")
    if isinstance(step, RegionVp):
        require(step.region in ids.regions, path, label, where, f"unknown region {step.region!r}")
    if isinstance(step, Permanent):
        known = step.country is None or step.country in ids.countries
        require(known, path, label, where, f"unknown country {step.country!r}")
    if isinstance(step, CancelPermanent):
        require(step.id in permanents, path, label, where, f"no card places {step.id!r}")
    if isinstance(step, PythonEffect) and known_python:
        require(
            step.name in known_python, path, label, where, f"unknown python effect {step.name!r}"
        )


def check_objectives(objectives: Sequence[Objective], path: Path, ids: MapIds) -> None:
    """Cross-record checks: referenced countries and regions exist; eight per power."""
    for index, objective in enumerate(objectives):
        label = f"#{index} (number={objective.number})"
        for cond in objective.conditions:
            where = f"conditions.{cond.kind}"
            for name in getattr(cond, "countries", ()):
                require(name in ids.countries, path, label, where, f"unknown country {name!r}")
            regions = getattr(cond, "regions", ())
            for name in regions if isinstance(regions, tuple) else ():
                require(name in ids.regions, path, label, where, f"unknown region {name!r}")
            region = getattr(cond, "region", None)
            require(
                region is None or region in ids.regions,
                path,
                label,
                where,
                f"unknown region {region!r}",
            )
        block = (objective.number - 1) // 8
        expected = ("China", "US", "Russia", "EU")[block]
        require(
            objective.power == expected,
            path,
            label,
            "power",
            f"objective {objective.number} belongs to {expected} (blocks of 8, Annex I)",
        )


def load_cards(
    path: Path = CARDS_FILE, ids: MapIds | None = None, python_effects: Iterable[str] = ()
) -> list[Card]:
    """Load and validate the cards (unique numbers, references checked against the map)."""
    cards = load_records(path, Card, key="number")
    check_cards(cards, path, ids or load_map_ids(), python_effects)
    return cards


def load_objectives(path: Path = OBJECTIVES_FILE, ids: MapIds | None = None) -> list[Objective]:
    """Load and validate the objectives (unique numbers, references checked)."""
    objectives = load_records(path, Objective, key="number")
    check_objectives(objectives, path, ids or load_map_ids())
    return objectives


PYTHON_EFFECT_NAMES = frozenset({"kyoto_us_penalty"})
"""The Python effects a card may name; `effects.PYTHON_EFFECTS` implements each one."""


@cache
def cards_by_number() -> Mapping[int, Card]:
    """The shipped cards by number (loaded and validated once)."""
    return {card.number: card for card in load_cards(python_effects=PYTHON_EFFECT_NAMES)}


@cache
def objectives_by_number() -> Mapping[int, Objective]:
    """The shipped objectives by number (loaded and validated once)."""
    return {objective.number: objective for objective in load_objectives()}


def decade_deck(decade: int) -> list[int]:
    """The card numbers of one decade's deck, in number order."""
    return sorted(n for n, card in cards_by_number().items() if card.decade == decade)


def provenance_table(records: Sequence[Card] | Sequence[Objective]) -> str:
    """A markdown table of counts per provenance (and per decade for cards)."""
    cards = [r for r in records if isinstance(r, Card)]
    lines = ["| | rulebook | reconstructed | total |", "|---|---:|---:|---:|"]
    groups: list[tuple[str, list[Record]]] = []
    if cards:
        for decade in (1, 2, 3):
            groups.append((f"decade {decade}", [c for c in cards if c.decade == decade]))
    groups.append(("all", list(records)))
    for name, group in groups:
        rulebook = sum(1 for r in group if r.provenance is Provenance.RULEBOOK)
        rebuilt = sum(1 for r in group if r.provenance is Provenance.RECONSTRUCTED)
        lines.append(f"| {name} | {rulebook} | {rebuilt} | {len(group)} |")
    return "\n".join(lines)


def reconstructed_list(cards: Sequence[Card]) -> str:
    """A markdown table of the reconstructed cards (number, name, power, decade, OPs, theme)."""
    lines = ["| No. | Card | Power | Decade | OPs | Theme |", "|---:|---|---|---:|---|---|"]
    for card in sorted(cards, key=lambda c: c.number):
        if card.provenance is not Provenance.RECONSTRUCTED:
            continue
        ops = f"{card.ops}/{card.ops_low}" if card.ops_low is not None else str(card.ops)
        lines.append(
            f"| {card.number} | {card.name} | {card.power or 'neutral'} | {card.decade} | {ops} | {card.source} |"
        )
    return "\n".join(lines)
