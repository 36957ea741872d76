"""The heuristic bot drives South Front through the `evaluate` hook."""

from __future__ import annotations

from warroom.bots.evaluation import evaluator_for
from warroom.bots.position import SeatPosition
from warroom.bots.simple import HeuristicBot
from warroom.games.qmg_sf.tests.helpers import RULES, act


def test_heuristic_bot_chooses_a_legal_option() -> None:
    """The bot finds the rules' evaluate hook and picks one of the offered options."""
    assert evaluator_for(RULES) is not None
    s = act(act(RULES.setup(2, "standard", {}), "keep"), "keep")
    s = act(s, "done")
    decision = RULES.decision(s)
    assert decision is not None
    position = SeatPosition(RULES, RULES.view(s, 0), 0, decision, (0,), "standard")
    choice = HeuristicBot(seed=1, samples=1).choose(position)
    assert choice.option_id in {o.id for o in decision.options[0]}


def _policy_game(seed: int) -> int:
    """A whole game with both sides on the rule-based policy; the number of decisions."""
    from warroom.games.qmg_sf.policy import choose

    s = RULES.setup(seed, "standard", {})
    steps = 0
    while RULES.result(s) is None:
        decision = RULES.decision(s)
        assert decision is not None
        seat = decision.seats[0]
        ids = [o.id for o in decision.options[seat]]
        option = choose(s, seat, ids)
        assert option in ids, (decision.kind, option, ids)
        s = RULES.apply(s, seat, option).state
        steps += 1
        assert steps < 5000
    return steps


def test_policy_always_picks_a_legal_option_and_games_end() -> None:
    """The rollout policy answers every decision of whole games with an offered option."""
    for seed in (1, 2, 3):
        assert _policy_game(seed) > 50


def test_evaluation_finishes_the_pending_card_first() -> None:
    """Playing a card is judged by what it does: `settle` finishes the card with the policy,
    and the heuristic bot prefers playing to passing in the opening Action step."""
    from warroom.games.qmg_sf.heuristic import settle

    s = act(act(RULES.setup(2, "standard", {}), "keep"), "keep")
    s = act(s, "done")
    decision = RULES.decision(s)
    assert decision is not None
    plays = [o.id for o in decision.options[0] if o.id.startswith("play")]
    assert plays
    played = RULES.apply(s, 0, plays[0]).state
    assert played.top() is not None and settle(played).top() is None
    position = SeatPosition(RULES, RULES.view(s, 0), 0, decision, (0,), "standard")
    assert HeuristicBot(seed=1, samples=2).choose(position).option_id != "pass"


def test_heuristic_beats_random_from_both_seats() -> None:
    """Two short games, one from each seat: the heuristic bot wins both against random."""
    from warroom.bots.position import Bot
    from warroom.bots.simple import RandomBot

    for seat in (0, 1):
        bots: list[Bot] = [RandomBot(3), RandomBot(3)]
        bots[seat] = HeuristicBot(seed=3, samples=1)
        s = RULES.setup(40 + seat, "standard", {})
        while RULES.result(s) is None:
            decision = RULES.decision(s)
            assert decision is not None
            acting = decision.seats[0]
            position = SeatPosition(RULES, RULES.view(s, acting), acting, decision, (acting,), "")
            s = RULES.apply(s, acting, bots[acting].choose(position).option_id).state
        result = RULES.result(s)
        assert result is not None and seat in result.winners


def test_rollout_policy_is_registered() -> None:
    """Search bots find South Front's rollout policy."""
    from warroom.bots.policies import policy_for

    policy = policy_for(RULES)
    assert policy is not None and policy.epoch is not None


def test_an_exposed_victory_star_is_worth_less() -> None:
    """Tobruk held by the Axis but empty next to the UK tank is "exposed": a Pact infantry
    moving in raises the Axis evaluation."""
    from warroom.games.qmg_sf.heuristic import exposed_stars, static_value
    from warroom.games.qmg_sf.tests.helpers import blank, put

    s = blank(phase="move1")
    put(s, "UK", "tank", "el_alamein")
    put(s, "Pact", "infantry", "benghazi")
    assert exposed_stars(s, 0) >= 1
    before = static_value(s, 0)
    guarded = blank(phase="move1")
    put(guarded, "UK", "tank", "el_alamein")
    put(guarded, "Pact", "infantry", "tobruk")
    assert exposed_stars(guarded, 0) == exposed_stars(s, 0) - 1
    assert static_value(guarded, 0) > before


