"""South Front content: record models, YAML loaders and the indexed tables the rules use.

Every record carries `provenance` (`rulebook` or `reconstructed`) and a `source`. The
tables index spaces, pieces and cards by small integers in file order.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict

from warroom.engine.content import Record, read_yaml, require
from warroom.engine.errors import ContentError

CONTENT_DIR = Path(__file__).parent / "content"
FACTIONS: tuple[str, ...] = ("Germany", "Pact", "UK", "USA", "France")
SIDE_OF_FACTION: tuple[int, ...] = (0, 0, 1, 1, 1)
KINDS: tuple[str, ...] = ("infantry", "tank", "airplane", "fleet", "carrier")
COUNTRIES: tuple[str, ...] = ("Yugoslavia", "Bulgaria", "Greece", "Iraq")
REACTIONS: tuple[str, ...] = (
    "stand_fast",
    "sustain_attack",
    "advance",
    "exchange",
    "retreat",
    "withdraw_navy",
    "anti_air",
    "naval_combat",
)
OPS: frozenset[str] = frozenset(
    {
        "deploy",
        "recruit",
        "follow",
        "move",
        "attack",
        "eliminate",
        "activate",
        "declare_war",
        "vp",
        "draw",
        "pay",
        "another_action",
        "require",
        "malta_depot",
        "supply_flag",
        "enemy_discard",
        "choose",
    }
)


class SpaceRecord(Record):
    """One space of the map."""

    id: str
    name: str
    kind: Literal["land", "water"]
    control: Literal["Axis", "Allies", "Neutral"] | None = None
    desert: bool = False
    star: bool = False
    minor: str | None = None
    mcf: int = 0
    flags: tuple[str, ...] = ()
    reconstructed_fields: tuple[str, ...] = ()


class EdgeRecord(Record):
    """Two adjacent spaces."""

    a: str
    b: str


class StraitRecord(Record):
    """A strait: two sea spaces adjacent for whoever controls the anchor land space."""

    anchor: str
    seas: tuple[str, str]


class FlagRecord(Record):
    """A land Supply Flag (water flags are on the space records)."""

    space: str
    factions: tuple[str, ...]
    marker: str | None = None


class PieceCountRecord(Record):
    """A faction's pieces."""

    faction: str
    infantry: int = 0
    tank: int = 0
    airplane: int = 0
    fleet: int = 0
    carrier: int = 0


class StartRecord(Record):
    """One starting piece."""

    faction: str
    piece: str
    space: str


class ReactionSpec(BaseModel):
    """A card's reaction and its details."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    type: str
    spaces: tuple[str, ...] = ()
    desert: bool = False


class CardRecord(Record):
    """A deck card."""

    id: int
    name: str
    faction: str
    era: Literal["mid", "late"]
    first_game: bool = False
    text: str
    effect: tuple[dict[str, Any], ...]
    reaction: ReactionSpec | None = None
    reconstructed_fields: tuple[str, ...] = ()


class FaceRecord(BaseModel):
    """One side of a Contingency card."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    text: str
    effect: tuple[dict[str, Any], ...]


class ContingencyRecord(Record):
    """A Contingency card with its Initial and Second sides."""

    id: int
    faction: str
    initial: FaceRecord
    second: FaceRecord
    reconstructed_fields: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Card:
    """A card as the rules use it (a Contingency card has two faces)."""

    id: int
    name: str
    faction: int
    side: int
    era: str
    first_game: bool
    text: str
    effect: tuple[dict[str, Any], ...]
    reaction: str
    reaction_spaces: frozenset[int]
    reaction_desert: bool
    contingency: bool = False
    second_name: str = ""
    second_text: str = ""
    second_effect: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True, slots=True)
