"""The core honours the cards' standing effects: 18-Chinese Dissent, 80-Fake News, bans, multi-target wars."""

from __future__ import annotations

from warroom.games.ncw import flow
from warroom.games.ncw.content import tables
from warroom.games.ncw.state import (
    BLUE,
    CHINA,
    EU,
    OPF_CONTROL_ONLY,
    RED,
    RUSSIA,
    US,
    Block,
    Frame,
    NcwState,
)
from warroom.games.ncw.tests.helpers import blank, cid, give, options, with_ops

TRACKS = {"prestige", "media", "media_reserve"}


def _ops_ids(s: NcwState, power: int, ops: int) -> set[str]:
    return set(options(with_ops(s, power, ops), power))


def test_chinese_dissent_freezes_chinas_track_actions_by_ops() -> None:
    s = blank()
    assert _ops_ids(s, CHINA, 3) >= TRACKS
    s = blank()
    s.flags["perm:chinese_dissent"] = s.turn + 1
    assert not TRACKS & _ops_ids(s, CHINA, 3)
    assert "reserve" in _ops_ids(s, CHINA, 3)
    assert _ops_ids(s, RUSSIA, 3) >= TRACKS
    s.turn += 2
    assert _ops_ids(s, CHINA, 3) >= TRACKS


def _check(fake_by: int | None) -> NcwState:
    s = blank()
    s.prestige = [0, 0, 0, 0]
    s.media = 0
    if fake_by is not None:
        s.flags["perm:fake_news_prestige"] = 99
        s.flags["perm:fake_news_prestige:by"] = fake_by
    s.stack.clear()
    flow.prestige_check(s, flow.Ctx())
    return s


def test_fake_news_lowers_the_opponents_prestige_at_the_next_check_only() -> None:
    """Annex III: "Apply -1 (PP) for your opponents"; 3.1: the ally is an opponent too."""
    rows = tables().prestige_rows
    plain, faked = _check(None), _check(US)
    gain = [faked.vp[p] - plain.vp[p] for p in range(4)]
    assert gain[US] == 0
    for p in (EU, CHINA, RUSSIA):
        assert (faked.vp[p] - 20, plain.vp[p] - 20) == (rows[-1].vp, rows[0].vp)
        assert (faked.op_reserve[p], plain.op_reserve[p]) == (rows[-1].op_reserve, 0) == (-1, 0)
    assert faked.op_reserve[US] == 0
    assert faked.flags["perm:fake_news_prestige"] == 0
    again = faked.clone()
    again.stack.clear()
    before = again.vp[:]
    flow.prestige_check(again, flow.Ctx())
    assert [again.vp[p] - before[p] for p in range(4)] == [plain.vp[p] - 20 for p in range(4)]


def test_fake_news_moves_the_media_marker_virtually_at_global_scoring() -> None:
    s = blank()
    s.media = 1
    s.flags["perm:fake_news_scoring"] = 99
    s.flags["perm:fake_news_scoring:by"] = RUSSIA
    s.stack.clear()
    flow.media_benefits(s, flow.Ctx())
    assert s.media == 1
    assert {f.seat for f in s.stack} == {CHINA, RUSSIA}
    assert all(f.kind == "media_benefit" and f.flags == 1 for f in s.stack)
    assert s.flags["perm:fake_news_scoring"] == 0


def test_a_ban_on_influence_also_forbids_stability_tokens_by_ops() -> None:
    s = blank()
    give(s, "US", "japan")
    assert {"pos:japan", "token:japan"} <= _ops_ids(s, CHINA, 4)
    s = blank()
    give(s, "US", "japan")
    s.blocks.append(Block(1 << CHINA, country=cid("japan"), ops_only=False, tag="china_japan"))
    ids = _ops_ids(s, CHINA, 4)
    assert not {"pos:japan", "coup:japan", "token:japan"} & ids
    assert "token:japan" in _ops_ids(s, RUSSIA, 4)


def test_a_war_on_two_countries_is_playable_while_either_is_free() -> None:
    war = next(n for n, c in tables().cards.items() if len(flow.war_targets(n)) > 1)
    owner = tables().cards[war].power
    a, b = flow.war_targets(war)
    s = blank()
    s.control[a] = owner
    s.control[b] = RUSSIA if owner != RUSSIA else US
    assert not flow.war_held(s, war, owner)
    s.control[b] = -1
    assert not flow.war_held(s, war, owner)
    s.control[b] = owner
    assert flow.war_held(s, war, owner)
    assert not flow.event_playable(s, war, owner)


def test_ops_frame_reads_bloc_constants() -> None:
    assert (BLUE, RED) == (0, 1) and Frame("ops").kind == "ops" and OPF_CONTROL_ONLY