def test_second_movement_options_are_judged_after_the_step_ends() -> None:
    """In the side's own Second Movement step every option is scored once the policy has
    ended the step (and the Supply step has removed unsupplied pieces): scored before it,
    ending the step lost to removing one's own piece, and the heuristic bot removed its
    pieces one by one (seed 6502, the Axis in round 3). Now ending the step is never worse
    than removing a piece of one's own and then ending it."""
    from warroom.bots.position import position_for
    from warroom.games.qmg_sf.heuristic import evaluate, settle, static_value

    s = RULES.setup(6502, "standard", {})
    bots = [HeuristicBot(seed=6502 * 97 + 1, samples=1), HeuristicBot(6502 * 97 + 2, samples=1)]
    horizon_trap = 0
    for _ in range(1000):
        decision = RULES.decision(s)
        assert decision is not None
        seat = decision.seats[0]
        ids = [o.id for o in decision.options[seat]]
        choice = bots[seat].choose(position_for(RULES, s, seat, decision)).option_id
        if decision.kind == "move2" and "done" in ids and s.active == seat:
            after = {i: RULES.apply(s, seat, i).state for i in ids}
            removals = [i for i in ids if i.startswith("rm")]
            done = evaluate(after["done"], seat)
            assert all(evaluate(after[i], seat) <= done for i in removals)
            assert choice not in removals
            stale = static_value(settle(after["done"]), seat)
            horizon_trap += any(static_value(settle(after[i]), seat) > stale for i in removals)
        s = RULES.apply(s, seat, choice).state
        if RULES.result(s) is not None:
            break
    assert horizon_trap > 0


def test_the_axis_opening_plan_of_the_example_of_play_is_found() -> None:
    """The Example of Play's Axis opening moves the Ionian Sea fleet into Gulf of Sidra and
    boards the Tripoli infantry onto it (to unload into Tobruk, an empty Victory Star next to
    the UK tank, in the Second Movement step). Neither move scores alone: the one-ply bot moved
    a fleet to Gulf of Gabes and ended the step. Judged with its follow-ups (the boarding the
    fleet's move made possible) and with a garrison in reach counted, the bot plays both."""
    from warroom.bots.position import position_for
    from warroom.games.qmg_sf.heuristic import exposed_stars, follow_ups
    from warroom.games.qmg_sf.tests.helpers import move, pieces
    from warroom.games.qmg_sf.tests.test_example_of_play import opening

    s = opening()
    fleet = pieces(s, "Pact", "fleet", "ionian")[0]
    infantry = pieces(s, "Pact", "infantry", "tripoli")[0]
    plan = [move(fleet, "gulf_of_sidra"), move(infantry, "gulf_of_sidra", fleet)]
    exposed = exposed_stars(s, 0)
    for step in plan:
        decision = RULES.decision(s)
        assert decision is not None and decision.kind == "move1"
        choice = HeuristicBot(seed=1, samples=1).choose(position_for(RULES, s, 0, decision))
        assert choice.option_id == step
        after = RULES.apply(s, 0, step).state
        if step == plan[0]:
            assert plan[1] in follow_ups(s, after, 0)
        s = after
    assert exposed_stars(s, 0) == exposed - 1  # Tobruk: the infantry can unload there


def test_the_search_values_threatened_stars_and_the_heuristic_does_not() -> None:
    """A Pact infantry in Albania threatens Yugoslavia and Athens; in Sicily it threatens no
    star. The heuristic bot's evaluation scores both positions alike; the search's as the
    Axis (`evaluate_with_threats`, the registered policy's evaluator) prefers Albania, and
    as the Allies it is the heuristic's."""
    from warroom.bots.policies import policy_for
    from warroom.games.qmg_sf.heuristic import evaluate, evaluate_with_threats, threatened_stars
    from warroom.games.qmg_sf.tests.helpers import blank, put

    positions = {}
    for where in ("albania", "sicily"):
        s = blank(phase="move1")
        put(s, "Pact", "infantry", where)
        positions[where] = s
    assert threatened_stars(positions["albania"], 0) == 2
    assert threatened_stars(positions["sicily"], 0) == 0
    assert evaluate(positions["albania"], 0) == evaluate(positions["sicily"], 0)
    policy = policy_for(RULES)
    assert policy is not None and policy.evaluator is not None
    assert policy.evaluator(positions["albania"], 0) > policy.evaluator(positions["sicily"], 0)
    for where, s in positions.items():
        assert policy.evaluator(s, 1) == evaluate(s, 1), where
    assert evaluate_with_threats(positions["albania"], 1) < evaluate(positions["albania"], 1)


def test_threatened_stars_count_pieces_aboard_fleets_and_not_stars_already_held() -> None:
    """A Pact infantry aboard a fleet in the Ionian Sea threatens Malta (the Allies') and
    Athens (neutral); the fleet alone threatens nothing. Next to Axis-held Tripoli and Tobruk,
    a Pact infantry in Benghazi threatens no star, until the Allies hold Tobruk."""
    from warroom.games.qmg_sf.heuristic import threatened_stars
    from warroom.games.qmg_sf.tests.helpers import blank, put, sp

    aboard = blank(phase="move1")
    fleet = put(aboard, "Pact", "fleet", "ionian")
    assert threatened_stars(aboard, 0) == 0
    put(aboard, "Pact", "infantry", "ionian", fleet)
    assert threatened_stars(aboard, 0) == 2
    held = blank(phase="move1")
    put(held, "Pact", "infantry", "benghazi")
    assert threatened_stars(held, 0) == 0
    held.control[sp("tobruk")] = 1
    held.touch()
    assert threatened_stars(held, 0) == 1
