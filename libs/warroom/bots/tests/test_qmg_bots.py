"""QMG bots: the Cold War heuristic plays (and beats random), legally and reproducibly, in
three-Bloc and team games; ISMCTS in both QMG titles searches with the game's evaluation."""

from __future__ import annotations

from collections import Counter
from typing import Any

from warroom.bots.evaluation import evaluator_for, game_rewards
from warroom.bots.ismcts import Budget, IsmctsBot
from warroom.bots.pairings import seat_patterns
from warroom.bots.policies import policy_for
from warroom.bots.position import Bot, position_for
from warroom.bots.simple import HeuristicBot, RandomBot
from warroom.engine.model import Result
from warroom.games.qmg_cw import heuristic
from warroom.games.qmg_cw.effects import card
from warroom.games.qmg_cw.rules import ColdWarRules
from warroom.games.qmg_cw.state import CwState
from warroom.games.qmg_sf.rules import SouthFrontRules

CW = ColdWarRules()


def _play_cw(
    bots: list[Bot], seed: int, variant: str = "3p", steps: int = 4000
) -> tuple[CwState, list[str]]:
    """Play a Cold War game with one bot per seat; every choice must be a listed option."""
    state = CW.setup(seed, variant, {})
    chosen: list[str] = []
    for _ in range(steps):
        decision = CW.decision(state)
        if decision is None:
            break
        seat = decision.seats[0]
        choice = bots[seat].choose(position_for(CW, state, seat, decision, variant))
        assert choice.option_id in {o.id for o in decision.options_for(seat)}, (
            decision.kind,
            choice.option_id,
        )
        chosen.append(f"{seat}:{choice.option_id}")
        state = CW.apply(state, seat, choice.option_id).state
    return state, chosen


def test_cold_war_heuristic_beats_random_from_every_bloc() -> None:
    """One heuristic Bloc against two random Blocs wins each of 3 seeded games, once from each
    Bloc, and plays cards on the way (builds, battles, prepared cards)."""
    wins = 0
    for seat in range(3):
        bots: list[Bot] = [RandomBot(40 + seat * 3 + i) for i in range(3)]
        bots[seat] = HeuristicBot(seed=7, samples=1)
        state, chosen = _play_cw(bots, seed=300 + seat)
        assert state.over
        wins += state.seats[seat].bloc in state.winners
        mine = Counter(c.split(":")[1] for c in chosen if c.startswith(f"{seat}:"))
        assert mine["play"] + mine["prep"] + mine["use"] + mine["air"] >= 4, mine
    assert wins == 3


def test_cold_war_heuristic_team_game_is_legal_and_plays_every_kind_of_step() -> None:
    """Heuristic bots at every seat of a 4-player team game: legal choices only, state
    invariants hold, and the game reaches its end with cards played, used and prepared."""
    bots: list[Bot] = [HeuristicBot(seed=i, samples=1) for i in range(4)]
    state, chosen = _play_cw(bots, seed=21, variant="4p")
    assert state.over and CW.invariants(state) == []
    verbs = Counter(c.split(":")[1] for c in chosen)
    assert verbs["play"] >= 10 and verbs["use"] >= 1 and verbs["prep"] >= 1, verbs


def test_cold_war_heuristic_is_deterministic_for_a_seed() -> None:
    """The same seeds give the same choices, option for option (120 decisions)."""
    runs = []
    for _ in range(2):
        bots: list[Bot] = [HeuristicBot(seed=5 + i, samples=2) for i in range(3)]
        runs.append(_play_cw(bots, seed=9, steps=120)[1])
    assert runs[0] == runs[1] and len(runs[0]) == 120


