"""Rule procedures: turn sequence, actions, contingency cards, deploy/recruit, seasons, France,
minor countries, carriers, supply step, draw step, Late War cards, scoring and victory."""

from __future__ import annotations

import pytest

from warroom.engine.errors import IllegalOptionError, SetupError
from warroom.engine.registry import get_rules
from warroom.games.qmg_sf import board, effects, scoring, turn
from warroom.games.qmg_sf.content import COUNTRIES, tables
from warroom.games.qmg_sf.rules import SouthFrontRules, evaluate
from warroom.games.qmg_sf.state import ALLIES, AXIS, GONE, INITIAL, SECOND, Ctx
from warroom.games.qmg_sf.tests.helpers import (
    RULES,
    act,
    blank,
    desperate_attack,
    hand,
    ids,
    kind_of,
    move,
    pieces,
    put,
    sp,
)

GREECE, BULGARIA, IRAQ, YUGOSLAVIA = (
    COUNTRIES.index(c) for c in ("Greece", "Bulgaria", "Iraq", "Yugoslavia")
)


def test_registered() -> None:
    """The registry serves the game under "qmg_sf"."""
    assert isinstance(get_rules("qmg_sf"), SouthFrontRules)


def test_setup_matches_rulebook() -> None:
    """Starting pieces, control, MCFs, 5-card hands, Late War cards aside, Contingency Initial side up."""
    s = RULES.setup(3, "standard", {})
    assert kind_of(s) == "mulligan"
    assert sum(1 for at in s.loc if at >= 0) == 13
    assert pieces(s, "UK", "fleet", "western_med") and pieces(s, "Pact", "airplane", "sicily")
    assert s.control[sp("gibraltar")] == ALLIES and s.control[sp("morocco")] == AXIS
    assert s.control[sp("crete")] == -1 and s.mcf[sp("yugoslavia")] == 2
    t = tables()
    for side in (AXIS, ALLIES):
        assert len(s.hands[side]) == 5
        assert all(t.cards[c].era == "mid" for c in s.hands[side] + s.decks[side])
        assert all(t.cards[c].era == "late" for c in s.late[side])
    assert all(v == INITIAL for v in s.contingency.values()) and len(s.contingency) == 6
    with pytest.raises(SetupError):
        RULES.setup(1, "nope", {})


def test_mulligan_once() -> None:
    """A mulligan reshuffles and draws a new hand; no second mulligan is offered."""
    s = RULES.setup(3, "standard", {})
    before = sorted(s.hands[AXIS])
    s = act(s, "mulligan")
    assert len(s.hands[AXIS]) == 5 and sorted(s.hands[AXIS] + s.decks[AXIS]) != [] and before
    assert kind_of(s) == "mulligan" and s.stack[-1].seat == ALLIES
    s = act(s, "keep")
    assert kind_of(s) == "move1" and s.active == AXIS


def test_apply_never_mutates_and_rejects_illegal() -> None:
    """apply works on a clone; an illegal option raises and changes nothing."""
    s = RULES.setup(5, "standard", {})
    data = RULES.encode_bytes(s)
    RULES.apply(s, AXIS, "mulligan")
    assert RULES.encode_bytes(s) == data
    with pytest.raises(IllegalOptionError):
        RULES.apply(s, ALLIES, "keep")
    with pytest.raises(IllegalOptionError):
        RULES.apply(s, AXIS, "bogus")


def test_action_menu() -> None:
    """Play, Conscription, Forced March, Desperate Attack, Production Initiative, Contingency, Pass."""
    s = RULES.setup(5, "standard", {})
    s = act(act(act(s, "keep"), "keep"), "done")
    opts = ids(s)
    assert "pass" in opts and "pi" in opts and "fm" in opts and "ct70" in opts
    assert any(o.startswith("cons") for o in opts) and any(o.startswith("play") for o in opts)


def test_conscription_near_supply_flag() -> None:
    """Conscription: 1 card for infantry, 2 for others, in or adjacent to a Supply Flag space."""
    s = blank(phase="action")
    put(s, "Pact", "infantry", "rome")
    hand(s, AXIS, 55, 56)
    s = act(s, "cons1.0")
    s = act(s, "d55")
    opts = ids(s)
    assert f"d{sp('naples')}" in opts and f"d{sp('rome')}" in opts
    assert f"d{sp('sicily')}" not in opts
    s = act(s, f"d{sp('naples')}")
    assert pieces(s, "Pact", "infantry", "naples") and s.hands[AXIS] == [56]
    assert kind_of(s) == "move2"


