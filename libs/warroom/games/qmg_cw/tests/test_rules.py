"""Setup, team play, views, straits, scoring, running out of cards, content and evaluate."""

from __future__ import annotations

from collections import Counter

import pytest

from warroom.engine.registry import get_rules
from warroom.games.qmg_cw import board
from warroom.games.qmg_cw.content import tables
from warroom.games.qmg_cw.flow import Ctx
from warroom.games.qmg_cw.scoring import phase_points, scoring_phase
from warroom.games.qmg_cw.state import NA, SOV, WEST, CwState
from warroom.games.qmg_cw.v1 import qmg_cw_pb2 as pb

from .helpers import RULES, act, cid, give, kind, options, pc, scenario, sp


def test_registry_and_variants() -> None:
    """Registered as qmg_cw with 3-6 player variants; teammates share their bloc's team."""
    rules = get_rules("qmg_cw")
    assert [v.seats for v in rules.variants()] == [3, 4, 5, 6]
    state = rules.setup(1, "5p", {})
    teams = [s.team for s in rules.seats(state)]
    assert teams == ["western", "western", "soviet", "non_aligned", "non_aligned"]


def test_content_counts() -> None:
    """216 cards with the stated deck sizes; 59 pieces; map symmetric and the stated non-adjacencies."""
    t = tables()
    assert len(t.cards) == 216
    assert Counter(c.bloc for c in t.cards) == {0: 73, 1: 81, 2: 62}
    assert sum(sum(row) for row in t.piece_pool) == 59
    assert t.token_pool[:3] == (6, 6, 2)
    for a, b in [
        ("siberia", "korea"),
        ("manchuria", "north_pacific"),
        ("china", "korea"),
        ("tibet", "southeast_asia"),
        ("szechuan", "india"),
    ]:
        assert sp(b) not in t.adjacent[sp(a)]
    assert {sp("north_pacific"), sp("south_pacific")} <= t.adjacent[sp("east_pacific")]
    assert t.printed_supply[sp("china")] and t.printed_supply[sp("moscow")]


@pytest.mark.parametrize(
    ("variant", "draw", "spies"), [("3p", 12, 2), ("4p", 10, 1), ("6p", 10, 1)]
)
def test_opening_draw(variant: str, draw: int, spies: int) -> None:
    """Whole Bloc: 12 drawn, 2 Espionage face down, 3 to the bottom; with a teammate 10 / 1 / 2."""
    state = RULES.setup(3, variant, {})
    assert kind(state) == "open"
    seat = len(state.seats) - 1
    assert len(state.seats[seat].opening) == draw
    deck_before = len(state.seats[seat].deck)
    for _ in range(spies):
        state = act(state, seat, next(o for o in options(state, seat) if o.startswith("esp:")))
    bottoms = []
    for _ in range(draw - 7 - spies):
        option = options(state, seat)[0]
        bottoms.append(int(option.split(":")[1]))
        state = act(state, seat, option)
    player = state.seats[seat]
    assert len(player.hand) == 7 and len(player.espionage) == spies
    assert player.deck[deck_before:] == bottoms


def test_redraw_until_enough_espionage() -> None:
    """Every opening draw holds the required Espionage cards (redraws are revealed)."""
    for seed in range(20):
        state = RULES.setup(seed, "3p", {})
        for seat in state.seats:
            assert sum(1 for c in seat.opening if tables().cards[c].type == "espionage") >= 2


def _play_opening(state: CwState) -> CwState:
    while kind(state) == "open":
        decision = RULES.decision(state)
        assert decision is not None
        seat = decision.seats[0]
        state = act(state, seat, options(state, seat)[0])
    return state


