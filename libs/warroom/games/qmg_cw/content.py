"""QMG: The Cold War content: record models, loaders and the indexed tables the rules use.

Spaces, straits, cards and setup come from `content/*.yaml`; every record carries its
provenance. `tables()` loads and cross-checks them once and returns integer-indexed
tables (spaces, cards and nationalities by position).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from warroom.engine.content import Record, load_records, read_yaml, require

CONTENT_DIR = Path(__file__).parent / "content"

BLOCS: tuple[str, ...] = ("soviet", "western", "non_aligned")
BLOC_NAMES: tuple[str, ...] = ("Soviet", "Western", "Non-Aligned")
NATS: tuple[str, ...] = ("soviet", "western", "chinese", "indian", "nationalist")
NAT_BLOC: tuple[int, ...] = (0, 1, 2, 2, 2)
KINDS: tuple[str, ...] = ("army", "navy", "air")
DECKS: tuple[str, ...] = ("red", "maroon", "blue", "green", "gold", "orange")
DECK_BLOC: tuple[int, ...] = (0, 0, 1, 1, 2, 2)
CARD_TYPES: tuple[str, ...] = (
    "build_army",
    "build_navy",
    "land_battle",
    "sea_battle",
    "event",
    "air_power",
    "status",
    "wmd",
    "espionage",
)
WHEN: tuple[str, ...] = (
    "action",
    "air",
    "begin_turn",
    "any_time",
    "after_build_army",
    "after_land_battle",
    "about_to_be_removed",
    "enemy_builds_navy",
    "passive",
)
OPS: frozenset[str] = frozenset(
    {
        "build",
        "recruit",
        "battle",
        "eliminate",
        "air_power",
        "gain_vp",
        "enemy_lose_vp",
        "enemy_discard_hand",
        "enemy_discard_deck",
        "discard_enemy_wmd",
        "each_bloc_discard_deck",
        "each_bloc_discard_wmd_or_lose_vp",
        "supply_token",
        "escalate_enemies",
        "play_type",
        "prepare_type",
        "draw",
        "eliminate_own_armies",
        "protect",
        "choose",
    }
)


class SpaceRecord(Record):
    """One space of the map."""

    id: str
    name: str
    kind: Literal["land", "sea"]
    supply: bool
    adjacent: list[str]


class StraitRecord(Record):
    """A strait: an anchor land space joining two sea spaces."""

    id: str
    anchor: str
    seas: list[str]


class CardRecord(Record):
    """One card: bloc, deck colour, type, nationality, timing, costs and effect data."""

    id: int
    name: str
    bloc: Literal["soviet", "western", "non_aligned"]
    deck: Literal["red", "maroon", "blue", "green", "gold", "orange"]
    type: str
    nationality: str
    text: str
    when: str
    once_per_turn: bool = False
    escalation: int = 0
    escalation_conditional: bool = False
    wmd_cost: int = 0
    target: Literal["none", "one_enemy", "each_enemy"] = "none"
    cost: dict[str, Any] = Field(default_factory=dict)
    effects: list[dict[str, Any]] = Field(default_factory=list)
    passive: dict[str, Any] = Field(default_factory=dict)
    trigger: dict[str, Any] = Field(default_factory=dict)


class SetupModel(BaseModel):
    """The setup document."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    provenance: str
    source: str
    pieces: dict[str, dict[str, int]]
    supply_tokens: dict[str, int]
    start: list[dict[str, str]]
    variants: dict[str, dict[str, Any]]


