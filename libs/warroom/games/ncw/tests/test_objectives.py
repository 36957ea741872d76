"""Objectives: data, the rulebook's references (6.8-6.10) and each condition on a state."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from warroom.engine.errors import ContentError
from warroom.games.ncw import flow, objectives
from warroom.games.ncw import ops as board
from warroom.games.ncw.cards import OBJECTIVES_FILE, load_objectives, objectives_by_number
from warroom.games.ncw.content import REGION_IDS, tables
from warroom.games.ncw.state import CHINA, EU, RUSSIA, US, NcwState

VARIANTS = OBJECTIVES_FILE.parent / "variants.yaml"


def C(name: str) -> int:
    return tables().country_index[name]


def fresh(**control: int) -> NcwState:
    s = flow.new_state(3, "4p")
    for name, power in control.items():
        s.control[C(name)] = power
    return s


def test_all_32_objectives_eight_per_power() -> None:
    objs = objectives_by_number()
    assert sorted(objs) == list(range(1, 33))
    for block, power in enumerate(("China", "US", "Russia", "EU")):
        assert {objs[n].power for n in range(block * 8 + 1, block * 8 + 9)} == {power}
    assert all(9 <= o.vp <= 17 for o in objs.values())
    rebuilt = {n for n, o in objs.items() if o.provenance.value == "reconstructed"}
    assert rebuilt == {25, 26, 27, 28, 30, 32}
    assert "vp" in objs[21].reconstructed_fields


def test_annex_i_values() -> None:
    objs = objectives_by_number()
    stated = {
        1: 17,
        2: 16,
        3: 15,
        4: 14,
        5: 14,
        6: 13,
        7: 11,
        8: 9,
        9: 17,
        10: 15,
        11: 15,
        12: 14,
        13: 13,
        14: 13,
        15: 10,
        16: 10,
        17: 16,
        18: 15,
        19: 15,
        20: 15,
    }
    assert {n: objs[n].vp for n in stated} == stated


def test_references_in_6_8_to_6_10() -> None:
    objs = objectives_by_number()
    assert objs[16].text.startswith("Asia (included Japan, South Korea & Australia)")
    assert objs[24].text == "Europe" and objs[24].power == "Russia"
    assert objs[15].text == "Middle East + Central America"
    assert (
        objs[22].text
        == "Control at least 7 countries between Asia and South East Asia (including 1 GEO)"
    )
    assert objs[6].text.startswith("South East Asia + at least 2 Regional Powers")
    assert objs[31].text == "Europe + Central America" and objs[31].power == "EU"
    assert objs[23].power == "Russia" and objs[29].power == "EU"


def test_variants_withdraw_objectives_of_the_right_power() -> None:
    data = yaml.safe_load(VARIANTS.read_text(encoding="utf-8"))
    objs = objectives_by_number()
    for variant in data["variants"]:
        for n in variant.get("withdrawn_objectives") or []:
            assert objs[int(n)].power not in variant.get("bots", []), (variant["id"], n)


def test_broken_objective_file_names_record_and_field(tmp_path: Path) -> None:
    data = yaml.safe_load(OBJECTIVES_FILE.read_text(encoding="utf-8"))
    data["records"][3]["conditions"][0]["count"] = 0
    path = tmp_path / "objectives.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    with pytest.raises(ContentError) as info:
        load_objectives(path)
    assert info.value.path == str(path) and info.value.record == "#3 (number=4)"
    assert info.value.field is not None and info.value.field.startswith("conditions.0")
    data["records"][3]["conditions"][0]["count"] = 18
    data["records"][3]["power"] = "US"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    with pytest.raises(ContentError, match="belongs to China"):
        load_objectives(path)


def test_region_condition_central_america_example() -> None:
    # 2.1.2.1: the US controls CAM with 4 countries and 7 VPs; Russia has 5 countries, 6 VPs
    s = fresh(
        mexico=US,
        panama=US,
        guatemala=US,
        el_salvador=US,
        cuba=RUSSIA,
        haiti=RUSSIA,
        dominican_rep=RUSSIA,
        honduras=RUSSIA,
        nicaragua=RUSSIA,
    )
    s.prestige[US] = 3
    s.media = 2
    assert objectives.holds(s, US, objectives_by_number()[15].conditions[1])
    s.control[C("iraq")] = US
    assert not objectives.fulfilled(s, US, 15)  # no Middle East
    for name in ("israel", "saudi_arabia", "gulf_states", "jordan"):
        s.control[C(name)] = US
    assert objectives.fulfilled(s, US, 15)
    assert not objectives.fulfilled(s, RUSSIA, 15)  # another power's objective
    assert objectives.fulfilled(s, US, 10) is False
    assert objectives.unmet(s, US, 10) == ["region"]


def test_region_vp_modifier_counts_for_objectives() -> None:
    # 2.3.2: Russia 7 VPs to the US's 6 in a region, but Russia's -1 modifier ties them
    s = fresh(
        brazil=RUSSIA,
        venezuela=RUSSIA,
        ecuador=RUSSIA,
        bolivia=RUSSIA,
        uruguay=RUSSIA,
        argentina=US,
        paraguay=US,
        peru=US,
        chile=US,
    )
    region = REGION_IDS.index("SAM")
    base_us, base_ru = (board.region_vp(s, p, region) for p in (US, RUSSIA))
    s.region_vp_mod[region * 4 + US] = base_ru - base_us - 1  # Russia leads by one, as 7 to 6
    cond = objectives_by_number()[20].conditions[0]
    assert objectives.holds(s, RUSSIA, cond)
    s.region_vp_mod[region * 4 + RUSSIA] = -1
    vps = [board.region_vp(s, p, region) for p in (US, RUSSIA)]
    assert vps[0] == vps[1]
    assert not objectives.holds(s, RUSSIA, cond)


def test_count_type_orbit_and_track_conditions() -> None:
    objs = objectives_by_number()
    s = fresh(india=CHINA, japan=CHINA, pakistan=CHINA, congo=CHINA, indonesia=CHINA, laos=CHINA)
    four, six, eight = objs[4].conditions, objs[6].conditions, objs[8].conditions
    assert objectives.holds(s, CHINA, four[1]) and not objectives.holds(s, CHINA, four[0])
    assert not objectives.holds(s, CHINA, eight[1])  # GEO in ASI, AFR, SEA only
    s.control[C("panama")] = CHINA
    assert objectives.holds(s, CHINA, eight[1])
    s.prestige[CHINA] = 2
    assert not objectives.holds(s, CHINA, six[2])
    s.prestige[CHINA] = 3
    assert objectives.holds(s, CHINA, six[2])
    s.media = -1
    assert not objectives.holds(s, CHINA, objs[7].conditions[2])
    s.media = -2
    assert objectives.holds(s, CHINA, objs[7].conditions[2])
    assert not objectives.holds(s, US, objs[16].conditions[2])
    orbit = [c for c in range(len(s.control)) if board.orbit_owner(s, c) == RUSSIA]
    assert len(orbit) >= 11
    for c in orbit[:10]:
        s.control[c] = RUSSIA
    assert not objectives.holds(s, RUSSIA, objs[18].conditions[0])
    s.control[orbit[10]] = RUSSIA
    assert objectives.holds(s, RUSSIA, objs[18].conditions[0])


def test_control_all_and_any() -> None:
    objs = objectives_by_number()
    s = fresh(caucasian_rep=RUSSIA, ukraine=RUSSIA, belarus=RUSSIA)
    assert objectives.holds(s, RUSSIA, objs[17].conditions[0])
    assert not objectives.holds(s, RUSSIA, objs[17].conditions[1])
    s.control[C("romania")] = RUSSIA
    assert objectives.holds(s, RUSSIA, objs[17].conditions[1])
    s.control[C("belarus")] = EU
    assert not objectives.holds(s, RUSSIA, objs[17].conditions[0])


def test_core_sees_fulfilled_objectives() -> None:
    s = fresh(
        **dict.fromkeys(
            (
                "morocco",
                "algeria",
                "tunisia",
                "libya",
                "mauritania",
                "mali",
                "niger",
                "chad",
                "sudan",
            ),
            US,
        )
    )
    s.objectives[US] = [14]
    assert flow.fulfilled(s, US) == [14]