def test_team_air_step_one_teammate_and_give() -> None:
    """With a teammate only one may act in the Air step, but one teammate's pass leaves the
    step to the other (independent seats); in the Discard step one may give a card."""
    state = _play_opening(RULES.setup(5, "6p", {}))
    assert kind(state) == "begin"
    decision = RULES.decision(state)
    assert decision is not None and decision.seats == (2, 3)
    state = act(state, 2, "done")
    state = act(state, 3, "done")
    assert kind(state) == "air"
    state = act(state, 3, "pass")
    decision = RULES.decision(state)
    assert decision is not None and decision.kind == "air" and decision.seats == (2,)
    state = act(state, 2, "pass")
    assert kind(state) == "action"
    state = act(state, 2, "pass")
    state = act(state, 3, "pass")
    state.stack[-1:] = []
    from warroom.games.qmg_cw.state import Frame

    state.stack.append(Frame("discard_step", bloc=SOV, mask=state.bloc_mask(SOV)))
    card = state.seats[2].hand[0]
    state = act(state, 2, f"give:{card}")
    assert card in state.seats[3].hand and card not in state.seats[2].hand


def test_views_hide_hands_espionage_and_decks_even_from_teammates() -> None:
    """A seat sees its own hand and Espionage cards; teammates and opponents only see counts."""
    state = _play_opening(RULES.setup(7, "6p", {}))
    view = RULES.view(state, 2)
    assert isinstance(view, pb.View)
    assert list(view.seats[2].hand) == state.seats[2].hand
    assert list(view.seats[2].espionage) == state.seats[2].espionage
    assert list(view.seats[3].hand) == [] and view.seats[3].hand_count == 7
    assert list(view.seats[3].espionage) == [] and view.seats[3].espionage_count == 1
    spectator = RULES.view(state, None)
    assert isinstance(spectator, pb.View)
    assert all(list(s.hand) == [] for s in spectator.seats)
    sampled = RULES.determinize(view, 2, 99)
    assert sampled.seats[2].hand == state.seats[2].hand
    assert RULES.view(sampled, 2) == view
    others = [RULES.determinize(view, 2, s).seats[3].hand for s in range(5)]
    assert len({tuple(h) for h in others}) > 1
    assert sampled.rng != state.rng


def test_apply_does_not_mutate_and_rejects_illegal() -> None:
    """apply returns a new state and leaves its input alone; an illegal option raises."""
    from warroom.engine.errors import IllegalOptionError

    state = RULES.setup(2, "3p", {})
    before = RULES.encode_bytes(state)
    option = options(state, 0)[0]
    RULES.apply(state, 0, option)
    assert RULES.encode_bytes(state) == before
    with pytest.raises(IllegalOptionError):
        RULES.apply(state, 0, "nonsense")


def test_strait_closed_by_enemy_army() -> None:
    """Two sea spaces joined by a strait are adjacent unless an enemy Army holds the anchor."""
    state = scenario()
    med, black = sp("mediterranean"), sp("black_sea")
    assert black in board.neighbours(state, med, WEST)
    state.pieces = [pc("turkey", "soviet", "army")]
    assert black not in board.neighbours(state, med, WEST)
    assert black in board.neighbours(state, med, SOV)


def test_scoring_phase_counts_armies_symbols_tokens_and_status() -> None:
    """1 VP per Army, +1 alone on a Supply symbol (printed or own token), + Status bonuses."""
    state = scenario(
        pieces=[
            ("moscow", "soviet", "army"),
            ("balkans", "soviet", "army"),
            ("germany", "soviet", "army"),
            ("germany", "western", "army"),
            ("north_atlantic", "western", "navy"),
            ("middle_east", "nationalist", "army"),
        ]
    )
    state.tokens = [sp("balkans") * 8 + 0]
    give(state, 2, "prepared", [cid("Arab League")])
    assert phase_points(state) == [3 + 2, 1, 1 + 1]
    ctx = Ctx()
    state.round = 2
    scoring_phase(state, ctx)
    assert state.vp == [5, 1, 2] and not state.over


def test_round_19_ends_with_tiebreak_by_cards() -> None:
    """After round 19 most VPs wins; a tie goes to the most undiscarded cards."""
    state = scenario()
    state.round = 19
    state.vp = [10, 10, 5]
    state.seats[0].discard_down = state.seats[0].deck[:5]
    del state.seats[0].deck[:5]
    scoring_phase(state, Ctx())
    assert state.over and state.winners == [WEST]
    result = RULES.result(state)
    assert result is not None and result.winners == frozenset({1}) and result.ranks[1] == 0