@dataclass(frozen=True, slots=True)
class Card:
    """A card as the rules use it (indices instead of names)."""

    id: int
    name: str
    bloc: int
    deck: int
    type: str
    nat: int
    when: str
    once: bool
    esc: int
    escq: bool
    wmd_cost: int
    target: str
    cost: dict[str, Any]
    effects: tuple[dict[str, Any], ...]
    passive: dict[str, Any]
    trigger: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Tables:
    """Indexed content."""

    space_ids: tuple[str, ...]
    space_names: tuple[str, ...]
    is_sea: tuple[bool, ...]
    printed_supply: tuple[bool, ...]
    adjacent: tuple[frozenset[int], ...]
    straits: tuple[tuple[int, int, int], ...]
    cards: tuple[Card, ...]
    piece_pool: tuple[tuple[int, int, int], ...]
    token_pool: tuple[int, ...]
    start: tuple[tuple[int, int, int], ...]
    variants: dict[str, tuple[str, tuple[tuple[int, int], ...]]]
    space_records: tuple[SpaceRecord, ...]
    card_records: tuple[CardRecord, ...]
    strait_records: tuple[StraitRecord, ...]
    straits_at: tuple[tuple[tuple[int, int], ...], ...] = ()
    """Per space, its straits as (anchor, the sea at the other end)."""
    supply_always: tuple[frozenset[int], ...] = ()
    """Per card, the `space * 8 + nat` its prepared Status card keeps always in supply."""

    def space(self, space_id: str) -> int:
        """The index of a space id."""
        return self.space_ids.index(space_id)


def _nat(name: str | None) -> int:
    return NATS.index(name) if name in NATS else -1


def _check_effects(path: Path, label: str, effects: list[dict[str, Any]], spaces: set[str]) -> None:
    for effect in effects:
        op = effect.get("op")
        require(op in OPS, path, label, "effects", f"unknown effect primitive {op!r}")
        for key in ("near", "space"):
            if key in effect:
                require(
                    effect[key] in spaces, path, label, "effects", f"unknown space {effect[key]!r}"
                )
        for sid in effect.get("spaces", []):
            require(sid in spaces, path, label, "effects", f"unknown space {sid!r}")
        for branch in effect.get("branches", []):
            _check_effects(path, label, branch, spaces)


@cache
def tables() -> Tables:
    """Load, validate and index every content file (once)."""
    spaces = _spaces(CONTENT_DIR / "spaces.yaml")
    ids = tuple(s.id for s in spaces)
    straits_path = CONTENT_DIR / "straits.yaml"
    straits = load_records(straits_path, StraitRecord)
    strait_rows = _strait_rows(straits_path, straits, ids)
    cards_path = CONTENT_DIR / "cards.yaml"
    cards = load_records(cards_path, CardRecord)
    out_cards = _cards(cards_path, cards, set(ids))
    pool, tokens, start, variants = _setup(CONTENT_DIR / "setup.yaml", ids)
    adjacency = tuple(frozenset(ids.index(a) for a in s.adjacent) for s in spaces)
    straits_at = tuple(
        tuple((anchor, b if i == a else a) for anchor, a, b in strait_rows if i in (a, b))
        for i in range(len(ids))
    )
    return Tables(
        ids,
        tuple(s.name for s in spaces),
        tuple(s.kind == "sea" for s in spaces),
        tuple(s.supply for s in spaces),
        adjacency,
        strait_rows,
        out_cards,
        pool,  # type: ignore[arg-type]
        tokens,
        start,
        variants,
        tuple(spaces),
        tuple(cards),
        tuple(straits),
        straits_at,
        tuple(_supply_always(cards_path, c, ids) for c in out_cards),
    )


def _spaces(path: Path) -> list[SpaceRecord]:
    """The spaces, each adjacency known and listed back."""
    spaces = load_records(path, SpaceRecord)
    ids = [s.id for s in spaces]
    idset = set(ids)
    for s in spaces:
        for a in s.adjacent:
            require(a in idset, path, s.id, "adjacent", f"unknown space {a!r}")
            other = spaces[ids.index(a)]
            require(s.id in other.adjacent, path, s.id, "adjacent", f"{a!r} does not list it back")
    return spaces


def _strait_rows(
    path: Path, straits: list[StraitRecord], ids: tuple[str, ...]
) -> tuple[tuple[int, int, int], ...]:
    """Each strait as (anchor, sea, sea) space indexes."""
    rows: list[tuple[int, int, int]] = []
    for st in straits:
        require(st.anchor in ids and len(st.seas) == 2, path, st.id, "anchor", "bad strait")
        rows.append((ids.index(st.anchor), ids.index(st.seas[0]), ids.index(st.seas[1])))
    return tuple(rows)