def test_cold_war_evaluation_finishes_the_card_and_prefers_a_build() -> None:
    """At the first Soviet Action step a played Build Army card is scored by the Army it
    built (the settled position), above passing the step."""
    state = CW.setup(4, "3p", {})
    bots: list[Bot] = [HeuristicBot(seed=1, samples=1) for _ in range(3)]
    for _ in range(200):
        decision = CW.decision(state)
        assert decision is not None
        seat = decision.seats[0]
        builds = [
            o.id
            for o in decision.options_for(seat)
            if decision.kind == "action"
            and o.id.startswith("play:")
            and card(int(o.id[5:])).type == "build_army"
        ]
        if builds:
            break
        choice = bots[seat].choose(position_for(CW, state, seat, decision, "3p"))
        state = CW.apply(state, seat, choice.option_id).state
    assert builds
    played = CW.apply(state, seat, builds[0]).state
    settled = heuristic.settle(played)
    top = settled.top()
    assert top is not None and top.kind in heuristic.STEP_KINDS
    assert len(settled.pieces) > len(state.pieces)
    passed = CW.apply(state, seat, "pass").state
    assert CW.evaluate(played, seat) > CW.evaluate(passed, seat)


def test_cold_war_rewards_only_winning() -> None:
    """A finished Cold War game scores 1 for the winning Bloc's seats and 0 for the rest."""
    result = Result(
        {0: 30.0, 1: 20.0, 2: 25.0, 3: 25.0}, frozenset({2, 3}), {0: 1, 1: 2, 2: 0, 3: 0}, "x"
    )
    assert game_rewards(CW, result, 4) == [0.0, 0.0, 1.0, 1.0]


class _Counting(ColdWarRules):
    """Cold War rules whose search policy's evaluation (`evaluate_with_draws`) counts its calls
    (and may be turned upside down)."""

    def __init__(self, invert: bool = False) -> None:
        from dataclasses import replace

        from warroom.bots.games.qmg_cw import search_policy

        self.calls = 0
        self.invert = invert
        self.rollout_policy = replace(search_policy(), evaluator=self.search_value)

    def search_value(self, state: CwState, seat: int) -> float:
        self.calls += 1
        value = heuristic.evaluate_with_draws(state, seat)
        return 1.0 - value if self.invert else value


def _action_state(rules: Any) -> tuple[CwState, int]:
    """The first Action step with a choice of a heuristic game (seed 4), and its seat."""
    state = rules.setup(4, "3p", {})
    bot = HeuristicBot(seed=1, samples=1)
    for _ in range(200):
        decision = rules.decision(state)
        seat = decision.seats[0]
        if decision.kind == "action" and len(decision.options_for(seat)) > 3:
            return state, seat
        choice = bot.choose(position_for(rules, state, seat, decision, "3p"))
        state = rules.apply(state, seat, choice.option_id).state
    raise AssertionError("no Action step with a choice")


def _action_position(rules: Any) -> Any:
    state, seat = _action_state(rules)
    return position_for(rules, state, seat, rules.decision(state), "3p")


def test_cold_war_ismcts_searches_with_the_evaluation() -> None:
    """ISMCTS on Cold War plays the rule-based policy in its playouts, scores them and its
    root priors with its policy's evaluation (`search_value`), and starts from the option
    that evaluation prefers: with it upside down, in the same position, the baseline and the
    answer change."""
    from warroom.bots.games.qmg_cw import search_value

    policy = policy_for(CW)
    assert policy is not None and policy.baseline == "prior"
    assert policy.evaluator is search_value
    normal = _Counting()
    position = _action_position(normal)
    choice = IsmctsBot(Budget(iterations=40), seed=3).choose(position)
    assert normal.calls > 0 and choice.option_id in position.option_ids()
    inverted = _Counting(invert=True)
    flipped = IsmctsBot(Budget(iterations=40), seed=3).choose(_action_position(inverted))
    assert inverted.calls > 0
    assert flipped.notes["policy"] != choice.notes["policy"]
    assert flipped.option_id != choice.option_id


def test_cold_war_search_values_hands_after_the_draw_step_except_for_the_western_bloc() -> None:
    """The search's value is `evaluate_with_draws` for the Soviet and Non-Aligned Blocs and the
    heuristic's `evaluate` for the Western Bloc (measured: docs/benchmarks.md, "Session 24"),
    in a position where the two values differ for every Bloc: each hand two cards short of
    the 7 its Draw step will refill."""
    from warroom.bots.games.qmg_cw import search_value
    from warroom.games.qmg_cw.state import WEST

    state = _action_state(CW)[0].clone()
    for player in state.seats:
        player.hand = player.hand[:5]
    for seat, player in enumerate(state.seats):
        draws, plain = (f(state, seat) for f in (heuristic.evaluate_with_draws, heuristic.evaluate))
        assert draws != plain
        assert search_value(state, seat) == (plain if player.bloc == WEST else draws)


