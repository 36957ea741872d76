"""South Front's search: playouts through the other side's turn, the budget spent on the
Action step (every other decision but the mulligan answers the baseline), only card and
action choices screened there."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any

from warroom.bots.evaluation import evaluator_for
from warroom.bots.games import qmg_sf
from warroom.bots.ismcts import Budget, IsmctsBot, _PolicySearch
from warroom.bots.policies import RolloutPolicy, policy_for, policy_rollout
from warroom.bots.position import position_for
from warroom.bots.simple import HeuristicBot
from warroom.engine.rng import Rng
from warroom.games.qmg_sf import heuristic
from warroom.games.qmg_sf import turn as qmg_sf_turn
from warroom.games.qmg_sf.rules import SouthFrontRules
from warroom.games.qmg_sf.state import ALLIES, AXIS, SfState

SF = SouthFrontRules()


def _reach(seed: int, kind: str, side: int, skip: int = 0) -> SfState:
    """The state of the first (after `skip`) `kind` decision of `side` in a policy game."""
    policy = policy_for(SF)
    assert policy is not None
    state = SF.setup(seed, "standard", {})
    while (decision := SF.decision(state)) is not None:
        seat = decision.seats[0]
        ids = [o.id for o in decision.options_for(seat)]
        if decision.kind == kind and seat == side and len(ids) > 1:
            if skip == 0:
                return state
            skip -= 1
        state = SF.apply(state, seat, policy.choose(state, seat, ids)).state
    raise AssertionError(f"no {kind} decision of side {side}")


def test_screening_playouts_run_through_the_other_sides_turn() -> None:
    """From the Allies' Action step a playout ends after the Axis's next turn, past the end
    of the round (the round epoch stopped at the round's end, before the Axis replied)."""
    state = _reach(3, "action", ALLIES)
    policy = policy_for(SF)
    assert policy is not None and policy.epoch is qmg_sf.turn
    scored: list[Any] = []
    evaluator = evaluator_for(SF)
    assert evaluator is not None

    def recording(s: Any, seat: int) -> float:
        scored.append(s)
        return evaluator(s, seat)

    policy_rollout(SF, state, policy, 400, recording, ALLIES)
    end = scored[-1]
    assert end.over or (end.round, end.active) == (state.round + 1, ALLIES)
    round_policy = qmg_sf.search_policy(turns=0)
    policy_rollout(SF, state, round_policy, 400, recording, ALLIES)
    assert (scored[-1].round, scored[-1].active) == (state.round + 1, AXIS)


def test_decisions_but_the_action_step_answer_the_heuristic_choice_without_playouts() -> None:
    """A movement step or a payment gets no playouts, and its answer is the heuristic bot's
    with as many samples as the search averages its priors over (the same worlds: both draw
    them from one seeded generator), scored by the search's evaluation (threatened stars
    counted)."""
    policy = policy_for(SF)
    assert policy is not None and policy.evaluator is not None
    for kind in ("move1", "pay"):
        state = _reach(3, kind, AXIS, skip=1)
        position = position_for(SF, state, AXIS, SF.decision(state))
        choice = IsmctsBot(Budget(iterations=50), seed=1).choose(position)
        assert choice.iterations == 0, kind
        assert all(s.visits == 0 for s in choice.analysis)
        worlds = qmg_sf.PRIOR_WORLDS
        heuristic_bot = HeuristicBot(seed=1, samples=worlds, evaluator=policy.evaluator)
        assert choice.option_id == heuristic_bot.choose(position).option_id


def test_action_step_is_searched_and_screens_only_card_choices() -> None:
    """The Action step's search plays options out, and no removal of an own piece or
    declaration of war challenges the baseline."""
    state = _reach(3, "action", AXIS, skip=1)
    position = position_for(SF, state, AXIS, SF.decision(state))
    ids = position.option_ids()
    assert any(i.startswith(("rm", "war")) for i in ids)
    choice = IsmctsBot(Budget(iterations=40), seed=1).choose(position)
    assert choice.iterations >= 20
    visits = {s.option_id: s.visits for s in choice.analysis}
    assert sum(1 for i in ids if visits[i] > 0) >= 3
    policy = policy_for(SF)
    assert policy is not None
    search = _PolicySearch(position, Rng(1), policy, 400)
    world, decision = search._sample()
    challengers = search._open(world, decision, ids)
    assert set(challengers) == {
        i for i in ids if i != search.baseline and not i.startswith(("rm", "war"))
    }


def _decisions(policy: RolloutPolicy) -> Iterator[tuple[SfState, str, int, list[str], str]]:
    """Every decision of policy games (seeds 1-19): state, kind, seat, options, the choice."""
    for seed in range(1, 20):
        state = SF.setup(seed, "standard", {})
        while (decision := SF.decision(state)) is not None:
            seat = decision.seats[0]
            ids = [o.id for o in decision.options_for(seat)]
            option = policy.choose(state, seat, ids)
            yield state, decision.kind, seat, ids, option
            state = SF.apply(state, seat, option).state


def _card_choice(side: int) -> SfState:
    """A policy game's first Action step of `side` where the one-ply choice among its cards
    and the policy's option differs from the policy's."""
    for state, kind, seat, ids, own in _decisions(qmg_sf.search_policy(reply_for=())):
        chosen = kind == "action" and seat == side and len(ids) > 1
        if chosen and qmg_sf.card_reply(state, seat, ids) != own:
            return state
    raise AssertionError(f"no card choice of side {side}")


def test_axis_playouts_model_the_allied_card_choice_by_one_ply() -> None:
    """In the Axis's searches the Allies' Action step is the evaluation's best card (or the
    policy's option), not the policy's first card; the Allies' own searches keep the policy."""
    state = _card_choice(ALLIES)
    ids = [o for o, _ in qmg_sf_turn.options(state)]
    policy = qmg_sf.search_policy(reply_for=(AXIS,))
    assert policy.reply is not None
    reply = policy.reply(state, ALLIES, ids, AXIS)
    own = policy.choose(state, ALLIES, ids)
    assert reply is not None and reply != own
    cards = [i for i in ids if i.startswith(("play", "ct"))]
    values = [heuristic.evaluate(SF.apply(state, ALLIES, i).state, ALLIES) for i in cards]
    assert reply == cards[values.index(max(values))]
    assert policy.reply(state, ALLIES, ids, ALLIES) is None
    every = qmg_sf.search_policy(reply_for=(AXIS,), reply_every=True)
    assert every.reply is not None
    assert every.reply(state, ALLIES, ids, AXIS) == qmg_sf.one_ply(
        state, ALLIES, [i for i in ids if not i.startswith(("rm", "war"))]
    )


def test_playouts_ask_the_reply_model_for_the_other_seat_only() -> None:
    """A playout of the Axis's search takes the other seat's choices from the reply model
    (where it answers) and never asks it for the searching seat."""
    state = _reach(3, "action", AXIS)
    base = qmg_sf.search_policy(reply_for=(AXIS,))
    asked: list[tuple[int, str | None]] = []

    def spy(s: Any, seat: int, options: Sequence[str], searcher: int) -> str | None:
        assert base.reply is not None
        answer = base.reply(s, seat, options, searcher)
        asked.append((seat, answer))
        return answer

    policy = replace(base, reply=spy)
    policy_rollout(SF, state, policy, 400, evaluator_for(SF), AXIS)
    assert asked and all(seat == ALLIES for seat, _ in asked)
    assert any(answer is not None for _, answer in asked)
    assert policy.verifier().reply is spy


def test_walking_playouts_take_victory_stars_in_movement_steps() -> None:
    """With `walk`, a playout's movement step walks a land piece into a Victory Star (taking
    it, or garrisoning an exposed one); the policy `choose` itself (the evaluation's) ends
    the step."""
    from warroom.games.qmg_sf.content import tables
    from warroom.games.qmg_sf.policy import choose

    for state, kind, seat, ids, option in _decisions(qmg_sf.search_policy(walk=True)):
        if kind == "move1" and option != "done":
            space = int(option.split("-")[1])
            assert tables().star[space] and choose(state, seat, ids) == "done"
            assert SF.apply(state, seat, option).state.control[space] == seat
            return
    raise AssertionError("no walk into a Victory Star")


def test_the_registered_policy_models_the_reply_for_both_sides_and_walks() -> None:
    """The South Front policy the bots use has the tuned playouts on: the other side's
    Action step by `card_reply` in both sides' searches (the playout asks it only for the
    other seat), and walking movement steps."""
    policy = policy_for(SF)
    assert policy is not None and policy.reply is not None
    assert policy.choose is qmg_sf.walking_choice
    for side in (AXIS, ALLIES):
        state = _card_choice(side)
        ids = [o for o, _ in qmg_sf_turn.options(state)]
        assert policy.reply(state, side, ids, 1 - side) == qmg_sf.card_reply(state, side, ids)


def test_the_baseline_is_the_heuristic_choice_over_several_worlds() -> None:
    """The Action step's baseline averages the one-step priors over `PRIOR_WORLDS`
    determinizations: it is the 4-sample heuristic bot's choice, in positions where the
    1-sample bot chooses otherwise (both scoring with the search's evaluation)."""
    assert qmg_sf.PRIOR_WORLDS == 4
    policy = policy_for(SF)
    assert policy is not None
    value = policy.evaluator
    for seed, skip in ((3, 2), (3, 7), (7, 7)):
        state = _reach(seed, "action", AXIS, skip)
        position = position_for(SF, state, AXIS, SF.decision(state))
        one = HeuristicBot(seed=1, samples=1, evaluator=value).choose(position).option_id
        four = HeuristicBot(seed=1, samples=4, evaluator=value).choose(position).option_id
        assert one != four
        assert IsmctsBot(Budget(iterations=1), seed=1).choose(position).notes["policy"] == four