DECK_SIZES = {"red": 39, "maroon": 34, "blue": 41, "green": 40, "gold": 32, "orange": 30}


def _cards(path: Path, cards: list[CardRecord], idset: set[str]) -> tuple[Card, ...]:
    """The checked cards: the decks' sizes, ids in order, known types, timings and
    nationalities of the card's own Bloc, and well-formed effects."""
    counts = Counter(c.deck for c in cards)
    require(
        dict(counts) == DECK_SIZES, path, None, "deck", f"deck sizes {dict(counts)} != {DECK_SIZES}"
    )
    out: list[Card] = []
    for index, c in enumerate(cards):
        label = f"{c.id} ({c.name})"
        require(c.id == index, path, label, "id", "ids must be 0..215 in order")
        require(c.type in CARD_TYPES, path, label, "type", f"unknown type {c.type!r}")
        require(c.when in WHEN, path, label, "when", f"unknown timing {c.when!r}")
        require(c.nationality in NATS, path, label, "nationality", "unknown nationality")
        bloc = BLOCS.index(c.bloc)
        require(DECK_BLOC[DECKS.index(c.deck)] == bloc, path, label, "deck", "deck of another bloc")
        require(NAT_BLOC[NATS.index(c.nationality)] == bloc, path, label, "nationality", "bad bloc")
        _check_effects(path, label, c.effects, idset)
        out.append(
            Card(
                c.id,
                c.name,
                bloc,
                DECKS.index(c.deck),
                c.type,
                _nat(c.nationality),
                c.when,
                c.once_per_turn,
                c.escalation,
                c.escalation_conditional,
                c.wmd_cost,
                c.target,
                dict(c.cost),
                tuple(c.effects),
                dict(c.passive),
                dict(c.trigger),
            )
        )
    return tuple(out)


Variants = dict[str, tuple[str, tuple[tuple[int, int], ...]]]


def _setup(
    path: Path, ids: tuple[str, ...]
) -> tuple[
    tuple[tuple[int, ...], ...], tuple[int, ...], tuple[tuple[int, int, int], ...], Variants
]:
    """The piece pool and Supply tokens by nationality, the starting pieces as (nationality,
    kind, space), and the variants' descriptions and seats (Bloc, deck or -1 for all)."""
    setup = SetupModel.model_validate(read_yaml(path))
    pool = tuple(tuple(setup.pieces[n][k] for k in KINDS) for n in NATS)
    tokens = tuple(setup.supply_tokens.get(n, 0) for n in NATS)
    start: list[tuple[int, int, int]] = []
    for row in setup.start:
        require(row["space"] in ids, path, row["space"], "space", "unknown space")
        start.append((NATS.index(row["nat"]), KINDS.index(row["piece"]), ids.index(row["space"])))
    variants: Variants = {}
    for vid, v in setup.variants.items():
        seats = tuple((BLOCS.index(b), -1 if d == "all" else DECKS.index(d)) for b, d in v["seats"])
        variants[vid] = (str(v["description"]), seats)
    return pool, tokens, tuple(start), variants


def _supply_always(path: Path, c: Card, ids: tuple[str, ...]) -> frozenset[int]:
    """A Status card's `supply_always` as `space * 8 + nat` (checked: known nationality and
    spaces)."""
    rule = c.passive.get("supply_always")
    if not rule:
        return frozenset()
    label = f"{c.id} ({c.name})"
    require(
        rule.get("nat") in NATS, path, label, "passive", f"unknown nationality {rule.get('nat')!r}"
    )
    unknown = [sid for sid in rule.get("spaces", []) if sid not in ids]
    require(not unknown, path, label, "passive", f"unknown spaces {unknown}")
    nat = NATS.index(rule["nat"])
    return frozenset(ids.index(sid) * 8 + nat for sid in rule["spaces"])