def test_own_card_needs_cards_to_discard() -> None:
    """NATO needs 3 cards in hand; McCarthyism needs a draw deck (no VP penalty for own cards)."""
    state = scenario(active=WEST)
    nato, mccarthy = cid("NATO"), cid("McCarthyism and the Red Scare")
    give(state, 1, "prepared", [nato])
    give(state, 1, "espionage", [mccarthy])
    give(state, 1, "hand", [cid("Build Army", 0, WEST), cid("Build Army", 1, WEST)])
    assert f"use:{nato}" not in options(state, 1)
    assert f"use:{mccarthy}" in options(state, 1)
    state.seats[1].discard_down.extend(state.seats[1].deck)
    state.seats[1].deck = []
    assert f"use:{mccarthy}" not in options(state, 1)


def test_enemy_wmd_discard_shortfall_costs_vp() -> None:
    """An enemy WMD demanding discards the Bloc cannot make costs 1 VP per missing card."""
    state = scenario(pieces=[("germany", "soviet", "army"), ("germany", "western", "army")])
    kondensator = cid("Kondensator Rocket Artillery")
    give(state, 0, "prepared", [kondensator])
    give(state, 1, "hand", [cid("Build Army", 0, WEST)])
    state.vp = [10, 10, 0]
    state = act(state, 0, f"use:{kondensator}")
    state = act(state, 0, f"t:{WEST}")
    state = act(state, 0, f"x:{pc('germany', 'western', 'army')}")
    state = act(state, 1, "pass")
    assert state.vp[WEST] == 8
    state = act(state, 1, options(state, 1)[0])
    assert state.seats[1].hand == []


def test_supply_step_removes_out_of_supply_unless_paid() -> None:
    """Out-of-supply Armies go in the Supply step unless Organic Supply is paid."""
    state = scenario(
        pieces=[
            ("korea", "western", "army"),
            ("japan", "western", "army"),
            ("philippines", "western", "army"),
        ],
        active=WEST,
        step="supply",
    )
    give(state, 1, "hand", [cid("Build Army", 0, WEST)])
    korea, phil = pc("korea", "western", "army"), pc("philippines", "western", "army")
    assert set(options(state, 1)) == {f"organic:{korea}", f"organic:{phil}", "done"}
    state = act(state, 1, f"organic:{korea}")
    state = act(state, 1, options(state, 1)[0])
    state = act(state, 1, "done")
    assert korea in state.pieces and phil not in state.pieces


def test_air_strike_shielded_by_air_force() -> None:
    """An Air Strike may not hit an Army sharing its space with its Bloc's Air Force."""
    from warroom.games.qmg_cw.air import strike_targets

    state = scenario(
        pieces=[
            ("france", "western", "army"),
            ("france", "western", "air"),
            ("germany", "soviet", "army"),
            ("germany", "soviet", "air"),
            ("italy", "soviet", "army"),
        ]
    )
    targets = strike_targets(state, WEST, 1)
    assert pc("germany", "soviet", "air") in targets
    assert pc("germany", "soviet", "army") not in targets
    assert pc("italy", "soviet", "army") in targets


def test_orphan_air_force_relocates_or_dies() -> None:
    """An Air Force left without its Army: eliminate it or discard to move it next door."""
    state = scenario(
        pieces=[
            ("france", "western", "army"),
            ("france", "western", "air"),
            ("italy", "western", "army"),
            ("france", "soviet", "army"),
        ]
    )
    land_battle = cid("Land Battle", 0, SOV)
    give(state, 0, "hand", [land_battle])
    give(state, 1, "hand", [cid("Build Army", 0, WEST)])
    state.stack[-1] = state.stack[-1].__class__("action", bloc=SOV, mask=1)
    state.stack[-2] = state.stack[-2].__class__("turn", bloc=SOV, pc=3)
    state.pieces.append(pc("germany", "soviet", "army"))
    state.pieces.sort()
    state = act(state, 0, f"play:{land_battle}")
    state = act(state, 0, f"x:{pc('france', 'western', 'army')}")
    state = act(state, 1, "pass")
    assert kind(state) == "orphan"
    assert options(state, 1) == ["elim", f"reloc:{sp('italy')}"]
    state = act(state, 1, f"reloc:{sp('italy')}")
    state = act(state, 1, options(state, 1)[0])
    assert pc("italy", "western", "air") in state.pieces