def test_forced_march_and_production_initiative() -> None:
    """Forced March discards 1 to move 1 piece; Production Initiative draws 1."""
    s = blank(phase="action")
    inf = put(s, "Pact", "infantry", "rome")
    hand(s, AXIS, 55)
    s.decks[AXIS] = [56]
    s = act(s, "fm")
    s = act(s, "d55")
    s = act(s, move(inf, "naples"))
    assert s.loc[inf] == sp("naples")
    s2 = blank(phase="action")
    put(s2, "Pact", "infantry", "rome")
    s2.decks[AXIS] = [56]
    s2 = act(s2, "pi")
    assert 56 in s2.hands[AXIS] or s2.active == ALLIES


def test_contingency_initial_then_second_then_gone() -> None:
    """Initial side once, then the Second side once, then discarded."""
    s = blank(phase="action")
    put(s, "Pact", "infantry", "rome")
    s.decks[AXIS] = [55, 56, 57, 58]
    s = act(s, "ct71")  # Italian Mobilization: draw 2
    assert s.contingency[71] == SECOND
    assert len(s.hands[AXIS]) >= 2
    s.phase, s.active, s.stack = "action", AXIS, []
    s.touch()
    assert "ct71" in ids(s)
    s = act(s, "ct71")  # Colonial Troops: deploy a Pact infantry; then another action
    s = act(s, f"d{sp('naples')}")
    assert s.contingency[71] == GONE and kind_of(s) == "action"
    assert "ct71" not in ids(s)


def test_expeditionary_force_pays() -> None:
    """'Discard 1 card or the Axis gain 1 VP': discarding keeps the VPs."""
    s = blank(phase="action", active=ALLIES)
    put(s, "UK", "infantry", "egypt")
    hand(s, ALLIES, 21)
    s = act(s, "ct67")
    s = act(s, "d21")
    assert s.vp == [0, 0] and s.hands[ALLIES] == []
    s = act(s, f"d{sp('egypt')}")
    assert kind_of(s) == "move2"  # no card left to pay for another action


def test_deploy_needs_control_and_supply_recruit_does_not() -> None:
    """Deploy: controlled and supplied; recruit: also unoccupied enemy-controlled, unsupplied, taking control."""
    s = blank(phase="action")
    put(s, "Pact", "infantry", "rome")
    put(s, "UK", "fleet", "gulf_of_gabes")
    put(s, "UK", "fleet", "gulf_of_sidra")
    deploy = effects.placements(s, 1, 0, False, None)
    recruit = effects.placements(s, 1, 0, True, None)
    assert (sp("naples"), -1) in deploy
    assert (sp("tripoli"), -1) not in deploy  # unsupplied
    assert (sp("egypt"), -1) not in deploy and (sp("egypt"), -1) in recruit
    assert (sp("athens"), -1) not in recruit  # neutral
    put(s, "UK", "infantry", "malta")
    assert (sp("malta"), -1) not in effects.placements(s, 1, 0, True, None)  # enemy-occupied


def test_recruit_takes_control() -> None:
    """Vichy Cooperation recruits into Algeria; ANZAC recruits into enemy-held Syria-Lebanon."""
    s = blank(phase="action", active=ALLIES)
    put(s, "UK", "infantry", "egypt")
    hand(s, ALLIES, 4)
    s = act(s, "play4")
    s = act(s, f"d{sp('arabia')}")
    assert kind_of(s) == "fx_place"
    s = act(s, "skip")
    assert pieces(s, "UK", "infantry", "arabia")


def test_deploy_more_than_available_removes_from_board() -> None:
    """With no French infantry available, French Foreign Legion may take it from the board first."""
    s = blank(phase="action", active=ALLIES)
    inf = put(s, "France", "infantry", "egypt")
    put(s, "UK", "infantry", "palestine_jordan")
    hand(s, ALLIES, 22)
    s = act(s, "play22")
    assert f"free{inf}" in ids(s) and "skip" in ids(s)
    s = act(s, f"free{inf}")
    s = act(s, f"d{sp('palestine_jordan')}")
    assert s.loc[inf] == sp("palestine_jordan")
    assert kind_of(s) == "action"  # "then take another action"