class Tables:
    """Indexed content."""

    space_ids: tuple[str, ...]
    names: tuple[str, ...]
    water: tuple[bool, ...]
    desert: tuple[bool, ...]
    star: tuple[bool, ...]
    country: tuple[int, ...]
    mcf_start: tuple[int, ...]
    control_start: tuple[int, ...]
    adj: tuple[frozenset[int], ...]
    straits: tuple[tuple[int, int, int], ...]
    flags: tuple[tuple[int, ...], ...]
    bulgaria_flag_factions: frozenset[int]
    country_spaces: tuple[tuple[int, ...], ...]
    piece_faction: tuple[int, ...]
    piece_kind: tuple[int, ...]
    start: tuple[tuple[int, int], ...]
    cards: dict[int, Card]
    deck_cards: tuple[tuple[int, ...], tuple[int, ...]]
    contingency_cards: tuple[tuple[int, ...], tuple[int, ...]]
    rounds: int
    seasons: tuple[str, ...]
    first_year: int
    scoring: frozenset[int]
    late_after: int
    usa_at_war: int
    records: dict[str, tuple[Record, ...]]

    def space(self, space_id: str) -> int:
        """A space index by id."""
        return self.space_ids.index(space_id)


@cache
def _read(path: Path) -> Any:
    """Parse a YAML file with the C loader when present (same results as `read_yaml`)."""
    loader = getattr(yaml, "CSafeLoader", None)
    if loader is None:
        return read_yaml(path)
    try:
        with path.open(encoding="utf-8") as handle:
            return yaml.load(handle, Loader=loader)
    except FileNotFoundError as exc:
        raise ContentError(str(path), None, None, "file not found") from exc
    except yaml.YAMLError as exc:
        raise ContentError(str(path), None, None, f"not valid YAML: {exc}") from exc


def _records(path: Path, key: str, model: type[Any]) -> list[Any]:
    data = _read(path)
    if not isinstance(data, dict) or key not in data:
        raise ContentError(str(path), None, key, "missing section")
    out = []
    for index, raw in enumerate(data[key]):
        try:
            out.append(model.model_validate(raw))
        except Exception as exc:
            raise ContentError(str(path), f"{key}#{index}", None, str(exc)) from exc
    return out


@cache
def tables() -> Tables:
    """Load and validate every content file (cached)."""
    map_path, setup_path, cards_path = (
        CONTENT_DIR / "map.yaml",
        CONTENT_DIR / "setup.yaml",
        CONTENT_DIR / "cards.yaml",
    )
    spaces: list[SpaceRecord] = _records(map_path, "spaces", SpaceRecord)
    edges: list[EdgeRecord] = _records(map_path, "adjacency", EdgeRecord)
    straits: list[StraitRecord] = _records(map_path, "straits", StraitRecord)
    land_flags: list[FlagRecord] = _records(map_path, "flags", FlagRecord)
    counts: list[PieceCountRecord] = _records(setup_path, "pieces", PieceCountRecord)
    start: list[StartRecord] = _records(setup_path, "start", StartRecord)
    cards: list[CardRecord] = _records(cards_path, "cards", CardRecord)
    conts: list[ContingencyRecord] = _records(cards_path, "contingency", ContingencyRecord)
    ids = tuple(s.id for s in spaces)
    require(len(set(ids)) == len(ids), map_path, None, "id", "duplicate space id")
    index = {sid: i for i, sid in enumerate(ids)}
    flags, bulgaria_factions = _flags(map_path, spaces, land_flags, index)
    country = tuple(COUNTRIES.index(s.minor) if s.minor else -1 for s in spaces)
    control = tuple(
        {"Axis": 0, "Allies": 1, "Neutral": -1, None: -2}[s.control if s.kind == "land" else None]
        for s in spaces
    )
    piece_faction, piece_kind = _piece_pool(counts)
    table = _card_table(cards_path, cards, conts, index)
    rounds = _read(setup_path)["rounds"]
    records: dict[str, tuple[Record, ...]] = {
        "spaces": tuple(spaces),
        "adjacency": tuple(edges),
        "straits": tuple(straits),
        "flags": tuple(land_flags),
        "pieces": tuple(counts),
        "start": tuple(start),
        "cards": tuple(cards),
        "contingency": tuple(conts),
    }
    return Tables(
        space_ids=ids,
        names=tuple(s.name for s in spaces),
        water=tuple(s.kind == "water" for s in spaces),
        desert=tuple(s.desert for s in spaces),
        star=tuple(s.star for s in spaces),
        country=country,
        mcf_start=tuple(s.mcf for s in spaces),
        control_start=control,
        adj=_adjacency(map_path, edges, index),
        straits=tuple(
            (_space(index, map_path, s.anchor, s.anchor), index[s.seas[0]], index[s.seas[1]])
            for s in straits
        ),
        flags=flags,
        bulgaria_flag_factions=bulgaria_factions,
        country_spaces=tuple(
            tuple(i for i, c in enumerate(country) if c == n) for n in range(len(COUNTRIES))
        ),
        piece_faction=piece_faction,
        piece_kind=piece_kind,
        start=tuple(
            (
                FACTIONS.index(s.faction) * 8 + KINDS.index(s.piece),
                _space(index, setup_path, s.space, s.space),
            )
            for s in start
        ),
        cards=table,
        deck_cards=(_side_cards(table, 0, False), _side_cards(table, 1, False)),
        contingency_cards=(_side_cards(table, 0, True), _side_cards(table, 1, True)),
        rounds=int(rounds["count"]),
        seasons=tuple(rounds["seasons"]),
        first_year=int(rounds["first_year"]),
        scoring=frozenset(int(r) for r in rounds["scoring"]),
        late_after=int(rounds["late_cards_after"]),
        usa_at_war=int(rounds["usa_at_war"]),
        records=records,
    )


