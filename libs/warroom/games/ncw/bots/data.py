"""The official bots' and variants' tables (content/bots.yaml, content/variants.yaml), validated.

Every table is data with provenance; this module only loads and indexes it.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, field_validator

from warroom.engine.content import Record, load_document, require

CONTENT_DIR = Path(__file__).resolve().parent.parent / "content"
DIFFICULTIES: tuple[str, ...] = ("beginner", "intermediate", "expert")
POWERS: tuple[str, ...] = ("US", "EU", "China", "Russia")
REGIONS: tuple[str, ...] = ("EUR", "MEA", "CAM", "SAM", "AFR", "ASI", "SEA")


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


_NAMES: dict[int, tuple[PriorityRegion, tuple[str, ...]]] = {}


class PriorityRegion(_Frozen):
    """One region of a bot's priority table: countries in search order with their OP cost."""

    region: str
    control: int
    reinforced: int
    countries: tuple[tuple[str, int], ...]

    @property
    def names(self) -> tuple[str, ...]:
        """The countries in search order."""
        found = _NAMES.get(id(self))
        if found is None or found[0] is not self:
            found = _NAMES[id(self)] = (self, tuple(name for name, _ in self.countries))
        return found[1]


class BotPower(Record):
    """One power's bot: its three regions, priority tables, deployments and ORBIT fallback."""

    power: str
    victory_regions: tuple[str, str, str]
    priority: tuple[PriorityRegion, PriorityRegion, PriorityRegion]
    deployment: dict[str, tuple[str, ...]]
    orbit_fallback: tuple[str, ...] = ()

    @field_validator("power")
    @classmethod
    def _known_power(cls, value: str) -> str:
        if value not in POWERS:
            raise ValueError(f"unknown power {value!r}")
        return value


class RegionRewards(Record):
    """The bot's first- and second-region rewards at one difficulty (6.2.1.1)."""

    difficulty: str
    first: dict[str, int]
    second: dict[str, int]


class SpecialBenefits(Record):
    """The turns at which bots receive each special benefit at one difficulty (6.2.2)."""

    difficulty: str
    op_reserve_turns: tuple[int, ...]
    prestige_turns: tuple[int, ...]
    media_reserve_turns: tuple[int, ...]


class Interpretation(Record):
    """One Annex IV row: how a bot of `power` plays `card`."""

    power: str
    card: str
    decade: int
    neutral: bool
    play: str
    method: str = ""
    table: str = ""
    region: str = ""
    targets: tuple[str, ...] = ()
    targets_by_region: dict[str, tuple[str, ...]] = Field(default_factory=dict)

    @field_validator("play")
    @classmethod
    def _known_play(cls, value: str) -> str:
        if value not in ("event", "event_decade_1", "ops_if_all_controlled"):
            raise ValueError(f"unknown play mode {value!r}")
        return value


class BotsDocument(_Frozen):
    """content/bots.yaml."""

    powers: tuple[BotPower, ...]
    third_region_reinforced: Record
    region_rewards: tuple[RegionRewards, ...]
    special_benefits: tuple[SpecialBenefits, ...]
    interpretation: tuple[Interpretation, ...]


class Variant(Record):
    """One playable variant (6.8-6.10): who the bots are and how the deal, exchanges and vetoes work."""

    id: str
    description: str
    bots: tuple[str, ...]
    cards_per_human: int
    bot_hand: str
    withdrawn_objectives: tuple[int, ...]
    deployments: dict[str, dict[str, tuple[str, ...] | dict[str, tuple[str, ...]]]] = Field(
        default_factory=dict
    )
    open_padlocks: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    ally_exchange: str
    leftover_exchange: bool
    bot_vetoes: tuple[int, ...]
    vetoes_to_ally: tuple[int, ...] = ()
    objectives_award_vp: bool

    @field_validator("bot_hand")
    @classmethod
    def _known_hand(cls, value: str) -> str:
        if value not in ("none", "gifted", "dealt3", "solitaire"):
            raise ValueError(f"unknown bot hand rule {value!r}")
        return value