def test_usa_at_war() -> None:
    """Before USA at War, USA pieces cannot move or be deployed, but may be recruited."""
    t = tables()
    s = blank(phase="move1", active=ALLIES, round_=t.usa_at_war - 1)
    plane = put(s, "USA", "airplane", "egypt")
    put(s, "UK", "infantry", "egypt")
    assert not any(o.startswith(f"m{plane}-") for o in ids(s))
    assert effects.placements(s, 3, 0, False, None) == []
    assert effects.placements(s, 3, 2, True, {"near": ["egypt"]})
    s.round = t.usa_at_war
    s.touch()
    assert any(o.startswith(f"m{plane}-") for o in ids(s))


def test_winter_blocks_sustain_attack_except_desert() -> None:
    """No Sustain Attack in Winter unless the attacked space is a Desert Climate space."""
    for round_, target, allowed in (
        (3, "yugoslavia", False),
        (3, "el_alamein", True),
        (1, "yugoslavia", True),
    ):
        s = blank(phase="action", round_=round_)
        if target == "yugoslavia":
            board.activate(s, YUGOSLAVIA, ALLIES)
            src = "rome"
        else:
            put(s, "UK", "infantry", target)
            put(s, "UK", "infantry", target)
            put(s, "Pact", "fleet", "gulf_of_sidra")
            src = "tobruk"
        put(s, "Pact", "infantry", src)
        put(s, "Pact", "infantry", src)
        hand(s, AXIS, 55, 56, 51)
        s = desperate_attack(s, (55, 56), 1, src, target)
        s = act(s, next(o for o in ids(s) if o.startswith("rm")))
        assert ("sa51" in ids(s)) == allowed, (round_, target)


def test_spring_blocks_advance_except_desert() -> None:
    """No Advance! in Spring unless into a Desert Climate space."""
    for round_, allowed in ((4, False), (1, True)):
        s = blank(phase="action", round_=round_)
        board.activate(s, YUGOSLAVIA, ALLIES)
        s.mcf[sp("yugoslavia")] = 1
        inf = put(s, "Pact", "infantry", "rome")
        put(s, "Pact", "infantry", "rome")
        hand(s, AXIS, 55, 56, 52)
        s = desperate_attack(s, (55, 56), 1, "rome", "yugoslavia")
        s = act(s, "rm-mcf")
        assert (kind_of(s) == "c_adv") == allowed
        if allowed:
            s = act(s, f"adv52-{inf}")
            assert s.control[sp("yugoslavia")] == AXIS


def test_declare_war_activates_for_the_other_side() -> None:
    """Declaring war on a neutral minor activates it for the opponent (MCFs flip; Crete's counter goes)."""
    s = blank(phase="move1")
    put(s, "Pact", "infantry", "albania")
    s = act(s, f"war{GREECE}")
    assert s.minor[GREECE] == ALLIES
    assert s.control[sp("athens")] == ALLIES and s.control[sp("crete")] == ALLIES
    assert s.mcf[sp("crete")] == 0 and s.mcf[sp("athens")] == 1
    assert f"war{GREECE}" not in ids(s)


def test_cannot_enter_neutral() -> None:
    """Pieces cannot move into a neutral space."""
    s = blank(phase="move1")
    inf = put(s, "Pact", "infantry", "albania")
    put(s, "Pact", "fleet", "ionian")
    assert move(inf, "athens") not in ids(s)


def test_carrier_eliminated_loses_airplane_instead() -> None:
    """A carrier can never be removed while it carries an airplane."""
    s = blank()
    carrier = put(s, "UK", "carrier", "south_atlantic")
    plane = put(s, "UK", "airplane", "south_atlantic", on=carrier)
    board.eliminate(s, carrier)
    assert s.loc[plane] == -1 and s.loc[carrier] == sp("south_atlantic")