def _side_cards(table: dict[int, Card], side: int, contingency: bool) -> tuple[int, ...]:
    """The ids of a side's deck cards, or of its Contingency cards, in order."""
    return tuple(
        sorted(c.id for c in table.values() if c.side == side and c.contingency == contingency)
    )


def _space(index: dict[str, int], path: Path, record: str, sid: str) -> int:
    """A space index, or a ContentError naming the record."""
    require(sid in index, path, record, "space", f"unknown space {sid!r}")
    return index[sid]


def _adjacency(
    path: Path, edges: list[EdgeRecord], index: dict[str, int]
) -> tuple[frozenset[int], ...]:
    """Each space's neighbours (an edge listed twice is an error)."""
    adj: list[set[int]] = [set() for _ in index]
    for e in edges:
        label = f"{e.a}-{e.b}"
        a, b = _space(index, path, label, e.a), _space(index, path, label, e.b)
        require(b not in adj[a], path, label, "b", "duplicate edge")
        adj[a].add(b)
        adj[b].add(a)
    return tuple(frozenset(a) for a in adj)


def _flags(
    path: Path, spaces: list[SpaceRecord], land_flags: list[FlagRecord], index: dict[str, int]
) -> tuple[tuple[tuple[int, ...], ...], frozenset[int]]:
    """By faction, the spaces its flag marks (printed, and the flag markers' spaces), and the
    factions of the Bulgaria marker."""
    flags: list[list[int]] = [[] for _ in FACTIONS]
    for i, s in enumerate(spaces):
        for fname in s.flags:
            flags[FACTIONS.index(fname)].append(i)
    bulgaria: set[int] = set()
    for fl in land_flags:
        sp = _space(index, path, fl.space, fl.space)
        for fname in fl.factions:
            if fl.marker == "bulgaria":
                bulgaria.add(FACTIONS.index(fname))
            else:
                flags[FACTIONS.index(fname)].append(sp)
    return tuple(tuple(f) for f in flags), frozenset(bulgaria)