def test_evaluate_in_unit_interval() -> None:
    """evaluate gives a value in [0, 1]."""
    state = RULES.setup(1, "4p", {})
    state.vp = [3, 9, 1]
    values = [RULES.evaluate(state, s) for s in range(4)]
    assert all(0.0 <= v <= 1.0 for v in values)
    assert values[1] > values[0]
    assert NA == 2


def test_reallocate_first_then_cards() -> None:
    """Reallocate Resources comes first in the Begin Turn step: not after a prepared card is used."""
    state = scenario(pieces=[("moscow", "soviet", "army")])
    sputnik_like = cid("Berlin Wall")
    give(state, 0, "espionage", [sputnik_like])
    give(state, 0, "hand", [cid("Build Navy", 0, SOV), cid("Build Navy", 1, SOV), cid("Sputnik")])
    assert "realloc" in options(state, 0)
    state = act(state, 0, "realloc")
    for _ in range(3):
        state = act(state, 0, options(state, 0)[0])
    assert kind(state) == "realloc_pick"
    pick = options(state, 0)[0]
    state = act(state, 0, pick)
    assert int(pick[2:]) in state.seats[0].hand
    assert "realloc" not in options(state, 0)


def test_start_treaty_each_bloc_discards_wmd_or_loses_vp() -> None:
    """START Treaty: each Bloc discards a prepared WMD, or loses 3 VPs without one. The user's
    own Bloc is one of "each Bloc": "You may never take a Victory Point penalty to meet a
    requirement from your own card", so without a prepared WMD of its own it cannot use it."""
    state = scenario()
    start = cid("START Treaty")
    give(state, 0, "espionage", [start])
    minuteman = cid("Minuteman ICBM")
    give(state, 1, "prepared", [minuteman])
    state.vp = [5, 5, 5]
    assert f"use:{start}" not in options(state, 0)  # no Soviet WMD prepared
    kondensator = cid("Kondensator Rocket Artillery")
    give(state, 0, "prepared", [kondensator])
    state = act(state, 0, f"use:{start}")
    assert kind(state) == "fx_own_wmd"
    while kind(state) == "fx_own_wmd":
        seat = RULES.decision(state).seats[0]  # type: ignore[union-attr]
        state = act(state, seat, options(state, seat)[0])
    assert state.vp == [5, 5, 2]
    assert minuteman in state.seats[1].discard_up
    assert kondensator in state.seats[0].discard_up


def test_b59_reacts_to_enemy_navy_build() -> None:
    """The B-59 Submarine Incident: when an enemy builds a Navy with a Soviet Navy, both enemies'
    levels against the Soviets rise by 2."""
    state = scenario(
        pieces=[("north_pacific", "soviet", "navy"), ("japan", "western", "army")],
        active=WEST,
        step="action",
    )
    b59 = cid("The B-59 Submarine Incident")
    give(state, 0, "espionage", [b59])
    build_navy = cid("Build Navy", 0, WEST)
    give(state, 1, "hand", [build_navy])
    state = act(state, 1, f"play:{build_navy}")
    state = act(state, 1, f"p:1:{sp('north_pacific')}")
    assert kind(state) == "react"
    state = act(state, 0, f"use:{b59}")
    assert state.level(WEST, SOV) == 2 and state.level(NA, SOV) == 2


def test_indo_pakistani_war_recruits_then_battles() -> None:
    """Indo-Pakistani War: recruit an Indian Army and Air Force in or adjacent to India, then
    battle with an Indian piece there; each benefit is optional."""
    state = scenario(
        pieces=[("india", "indian", "army"), ("afghanistan", "soviet", "army")],
        active=NA,
        step="action",
    )
    war = cid("Indo-Pakistani War")
    give(state, 2, "hand", [war])
    state = act(state, 2, f"play:{war}")
    assert f"p:0:{sp('afghanistan')}" in options(state, 2)
    state = act(state, 2, f"p:0:{sp('afghanistan')}")
    assert f"p:2:{sp('india')}" in options(state, 2)
    state = act(state, 2, f"p:2:{sp('india')}")
    soviet = pc("afghanistan", "soviet", "army")
    state = act(state, 2, f"x:{soviet}")
    assert state.level(NA, SOV) == 0
    state = act(state, 0, "pass")
    assert soviet not in state.pieces