def test_fleet_removed_with_its_cargo() -> None:
    """If a fleet transporting a piece is removed, the piece is also removed."""
    s = blank()
    fleet = put(s, "Pact", "fleet", "tyrrhenian")
    inf = put(s, "Pact", "infantry", "tyrrhenian", on=fleet)
    board.eliminate(s, fleet)
    assert s.loc[inf] == -1


def test_french_transport_and_force() -> None:
    """French infantry rides UK fleets and joins a UK force, not the other way round."""
    s = blank(phase="move1", active=ALLIES)
    fleet = put(s, "UK", "fleet", "levantine")
    fr = put(s, "France", "infantry", "palestine_jordan")
    assert move(fr, "levantine", fleet) in ids(s)
    uk = put(s, "UK", "infantry", "palestine_jordan")
    from warroom.games.qmg_sf import combat

    assert sorted(combat.force_of(s, 2, sp("palestine_jordan"), sp("syria_lebanon"))) == sorted(
        [fr, uk]
    )
    assert combat.force_of(s, 4, sp("palestine_jordan"), sp("syria_lebanon")) == [fr]


def test_supply_step_removes_only_own_unsupplied() -> None:
    """At the end of the turn the active side's unsupplied pieces are removed; the other side's stay."""
    s = blank(phase="move2")
    put(s, "Pact", "infantry", "rome")
    lost = put(s, "Pact", "infantry", "syria_lebanon")
    malta = put(s, "UK", "infantry", "malta")
    put(s, "UK", "fleet", "levantine")
    put(s, "Pact", "fleet", "gulf_of_sidra")
    put(s, "Pact", "fleet", "ionian")
    put(s, "Pact", "fleet", "gulf_of_gabes")
    s = act(s, "done")
    assert s.loc[lost] == -1 and s.loc[malta] == sp("malta")


def test_draw_step() -> None:
    """Draw to 5 but at most 2; none with 5 or more; an empty deck is not reshuffled."""
    for start, deck, after in ((1, 5, 3), (4, 5, 5), (6, 5, 6), (1, 1, 2)):
        s = blank(phase="move2")
        put(s, "Pact", "infantry", "rome")
        mid = [c for c in tables().deck_cards[AXIS] if tables().cards[c].era == "mid"]
        s.hands[AXIS] = mid[:start]
        s.decks[AXIS] = mid[start : start + deck]
        s = act(s, "done")
        assert len(s.hands[AXIS]) == after


def test_late_war_cards_after_winter_1941() -> None:
    """After the Winter 1941 Allies turn both players shuffle their Late War cards into their decks."""
    t = tables()
    s = blank(phase="move2", active=ALLIES, round_=t.late_after)
    put(s, "UK", "infantry", "egypt")
    s.late = [[c for c in t.deck_cards[i] if t.cards[c].era == "late"] for i in (0, 1)]
    s = act(s, "done")
    assert s.late == [[], []] and s.round == t.late_after + 1
    assert all(any(t.cards[c].era == "late" for c in s.decks[i]) for i in (0, 1))


def test_scoring_rounds_and_victory() -> None:
    """1 VP per controlled Victory Star; 10+ ahead wins at once; the Axis win a final tie."""
    s = blank(phase="move2", active=ALLIES, round_=3)
    put(s, "UK", "infantry", "egypt")
    s = act(s, "done")
    assert s.vp == [scoring.stars(s, AXIS), scoring.stars(s, ALLIES)] and not s.over
    s = blank(phase="move2", active=ALLIES, round_=3)
    put(s, "UK", "infantry", "egypt")
    s.vp = [10, 1]
    s = act(s, "done")
    assert s.over and s.winner == AXIS and "10" in s.reason
    assert RULES.decision(s) is None
    result = RULES.result(s)
    assert result is not None and result.winners == frozenset({AXIS})
    s = blank(phase="move2", active=ALLIES, round_=16)
    put(s, "UK", "infantry", "egypt")
    s.vp = [5 - scoring.stars(s, AXIS), 5 - scoring.stars(s, ALLIES)]
    s = act(s, "done")
    assert s.over and s.winner == AXIS and "tied" in s.reason


