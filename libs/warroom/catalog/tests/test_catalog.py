"""The catalogue: generated deterministically, versioned by content, every view id resolves."""

from __future__ import annotations

import random
import shutil
from pathlib import Path
from typing import Any

import pytest

from warroom import catalog
from warroom.catalog import check, common
from warroom.catalog.build import SOURCES
from warroom.engine.model import UNDO_OPTION_ID
from warroom.engine.registry import get_rules
from warroom.v1 import catalog_pb2

GAMES = ["ncw", "qmg_cw", "qmg_sf"]
STEPS = {"ncw": 160, "qmg_cw": 220, "qmg_sf": 220}
OPTIONAL = {"token_code", "piece"}  # supply tokens and carried pieces may not occur early


def _views_of_play(rules_id: str, variant: str, seed: int, steps: int) -> list[tuple[int, Any]]:
    """Play a seeded random game `steps` decisions; collect every seat's and the spectator's views."""
    rules = get_rules(rules_id)
    rng = random.Random(seed)
    state = rules.setup(seed, variant, {})
    seats = range(len(rules.seats(state)))
    views: list[tuple[int, Any]] = []
    for step in range(steps):
        if step % 10 == 0:
            views += [(seat, rules.view(state, seat)) for seat in seats]
            views.append((-1, rules.view(state, None)))
        decision = rules.decision(state)
        if decision is None:
            break
        seat = min(decision.options)
        options = [o for o in decision.options[seat] if o.id != UNDO_OPTION_ID]
        state = rules.apply(state, seat, rng.choice(options).id).state
    views += [(seat, rules.view(state, seat)) for seat in seats]
    return views


@pytest.mark.parametrize("rules_id", GAMES)
def test_every_view_id_resolves(rules_id: str) -> None:
    """Every card, objective, space, side and piece id of every seat's view is in the catalogue."""
    cat = catalog.catalog(rules_id)
    for variant in cat.variants[:2]:
        views = _views_of_play(rules_id, variant.id, 11, STEPS[rules_id])
        refs = [ref for _, view in views for ref in check.references(cat, view)]
        cards = [value for _, refers_to, value in refs if refers_to == "card" and value]
        assert cards, "a played game shows some cards"
        assert {r for _, r, _ in refs} >= {r.refers_to for r in cat.view_fields} - OPTIONAL
        for seat, view in views:
            missing = check.unresolved(cat, view)
            assert not missing, f"{rules_id} {variant.id} seat {seat}: {missing[:5]}"


@pytest.mark.parametrize("rules_id", GAMES)
def test_unresolved_catches_an_unknown_id(rules_id: str) -> None:
    """The check can fail: a catalogue without its cards leaves the hand unresolved."""
    cat = catalog_pb2.Catalog()
    cat.CopyFrom(catalog.catalog(rules_id))
    del cat.cards[:]
    views = _views_of_play(rules_id, cat.variants[0].id, 3, 40)
    assert any(check.unresolved(cat, view) for _, view in views)


@pytest.mark.parametrize("rules_id", GAMES)
def test_generation_is_deterministic(rules_id: str) -> None:
    first, second = catalog.generate(rules_id), catalog.generate(rules_id)
    assert first.SerializeToString(deterministic=True) == second.SerializeToString(
        deterministic=True
    )
    assert first.content_version == second.content_version
    assert len(first.content_version) == 16
    assert catalog.catalog(rules_id) is catalog.catalog(rules_id)


def test_versions_differ_between_games() -> None:
    assert len({catalog.content_version(g) for g in GAMES}) == len(GAMES)
    assert catalog.content_version("toy") == ""


def test_content_version_changes_with_content(tmp_path: Path) -> None:
    """Editing a content file, or any catalogue fact, gives another version."""
    copy = tmp_path / "content"
    shutil.copytree(SOURCES["qmg_sf"].content_dir, copy)
    cat = catalog.catalog("qmg_sf")
    before = common.content_version(cat, common.files_digest(copy))
    assert before == cat.content_version
    cards = copy / "cards.yaml"
    cards.write_text(cards.read_text().replace("Rock of Gibraltar", "Rock Of Gibraltar"))
    assert common.content_version(cat, common.files_digest(copy)) != before
    changed = catalog_pb2.Catalog()
    changed.CopyFrom(cat)
    changed.cards[0].name = "Renamed"
    assert (
        common.content_version(changed, common.files_digest(SOURCES["qmg_sf"].content_dir))
        != before
    )