def test_air_strike_escalates_once() -> None:
    """An Air Power card used for an Air Strike adds its '?' symbol against the struck Bloc."""
    state = scenario(
        pieces=[
            ("france", "western", "army"),
            ("france", "western", "air"),
            ("germany", "soviet", "army"),
        ],
        active=WEST,
        step="air",
    )
    air = cid("Air Power", 0, WEST)
    give(state, 1, "hand", [air])
    state = act(state, 1, f"air:{air}")
    state = act(state, 1, f"st:{pc('germany', 'soviet', 'army')}")
    assert state.level(WEST, SOV) == 1
    assert kind(state) == "defend" and options(state, 0) == ["pass"]
    state = act(state, 0, "pass")
    assert pc("germany", "soviet", "army") not in state.pieces


def test_f_programs_pays_for_each_enemy() -> None:
    """ "F" Programs: eliminate a Soviet Army to use it, pay the WMD cost for each enemy, and
    eliminate an Army of each enemy Bloc."""
    state = scenario(
        pieces=[
            ("moscow", "soviet", "army"),
            ("siberia", "soviet", "army"),
            ("france", "western", "army"),
            ("china", "chinese", "army"),
        ]
    )
    f_prog = cid('"F" Chemical & Biological Warfare Programs')
    give(state, 0, "prepared", [f_prog])
    state.vp = [20, 5, 5]
    state.esc[WEST * 3 + SOV] = 2
    state = act(state, 0, f"use:{f_prog}")
    state = act(state, 0, f"x:{pc('siberia', 'soviet', 'army')}")
    assert state.vp[SOV] == 20 - 4 - 6
    assert state.level(SOV, WEST) == 1 and state.level(SOV, NA) == 1
    state = act(state, 0, f"x:{pc('france', 'western', 'army')}")
    state = act(state, 1, "pass")
    state = act(state, 0, f"x:{pc('china', 'chinese', 'army')}")
    state = act(state, 2, "pass")
    assert state.pieces == [pc("moscow", "soviet", "army")]


def test_minuteman_picks_one_enemy_player_in_a_team() -> None:
    """Minuteman's "8 of one enemy player's draw deck cards": the user names the player."""
    state = scenario(variant="6p", active=WEST)
    minuteman = cid("Minuteman ICBM")
    give(state, 0, "prepared", [minuteman])
    state.vp = [0, 20, 0]
    state = act(state, 0, f"use:{minuteman}")
    state = act(state, 0, f"t:{SOV}")
    state = act(state, 0, "br:1")
    assert options(state, 0) == ["s:2", "s:3"]
    deck = len(state.seats[3].deck)
    state = act(state, 0, "s:3")
    assert len(state.seats[3].deck) == deck - 8


def test_docs_content_counts_match_the_data() -> None:
    """docs/content.md states the provenance counts the content files hold."""
    from pathlib import Path

    from warroom.engine.content import provenance_counts

    t = tables()
    root = Path(__file__).resolve().parents[5]
    text = (root / "docs" / "content.md").read_text(encoding="utf-8")
    section = text.split("## QMG: The Cold War", 1)[1]
    cards = provenance_counts(list(t.card_records))
    spaces = provenance_counts(list(t.space_records))
    straits = provenance_counts(list(t.strait_records))
    assert (
        f"| `cards.yaml` (216 cards) | {cards['rulebook']} | {cards['reconstructed']} |" in section
    )
    assert f"| {spaces['rulebook']} | {spaces['reconstructed']} |" in section
    assert (
        f"| `straits.yaml` (6 straits) | {straits['rulebook']} | {straits['reconstructed']} |"
        in section
    )
    rulings = (root / "docs" / "rulings.md").read_text(encoding="utf-8")
    assert "## QMG: The Cold War" in rulings