def _piece_pool(counts: list[PieceCountRecord]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Every piece of the game as its faction and its kind."""
    factions: list[int] = []
    kinds: list[int] = []
    for count in counts:
        fi = FACTIONS.index(count.faction)
        for ki, kind_name in enumerate(KINDS):
            for _ in range(getattr(count, kind_name)):
                factions.append(fi)
                kinds.append(ki)
    return tuple(factions), tuple(kinds)


def _card_table(
    path: Path,
    cards: list[CardRecord],
    conts: list[ContingencyRecord],
    index: dict[str, int],
) -> dict[int, Card]:
    """The 72 cards by id, the Contingency cards with both their sides; effects and
    reactions checked."""
    table: dict[int, Card] = {}
    for c in cards:
        _check_effect(path, c.id, c.effect, index)
        r = c.reaction
        if r is not None:
            require(r.type in REACTIONS, path, str(c.id), "reaction", "unknown reaction")
        f = FACTIONS.index(c.faction)
        table[c.id] = Card(
            c.id,
            c.name,
            f,
            SIDE_OF_FACTION[f],
            c.era,
            c.first_game,
            c.text,
            c.effect,
            r.type if r else "",
            frozenset(index[s] for s in r.spaces) if r else frozenset(),
            r.desert if r else False,
        )
    for k in conts:
        _check_effect(path, k.id, k.initial.effect, index)
        _check_effect(path, k.id, k.second.effect, index)
        f = FACTIONS.index(k.faction)
        table[k.id] = Card(
            k.id,
            k.initial.name,
            f,
            SIDE_OF_FACTION[f],
            "",
            False,
            k.initial.text,
            k.initial.effect,
            "",
            frozenset(),
            False,
            True,
            k.second.name,
            k.second.text,
            k.second.effect,
        )
    require(len(table) == 72, path, None, None, f"expected 72 cards, found {len(table)}")
    return table


_FILTER_KEYS = frozenset({"in", "near", "adjacent", "desert", "kind", "near_tag", "adjacent_piece"})


def _check_effect(
    path: Path, card: int, steps: tuple[dict[str, Any], ...], index: dict[str, int]
) -> None:
    for step in steps:
        op = step.get("op")
        require(op in OPS, path, str(card), "effect", f"unknown op {op!r}")
        for key in ("at", "into", "target"):
            flt = step.get(key)
            if flt is None:
                continue
            require(set(flt) <= _FILTER_KEYS, path, str(card), key, f"bad filter keys {set(flt)}")
            for lk in ("in", "near", "adjacent"):
                for sid in flt.get(lk, ()):
                    require(sid in index, path, str(card), key, f"unknown space {sid!r}")
        if op == "choose":
            for option in step["options"]:
                _check_effect(path, card, tuple(option), index)


def provenance_counts() -> dict[str, dict[str, int]]:
    """Records per provenance for each content section (docs/content.md)."""
    out: dict[str, dict[str, int]] = {}
    for name, records in tables().records.items():
        counts = {"rulebook": 0, "reconstructed": 0}
        for r in records:
            counts[r.provenance.value] += 1
        out[name] = counts
    return out


def provenance_table() -> str:
    """The markdown table of records per provenance (kept in docs/content.md)."""
    lines = ["| section | rulebook | reconstructed | total |", "|---|---:|---:|---:|"]
    total = [0, 0]
    for name, counts in provenance_counts().items():
        rb, rc = counts["rulebook"], counts["reconstructed"]
        total[0] += rb
        total[1] += rc
        lines.append(f"| {name} | {rb} | {rc} | {rb + rc} |")
    lines.append(f"| all | {total[0]} | {total[1]} | {sum(total)} |")
    return "\n".join(lines)


def reconstructed_fields_table() -> str:
    """Rulebook records with some fields reconstructed (kept in docs/content.md)."""
    t = tables()
    lines = ["| record | reconstructed fields |", "|---|---|"]
    for name in ("spaces", "cards", "contingency"):
        for r in t.records[name]:
            fields = getattr(r, "reconstructed_fields", ())
            if r.provenance.value == "rulebook" and fields:
                label = getattr(r, "name", None) or getattr(r, "id", "")
                if isinstance(r, ContingencyRecord):
                    label = r.initial.name
                lines.append(f"| {name}: {label} | {', '.join(fields)} |")
    return "\n".join(lines)