def test_no_win_outside_scoring_rounds() -> None:
    """A 10-VP lead outside a scoring round does not end the game."""
    s = blank(phase="move2", active=ALLIES, round_=2)
    put(s, "UK", "infantry", "egypt")
    s.vp = [20, 0]
    s = act(s, "done")
    assert not s.over and s.round == 3


def test_unless_discard_lets_the_owner_choose() -> None:
    """Decima Flottiglia MAS: the Allies may discard a card of the fleet's faction to save it."""
    s = blank(phase="action")
    put(s, "Pact", "infantry", "tobruk")
    put(s, "Pact", "fleet", "gulf_of_sidra")
    fleet = put(s, "UK", "fleet", "eastern_med")
    hand(s, AXIS, 54)
    hand(s, ALLIES, 21, 24)
    s = act(s, "play54")
    s = act(s, f"e{fleet}")
    assert kind_of(s) == "fx_unless" and ids(s) == ["allow", "d21"]
    s = act(s, "d21")
    assert s.loc[fleet] == sp("eastern_med") and s.hands[ALLIES] == [24]


def test_bulgaria_signs_pact_places_supply_flag() -> None:
    """Bulgaria Signs Pact activates Bulgaria for the Axis and places its Supply Flags marker."""
    s = blank(phase="action")
    put(s, "Pact", "infantry", "rome")
    s = act(s, "ct70")
    s = act(s, f"d{sp('bulgaria')}")
    assert s.minor[BULGARIA] == AXIS and s.bulgaria_flag
    assert pieces(s, "Germany", "infantry", "bulgaria")


def test_evaluate_in_unit_interval() -> None:
    """The heuristic value lies in [0, 1] and favours the side ahead."""
    s = blank()
    put(s, "Pact", "infantry", "rome")
    s.vp = [8, 0]
    a, b = evaluate(s, AXIS), evaluate(s, ALLIES)
    assert 0.0 <= b < 0.5 < a <= 1.0
    assert SouthFrontRules.evaluate(s, AXIS) == a


def test_turn_advance_runs_effects_without_decisions() -> None:
    """A card whose steps need no decision resolves inside one apply (Cape Route Convoys draws 2)."""
    s = blank(phase="action", active=ALLIES)
    put(s, "UK", "infantry", "egypt")
    hand(s, ALLIES, 21)
    s.decks[ALLIES] = [22, 23, 24]
    s = act(s, "play21")
    assert sorted(s.hands[ALLIES])[:2] and len(s.hands[ALLIES]) == 2
    turn.advance(s, Ctx())


def test_reach_with_lifted_piece_matches_removal() -> None:
    """The supply shortcut for a moving piece equals tracing with the piece removed."""
    from warroom.engine.match import Match
    from warroom.engine.rng import Rng
    from warroom.games.qmg_sf import supply

    match = Match(RULES)
    state = match.start(9, "standard", {})
    rng = Rng(9)
    checked = 0
    while state.pending is not None and checked < 400:
        game = state.game
        for p, at in enumerate(game.loc):
            if at < 0:
                continue
            fac = tables().piece_faction[p]
            lifted = game.clone()
            board.remove(lifted, p)
            assert supply.reach(game, fac, skip=p) == supply.reach(lifted, fac)
            checked += 1
        seat = state.pending.seats[0]
        ids_ = [o.id for o in state.pending.options_for(seat) if o.id != "undo"]
        state = match.apply(state, seat, rng.choice(ids_)).state
    assert checked >= 400


def test_remove_own_piece_during_turn() -> None:
    """Own pieces may be removed during one's turn (a fleet takes its cargo along; a carried
    piece may also be removed on its own, see test_audit)."""
    s = blank(phase="move1")
    fleet = put(s, "Pact", "fleet", "tyrrhenian")
    inf = put(s, "Pact", "infantry", "tyrrhenian", on=fleet)
    put(s, "Pact", "infantry", "rome")
    put(s, "UK", "infantry", "malta")
    assert f"rm{inf}" in ids(s)  # "any of your own pieces", a transported one too
    assert not any(o == f"rm{p}" for o in ids(s) for p in pieces(s, "UK", "infantry", "malta"))
    s = act(s, f"rm{fleet}")
    assert s.loc[fleet] == -1 and s.loc[inf] == -1
    s = act(s, "done")
    assert any(o.startswith("rm") for o in ids(s))