def test_cold_war_playouts_stop_after_the_blocs_turn_unless_told_to_go_on() -> None:
    """From a Bloc's Action step a screening playout stops in the next Bloc's turn (`TURNS` =
    1, the measured setting), and with 3 changes when the Bloc's own next turn begins, after
    both other Blocs have played theirs."""
    from dataclasses import replace

    from warroom.bots.games import qmg_cw
    from warroom.bots.policies import policy_rollout

    policy = policy_for(CW)
    assert policy is not None and policy.epochs == qmg_cw.TURNS == 1
    state, seat = _action_state(CW)
    bloc = state.active
    evaluator = evaluator_for(CW)
    assert evaluator is not None
    scored: list[CwState] = []

    def recording(s: CwState, seat: int) -> float:
        scored.append(s)
        return evaluator(s, seat)

    policy_rollout(CW, state, policy, 2000, recording, seat)
    assert scored[-1].active != bloc and scored[-1].round in (state.round, state.round + 1)
    policy_rollout(CW, state, replace(policy, epochs=3), 2000, recording, seat)
    assert scored[-1].active == bloc and scored[-1].round == state.round + 1


class _Draws(ColdWarRules):
    """Cold War rules whose evaluation is the search's (`evaluate_with_draws`)."""

    def evaluate(self, state: CwState, seat: int) -> float:
        return heuristic.evaluate_with_draws(state, seat)


def test_cold_war_baseline_is_the_heuristic_choice_over_several_worlds() -> None:
    """The Cold War search's baseline averages its one-step priors over `PRIOR_WORLDS` (4)
    determinizations: in Action steps where the 1-sample heuristic bot on the search's
    evaluation chooses otherwise, it is the 4-sample choice on that evaluation."""
    from warroom.bots.games import qmg_cw

    assert qmg_cw.PRIOR_WORLDS == 4
    state = CW.setup(4, "3p", {})
    walker = HeuristicBot(seed=1, samples=1)
    differ = 0
    for step in range(241):
        decision = CW.decision(state)
        assert decision is not None
        seat = decision.seats[0]
        position = position_for(CW, state, seat, decision, "3p")
        if step in (185, 215, 240):
            drawn = position_for(_Draws(), state, seat, decision, "3p")
            one = HeuristicBot(seed=1, samples=1).choose(drawn).option_id
            four = HeuristicBot(seed=1, samples=4).choose(drawn).option_id
            differ += one != four
            assert IsmctsBot(Budget(iterations=1), seed=1).choose(position).notes["policy"] == four
        state = CW.apply(state, seat, walker.choose(position).option_id).state
    assert differ == 3


def test_south_front_ismcts_scores_playouts_with_the_search_evaluation() -> None:
    """ISMCTS on South Front uses the rule-based rollout policy and scores with the policy's
    evaluator (the heuristic's evaluation, with threatened stars for the Axis)."""
    from warroom.bots.games import qmg_sf
    from warroom.bots.policies import register_policy

    rules = SouthFrontRules()
    registered = policy_for(rules)
    assert registered is not None and registered.evaluator is qmg_sf.threat_value
    calls: list[tuple[int, int]] = []
    searching = [-1]

    def counting(state: Any, seat: int) -> float:
        calls.append((searching[0], seat))
        return qmg_sf.threat_value(state, seat)

    register_policy("qmg_sf", qmg_sf.search_policy(evaluator=counting))
    try:
        state = rules.setup(3, rules.variants()[0].id, {})
        bot = IsmctsBot(Budget(iterations=12), seed=2)
        searched = 0
        for _ in range(60):
            decision = rules.decision(state)
            assert decision is not None
            seat = searching[0] = decision.seats[0]
            position = position_for(rules, state, seat, decision)
            choice = bot.choose(position)
            assert choice.option_id in position.option_ids()
            searched += len(position.option_ids()) > 1
            state = rules.apply(state, seat, choice.option_id).state
            if searched >= 3:
                break
    finally:
        register_policy("qmg_sf", registered)
    assert searched >= 3 and calls
    assert all(searcher == seat for searcher, seat in calls), "scored for the searching seat"
    assert {seat for _, seat in calls} == {0, 1}


