"""Option labels say what each option does (issue 17 §6): deployments, vetoes, objectives, tokens."""

from __future__ import annotations

from typing import Any

from warroom.engine.match import Match
from warroom.engine.model import Decision
from warroom.engine.registry import get_rules
from warroom.games.ncw.state import Frame
from warroom.games.ncw.tests.helpers import RULES, blank, cid, give, pid, with_ops


def _labels(decision: Decision | None, seat: int) -> dict[str, str]:
    assert decision is not None
    return {o.id: o.label for o in decision.options_for(seat)}


def _first(variant: str, kind: str) -> tuple[Any, Decision]:
    """Play first options from the start of a variant to its first decision of `kind`."""
    match: Match[Any] = Match(get_rules("ncw"))
    state = match.start(3, variant, {})
    while state.pending is not None and state.pending.kind != kind:
        seat = state.pending.seats[0]
        state = match.apply(state, seat, state.pending.options_for(seat)[0].id).state
    assert state.pending is not None
    return state, state.pending


def test_deployment_options_name_the_countries_they_control() -> None:
    _, decision = _first("4p", "deploy")
    seat = decision.seats[0]
    labels = _labels(decision, seat)
    assert seat == pid("US"), "the US deploys first (3.5)"
    assert labels["A"] == "Deployment A: control Turkey, Israel, Philippines"
    assert labels["B"] == "Deployment B: control Panama, Colombia, South Korea"
    assert all("option" not in label for label in labels.values())


def test_variant_deployments_name_their_countries() -> None:
    _, decision = _first("2p-us-russia", "deploy")
    labels = _labels(decision, decision.seats[0])
    assert labels["A"].startswith("Deployment A: control ")
    named = labels["A"].removeprefix("Deployment A: control ").split(", ")
    assert len(named) >= 3 and all(cid(name) >= 0 for name in named)


def test_objective_choices_name_the_objective() -> None:
    _, decision = _first("4p", "keep")
    for seat in decision.seats:
        for option in decision.options_for(seat):
            n = option.id.removeprefix("discard:")
            assert option.label.startswith(f"Discard objective {n} (")
            assert "VP)" in option.label and option.label.endswith("keep the others")


def test_veto_options_name_the_card_and_the_political_cost() -> None:
    s = blank()
    s.forget()
    s.stack.clear()
    s.push(Frame("deploy", seat=0))
    s.push(Frame("veto", seat=pid("US"), card=1))
    labels = _labels(RULES.decision(s), pid("US"))
    vetoes = [label for key, label in labels.items() if key.startswith("veto:")]
    assert vetoes and all(label.startswith("Veto ") and "(costs " in label for label in vetoes)
    assert labels["pass"].startswith("Do not veto ")


def test_token_option_says_whether_it_places_or_removes() -> None:
    s = blank()
    give(s, "US", "Panama")
    s.access[pid("US")] = (1 << 7) - 1
    s = with_ops(s, pid("US"), 2)
    assert RULES.decision(s) is not None
    labels = _labels(RULES.decision(s), pid("US"))
    assert labels["token:panama"] == "Place your bloc's stability token in Panama"
    s.forget()
    s.token[cid("Colombia")] = 2  # a red token
    labels = _labels(RULES.decision(s), pid("US"))
    assert labels["token:colombia"] == "Remove the rival stability token from Colombia"