class SolitaireObjectives(Record):
    """Objectives needed for the solitaire player's automatic victory (6.10)."""

    beginner: int
    intermediate: int
    expert: int


class OrderedList(Record):
    """A list of powers or cards with its provenance."""

    order: tuple[str, ...] = ()
    cards: tuple[str, ...] = ()


class RegionGrant(Record):
    """A region access granted to a bot power."""

    power: str
    region: str


class CardCountries(Record):
    """The countries a card concerns (for the Russia bot's extra veto)."""

    card: str
    countries: tuple[str, ...]


class VariantsDocument(_Frozen):
    """content/variants.yaml."""

    variants: tuple[Variant, ...]
    solitaire_objectives_needed: SolitaireObjectives
    solitaire_gift_order: OrderedList
    russia_extra_veto_cards: OrderedList
    bot_africa_access: RegionGrant
    russia_extra_veto_countries: tuple[CardCountries, ...]


class BotTables:
    """Indexed bot and variant tables."""

    def __init__(self, bots: BotsDocument, variants: VariantsDocument) -> None:
        self.bots_doc = bots
        self.variants_doc = variants
        self.powers: dict[str, BotPower] = {p.power: p for p in bots.powers}
        self.rewards: dict[str, RegionRewards] = {r.difficulty: r for r in bots.region_rewards}
        self.benefits: dict[str, SpecialBenefits] = {b.difficulty: b for b in bots.special_benefits}
        self.interpretations: dict[tuple[str, str], Interpretation] = {
            (i.power, _norm(i.card)): i for i in bots.interpretation
        }
        self.variants: dict[str, Variant] = {v.id: v for v in variants.variants}

    def interpretation(self, power: str, card_name: str) -> Interpretation | None:
        """The Annex IV row for a bot power and a card, if any."""
        return self.interpretations.get((power, _norm(card_name)))


def _norm(name: str) -> str:
    return "".join(ch for ch in name.lower() if ch.isalnum())


def norm_name(name: str) -> str:
    """A country or card name reduced to lowercase letters and digits, for matching."""
    return _norm(name)


@cache
def tables() -> BotTables:
    """The validated tables (loaded once)."""
    bots_path = CONTENT_DIR / "bots.yaml"
    variants_path = CONTENT_DIR / "variants.yaml"
    bots = load_document(bots_path, BotsDocument)  # type: ignore[type-var]
    variants = load_document(variants_path, VariantsDocument)  # type: ignore[type-var]
    _check(bots, variants, bots_path, variants_path)
    return BotTables(bots, variants)


def _check(
    bots: BotsDocument, variants: VariantsDocument, bots_path: Path, variants_path: Path
) -> None:
    require(
        sorted(p.power for p in bots.powers) == sorted(POWERS),
        bots_path,
        None,
        "powers",
        "need all four powers",
    )
    for power in bots.powers:
        regions = tuple(t.region for t in power.priority)
        require(
            regions == power.victory_regions,
            bots_path,
            power.power,
            "priority",
            "priority tables must follow the victory regions",
        )
        for table in power.priority:
            require(
                table.region in REGIONS,
                bots_path,
                power.power,
                "priority",
                f"unknown region {table.region}",
            )
            require(
                table.reinforced == table.control + 1,
                bots_path,
                power.power,
                "reinforced",
                "must be control + 1",
            )
        require(
            sorted(power.deployment) == sorted(DIFFICULTIES),
            bots_path,
            power.power,
            "deployment",
            "one deployment per difficulty",
        )
    for difficulty in DIFFICULTIES:
        require(
            any(r.difficulty == difficulty for r in bots.region_rewards),
            bots_path,
            difficulty,
            "region_rewards",
            "missing difficulty",
        )
        require(
            any(b.difficulty == difficulty for b in bots.special_benefits),
            bots_path,
            difficulty,
            "special_benefits",
            "missing difficulty",
        )
    for variant in variants.variants:
        for bot in variant.bots:
            require(bot in POWERS, variants_path, variant.id, "bots", f"unknown power {bot}")