def test_south_front_search_baseline_plans_the_example_of_play_opening() -> None:
    """The search's priors take the follow-ups of a movement option as the heuristic bot
    does, so its baseline, which it answers in movement steps without playouts, is the Example
    of Play's Axis opening: the Ionian Sea fleet into Gulf of Sidra, then the Tripoli infantry
    aboard it (one ply alone, a fleet moved to Gulf of Gabes)."""
    from warroom.games.qmg_sf.tests.helpers import move, pieces
    from warroom.games.qmg_sf.tests.test_example_of_play import opening

    rules = SouthFrontRules()
    state = opening()
    fleet = pieces(state, "Pact", "fleet", "ionian")[0]
    infantry = pieces(state, "Pact", "infantry", "tripoli")[0]
    for step in (move(fleet, "gulf_of_sidra"), move(infantry, "gulf_of_sidra", fleet)):
        decision = rules.decision(state)
        assert decision is not None and decision.kind == "move1"
        choice = IsmctsBot(Budget(iterations=40), seed=1).choose(
            position_for(rules, state, 0, decision)
        )
        assert choice.option_id == step and choice.notes["policy"] == step
        state = rules.apply(state, 0, step).state


def test_three_bloc_arena_seats_each_spec_alone_on_every_bloc() -> None:
    """The arena's 3-player Cold War seatings: 6, each spec alone on each Bloc once."""
    patterns = seat_patterns(CW, "3p")
    assert len(patterns) == 6 and len({tuple(p) for p in patterns}) == 6
    for seat in range(3):
        assert Counter(p[seat] for p in patterns) == Counter({0: 3, 1: 3})
    alone = Counter(
        (p.index(side), side) for p in patterns for side in (0, 1) if p.count(side) == 1
    )
    assert set(alone.values()) == {1} and len(alone) == 6


def test_arena_plays_a_cold_war_seating_and_counts_wins_by_side() -> None:
    """bench/arena.py plays a 3-player Cold War game in one of its seatings and records the
    winning seat, which its wins-by-side line (mirror-play balance) counts."""
    import importlib.util
    import sys
    from pathlib import Path

    path = Path(__file__).resolve().parents[4] / "bench" / "arena.py"
    spec = importlib.util.spec_from_file_location("bench_arena_qmg", path)
    assert spec is not None and spec.loader is not None
    arena = importlib.util.module_from_spec(spec)
    sys.modules["bench_arena_qmg"] = arena
    spec.loader.exec_module(arena)
    pattern = seat_patterns(CW, "3p")[0]
    outcome = arena.play_one("qmg_cw", "3p", ("heuristic", "random"), pattern, 5, (0, 1), [])
    assert outcome.winners and outcome.score in (0.0, 0.5, 1.0)
    stats = {(0, 1): arena.PairStats()}
    stats[(0, 1)].add(outcome)
    sides = [seat.side for seat in CW.seats(CW.setup(1, "3p", {}))]
    [line] = arena.side_lines(["heuristic", "random"], stats, sides)
    winner = sides[outcome.winners[0]]
    assert f"{winner} 1" in line and line.endswith("of 1.")


def test_cold_war_policy_answers_only_listed_options_in_every_variant() -> None:
    """The rule-based policy (ISMCTS playouts, the evaluation's settling) picks a listed
    option at every decision of a whole game of each variant, and the games end."""
    from warroom.games.qmg_cw.policy import choose

    for seed, variant in enumerate(("3p", "4p", "5p", "6p"), start=31):
        state = CW.setup(seed, variant, {})
        for _ in range(6000):
            decision = CW.decision(state)
            if decision is None:
                break
            seat = decision.seats[0]
            ids = [o.id for o in decision.options_for(seat)]
            option = choose(state, seat, ids)
            assert option in ids, (variant, decision.kind, option, ids)
            state = CW.apply(state, seat, option).state
        assert state.over, variant