@pytest.mark.parametrize("rules_id", GAMES)
def test_records_are_complete(rules_id: str) -> None:
    """Cards carry name, text, owner and provenance; variants carry seats with sides and teams."""
    cat = catalog.catalog(rules_id)
    assert cat.title and cat.cards and cat.variants and cat.bot_kinds
    for card in cat.cards:
        assert card.name and card.text and card.faces, card.id
        assert card.provenance.provenance in ("rulebook", "reconstructed"), card.id
    side_ids = {s.id for s in cat.sides}
    for variant in cat.variants:
        assert len(variant.seats) == variant.seat_count
        for seat in variant.seats:
            assert seat.side and seat.team and seat.side_id in side_ids, (variant.id, seat)
    assert sum(v.is_default for v in cat.variants) == 1
    assert {b.kind for b in cat.bot_kinds} >= {"random", "heuristic", "ismcts"}
    space_ids = {s.id for s in cat.map.spaces}
    for adjacency in cat.map.adjacencies:
        assert {adjacency.a, adjacency.b} <= space_ids
    for region in cat.map.regions:
        assert set(region.members) <= space_ids
    assert [s.index for s in cat.map.spaces] == list(range(len(cat.map.spaces)))


def test_ncw_facts() -> None:
    """Spot checks against the content files: a card, a country, a region, the official bots."""
    cat = catalog.catalog("ncw")
    card = next(c for c in cat.cards if c.id == 1)
    assert card.name == "Tiananmen Square Massacre" and card.owner == "China"
    assert "crisis" in card.classes and card.ops == 0
    cuba = next(s for s in cat.map.spaces if s.id == "cuba")
    assert cuba.orbit == "Russia" and cuba.subregion == "caribbean"
    assert dict(cuba.stability) == {"blue": 3, "red": 2}
    cam = next(r for r in cat.map.regions if r.id == "CAM")
    assert cam.min_countries == 4 and {r.side: r.vp for r in cam.rewards}["Russia"] == 5
    assert "ncw-official" in {b.kind for b in cat.bot_kinds}
    assert len(cat.objectives) == 32
    solo = next(v for v in cat.variants if v.id == "solitaire-us")
    assert solo.player_count == 1 and sum(s.automated for s in solo.seats) == 3


def test_qmg_facts() -> None:
    cw = catalog.catalog("qmg_cw")
    assert "ncw-official" not in {b.kind for b in cw.bot_kinds}
    strait = next(a for a in cw.map.adjacencies if a.kind == "strait" and a.via == "spain")
    assert {strait.a, strait.b} == {"north_atlantic", "mediterranean"}
    army = next(p for p in cw.piece_types if p.id == "soviet_army")
    assert army.count == 13 and army.code == 0
    sf = catalog.catalog("qmg_sf")
    contingency = [c for c in sf.cards if "contingency" in c.classes]
    assert len(contingency) == 6 and all(len(c.faces) == 2 for c in contingency)
    assert (
        sum(len(p.piece_ids) for p in sf.piece_types) == 1 + 12 + 11 + 6 + 12
    )  # France, UK, USA, Germany, Pact


@pytest.mark.parametrize("rules_id", GAMES)
def test_layout_is_legible(rules_id: str) -> None:
    """Every space has a point inside the drawing, and no two points crowd each other."""
    cat = catalog.catalog(rules_id)
    points = [(s.id, s.layout.x, s.layout.y) for s in cat.map.spaces]
    assert cat.map.width > 0 and cat.map.layout_provenance.provenance == "reconstructed"
    for sid, x, y in points:
        assert 0 < x < cat.map.width and 0 < y < cat.map.height, sid
    gap = min(
        ((ax - bx) ** 2 + (ay - by) ** 2) ** 0.5
        for i, (_, ax, ay) in enumerate(points)
        for (_, bx, by) in points[i + 1 :]
    )
    assert gap >= 50


def test_layout_file_must_cover_every_space(tmp_path: Path) -> None:
    from warroom.engine.errors import ContentError

    (tmp_path / "layout.yaml").write_text(
        "provenance: reconstructed\nwidth: 10\nheight: 10\nspaces:\n  a: {x: 1, y: 1}\n"
    )
    with pytest.raises(ContentError, match="no coordinates"):
        common.load_layout(tmp_path, ["a", "b"])
    with pytest.raises(ContentError, match="unknown spaces"):
        common.load_layout(tmp_path, [])


def test_version_is_stable_across_processes() -> None:
    """Another process (another hash seed) computes the same versions: replicas agree."""
    import os
    import subprocess
    import sys

    code = "from warroom import catalog; print([catalog.content_version(g) for g in catalog.rules_ids()])"
    outputs = {
        subprocess.run(
            [sys.executable, "-c", code],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
            timeout=120,
        ).stdout.strip()
        for seed in ("1", "2")
    }
    assert outputs == {str([catalog.content_version(g) for g in GAMES])}
