"""Card content: load validation, cross-checks, the rulebook's stated facts, deck sizes."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from warroom.engine.errors import ContentError
from warroom.games.ncw.cards import (
    CARDS_FILE,
    DECK_SIZES,
    NUMBER_BLOCKS,
    Card,
    SpendOps,
    cards_by_number,
    load_cards,
    provenance_table,
)
from warroom.games.ncw.content import tables
from warroom.games.ncw.effects import PYTHON_EFFECTS

DOC = Path(__file__).parents[5] / "docs" / "content.md"


def _raw() -> list[dict[str, object]]:
    data = yaml.safe_load(CARDS_FILE.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    records = data["records"]
    assert isinstance(records, list)
    return records


def _write(tmp_path: Path, records: list[dict[str, object]]) -> Path:
    path = tmp_path / "cards.yaml"
    path.write_text(yaml.safe_dump({"records": records}), encoding="utf-8")
    return path


def test_shipped_cards_load_and_pass_cross_checks() -> None:
    cards = load_cards(python_effects=PYTHON_EFFECTS)
    assert len(cards) == sum(DECK_SIZES.values()) == 135
    assert sorted(c.number for c in cards) == list(range(1, 136))


def test_bad_field_names_file_record_and_field(tmp_path: Path) -> None:
    records = _raw()
    records[4] = {**records[4], "ops": 7}
    path = _write(tmp_path, records)
    with pytest.raises(ContentError) as info:
        load_cards(path)
    err = info.value
    assert err.path == str(path)
    assert err.record == "#4 (number=5)"
    assert err.field == "ops"
    assert str(path) in str(err) and "number=5" in str(err)


def test_unknown_effect_field_is_rejected(tmp_path: Path) -> None:
    records = _raw()
    records[0] = {
        **records[0],
        "effect": [{"op": "prestige", "who": "China", "delta": -2, "oops": 1}],
    }
    with pytest.raises(ContentError) as info:
        load_cards(_write(tmp_path, records))
    assert info.value.field is not None and info.value.field.startswith("effect.0")


def test_unknown_country_in_effect_is_rejected(tmp_path: Path) -> None:
    records = _raw()
    records[86] = {
        **records[86],
        "effect": [{"op": "control", "countries": ["belarus", "atlantis"]}],
    }
    with pytest.raises(ContentError) as info:
        load_cards(_write(tmp_path, records))
    assert info.value.record == "#86 (number=87)"
    assert info.value.field == "effect.control"
    assert "atlantis" in info.value.problem


def test_duplicate_number_is_rejected(tmp_path: Path) -> None:
    records = _raw()
    records[7] = {**records[7], "number": 7}
    with pytest.raises(ContentError) as info:
        load_cards(_write(tmp_path, records))
    assert info.value.field == "number"
    assert "duplicate" in info.value.problem


def test_invalid_power_is_rejected(tmp_path: Path) -> None:
    records = _raw()
    records[0] = {**records[0], "power": "Japan"}
    with pytest.raises(ContentError) as info:
        load_cards(_write(tmp_path, records))
    assert info.value.field == "power"


def test_class_rules_are_enforced(tmp_path: Path) -> None:
    records = _raw()
    records[0] = {**records[0], "ops": 2}  # a crisis card with OPs
    with pytest.raises(ContentError, match="crisis"):
        load_cards(_write(tmp_path, records))
    records = _raw()
    records[69] = {**records[69], "ops": 2, "ops_low": 1}  # neutral negative with two values
    with pytest.raises(ContentError, match="neutral negative"):
        load_cards(_write(tmp_path, records))


def test_numbers_stay_in_their_power_block(tmp_path: Path) -> None:
    records = _raw()
    records[0] = {**records[0], "power": "US"}
    with pytest.raises(ContentError, match="block"):
        load_cards(_write(tmp_path, records))


def test_unknown_python_effect_is_rejected(tmp_path: Path) -> None:
    records = _raw()
    records[54] = {**records[54], "effect": [{"op": "python", "name": "nope"}]}
    with pytest.raises(ContentError, match="nope"):
        load_cards(_write(tmp_path, records), python_effects=PYTHON_EFFECTS)


def test_decade_sizes_match_the_documented_sizes() -> None:
    cards = cards_by_number().values()
    for decade, size in DECK_SIZES.items():
        assert sum(1 for c in cards if c.decade == decade) == size
    # 4 players x 4 cards x 3 turns come out of the 1st-decade deck before any reshuffle
    assert DECK_SIZES[1] >= 48


def test_blocks_are_sorted_by_decade() -> None:
    cards = cards_by_number()
    for low, high in NUMBER_BLOCKS.values():
        decades = [cards[n].decade for n in range(low, high + 1)]
        assert decades == sorted(decades)


# (number, name, power, decade, OPs, OPs low) as Annex II and the tutorial deal tables state them
STATED = [
    (1, "Tiananmen Square Massacre", "China", 1, 0, None),
    (2, "Handover Of Hong Kong", "China", 1, 1, None),
    (3, "Consensus Of 1992", "China", 1, 2, None),
    (4, "Shangai Stock Exchange Opening", "China", 1, 2, None),
    (5, "1997 Asian Financial Crisis", "China", 1, 3, None),
    (6, "ASEAN Plus Three", "China", 1, 3, None),
    (7, "The Tibetan Conflict", "China", 1, 1, None),
    (8, "China - Japan Relationship", "China", 1, 2, None),
    (9, "China In The WTO", "China", 2, 1, None),
    (10, "Investment Surge In Africa", "China", 2, 2, None),
    (11, "Beijing 2008 Olympic Games", "China", 2, 2, None),
    (12, "Opening Of Diplomatic Relations In Central America", "China", 2, 2, None),
    (13, "String Of Pearls", "China", 2, 2, None),
    (14, "Underground Great Wall", "China", 2, 2, None),
    (15, "China Doesn't Respect Human Rights", "China", 2, 1, None),
    (16, "Uighur Conflict", "China", 2, 1, None),
    (17, "Raw Material Shortage", "China", 2, 2, None),
    (18, "Chinese Dissent", "China", 2, 2, None),
    (19, "CNC World", "China", 3, 1, None),
    (30, "Gulf Monarchies", "US", 1, 1, None),
    (31, "Atlanta 1996 Olympic Games", "US", 1, 2, None),
    (33, "Suharto", "US", 1, 2, None),
    (35, "US Military Bases", "US", 1, 3, None),
    (36, "Israeli-Palestinian Conflict", "US", 1, 1, None),
    (39, "September 11 Attacks", "US", 2, 0, None),
    (40, "Exercise Malabar", "US", 2, 2, None),
    (41, "Afghanistan And Iraq Wars", "US", 2, 2, 1),
    (64, "War Lords", None, 1, 2, None),
    (70, "India-Pakistan Nuclear Escalation", None, 1, 1, None),
    (71, "Sumatra-Andaman Earthquake", None, 2, 2, None),
    (75, "Boko Haram", None, 2, 1, None),
    (83, "FARC", "Russia", 1, 1, None),
    (87, "CIS", "Russia", 1, 2, None),
    (89, "Mandela", "Russia", 1, 2, None),
    (98, "Beslan Massacre", "Russia", 2, 1, None),
    (99, "Orange Revolution", "Russia", 2, 2, None),
    (109, "Pope John Paul II Visit To Cuba", "EU", 1, 1, None),
    (110, "Schengen Area", "EU", 1, 1, None),
    (111, "Balkan Wars", "EU", 1, 2, 1),
    (114, "Ibero-American Summit", "EU", 1, 2, None),
    (116, "Algerian Civil War", "EU", 1, 2, 1),
    (119, "Industrial Relocation", "EU", 2, 1, None),
    (126, "European Migration Crisis", "EU", 2, 2, 1),
]


@pytest.mark.parametrize(("number", "name", "power", "decade", "ops", "low"), STATED)
def test_stated_card_facts(
    number: int, name: str, power: str | None, decade: int, ops: int, low: int | None
) -> None:
    card = cards_by_number()[number]
    assert (card.name, card.power, card.decade, card.ops, card.ops_low) == (
        name,
        power,
        decade,
        ops,
        low,
    )
    assert card.provenance.value == "rulebook"


def test_stated_classes() -> None:
    cards = cards_by_number()
    assert {n for n, c in cards.items() if c.crisis} >= {1, 39, 82, 130}
    assert all(cards[n].negative for n in (16, 70, 75, 98, 116, 126))
    assert {n: cards[n].war for n in (41, 111)} == {41: "iraq", 111: "balkan_rep"}
    # non-unique (no trash can): 7.1 and 7.2
    assert not any(cards[n].unique for n in (7, 64, 114))
    # unique (removed): 7.1 rounds, 7.2 round 3
    assert all(cards[n].unique for n in (5, 31, 33, 35, 41, 70, 87, 110, 111, 116))
    assert cards[62].not_playable_by == ("US", "Russia")
    assert cards[10].access == ("AFR",) and set(cards[114].access) == {"CAM", "SAM"}
    permanent = {n for n, c in cards.items() if c.permanent}
    assert permanent >= {3, 8, 18, 36, 39, 47, 50, 59, 60, 61, 71, 80, 83, 102}


def test_duplicate_number_rulings() -> None:
    cards = cards_by_number()
    assert cards[7].name == "The Tibetan Conflict" and cards[8].name == "China - Japan Relationship"
    assert cards[71].name == "Sumatra-Andaman Earthquake"
    assert cards[81].name == "Cybernetic Warfare" and "number" in cards[81].reconstructed_fields


def test_every_rulebook_name_is_present() -> None:
    names = {c.name for c in cards_by_number().values()} | {
        a for c in cards_by_number().values() for a in c.aliases
    }
    for name in (
        "Hezbollah",
        "Terrorism In Europe",
        "Coup Attempt",
        "Corralito In Argentina",
        "Annexation Of Crimea",
        "Mubarak",
        "Tsai Ing-Wen",
        "Netanyahu",
        "Trump",
        "Mexico - US Barrier",
        "Fake News",
        "Western Sanctions",
        "Gazprom",
        "Oil Imports",
        "Xi Jinping",
        "Djibouti Military Bases",
        "Iran Nuclear Deal",
        "Erdogan",
        "Yemen Civil War",
        "Saudi Arabia: Preferred Partner",
        "Macron",
        "Pope Francis",
        "Fujimori",
        "Gulf War",
        "Microsoft Empire",
        "Rwandan Genocide",
        "Battle Of Mogadishu",
        "Axis Of Evil",
        "Kyoto Protocol",
        "North Korea Nuclear Crisis",
        "Kurdish Conflict",
        "Peace Talks",
        "UNSC Presidency",
        "Diplomatic Mission",
        "Counter-Insurgency",
        "Warsaw Pact Dissolved",
        "Mugabe",
        "Chechen War",
        "Gaddafi",
        "Syrian Conflict",
        "Barcelona 1992 Olympic Games",
        "German Reunification",
        "Maastricht Treaty",
        "China: New Arms Exporter",
        "New Silk Road",
    ):
        assert name in names, name
    assert sum(1 for c in cards_by_number().values() if c.provenance.value == "rulebook") == 90


def test_ops_steps_come_last() -> None:
    for card in cards_by_number().values():
        assert not any(isinstance(step, SpendOps) for step in card.effect[:-1])


def test_core_reads_the_same_cards() -> None:
    core = tables().cards
    assert set(core) == set(cards_by_number())
    assert core[111].war == tables().country_index["balkan_rep"]
    assert core[126].ops_low == 1 and core[31].ops_low == 2
    assert core[1].crisis and core[1].ops == 0


def _section(text: str, heading: str) -> str:
    start = text.index(heading)
    end = text.find("\n## ", start + len(heading))
    return text[start:] if end < 0 else text[start:end]


def test_content_doc_lists_the_provenance_counts() -> None:
    section = _section(
        DOC.read_text(encoding="utf-8"), "## New Cold War: event cards and objectives"
    )
    assert provenance_table(list(cards_by_number().values())) in section
    from warroom.games.ncw.cards import objectives_by_number

    assert provenance_table(list(objectives_by_number().values())) in section


def test_reconstructed_cards_are_listed_in_the_doc() -> None:
    section = _section(
        DOC.read_text(encoding="utf-8"), "## New Cold War: event cards and objectives"
    )
    for card in cards_by_number().values():
        if card.provenance.value == "reconstructed":
            assert f"| {card.number} | {card.name} |" in section, card.name


def test_card_model_rejects_war_without_second_value() -> None:
    with pytest.raises(ValueError, match="two OPs values"):
        Card.model_validate(
            {
                "number": 32,
                "name": "x",
                "power": "US",
                "decade": 1,
                "ops": 2,
                "war": "iraq",
                "text": "t",
                "effect": [{"op": "vp", "delta": 1}],
                "provenance": "reconstructed",
            }
        )
