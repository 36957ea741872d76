"""Seeded games over every variant and difficulty, with the official bots at every bot seat.

The harness (`warroom.engine.harness.playout`) runs once per variant with bounded checks; the
bulk of the seeded games are lighter: the humans' seats are played by seeded random choices
(or by the `ncw-official` chooser), and each game must end with a result, never ask a bot seat,
keep the invariants and replay bit for bit from its seed and option log.
"""

from __future__ import annotations

import pytest

from warroom.engine.errors import SetupError
from warroom.engine.harness import HarnessConfig, playout
from warroom.engine.rng import Rng
from warroom.games.ncw.bots.policy import choose_option
from warroom.games.ncw.bots.variants import variant_infos
from warroom.games.ncw.rules import NewColdWarRules
from warroom.games.ncw.state import NcwState

RULES = NewColdWarRules()
INFOS = {v.id: v for v in variant_infos()}
BOT_VARIANTS = [v for v in INFOS if INFOS[v].bot_seats]
DIFFICULTIES = ("beginner", "intermediate", "expert")
LIGHT = [
    (variant, level, seed)
    for variant in BOT_VARIANTS
    for level in DIFFICULTIES
    for seed in range(6)
]


HARNESS = HarnessConfig(
    max_steps=5_000, full_check_every=10_000, options_per_check=1, undo_probability=0.02
)


def options_for(variant: str, level: str) -> dict[str, str]:
    """The setup options of a variant at a difficulty."""
    return {"difficulty": level} if INFOS[variant].bot_seats else {}


def play(
    variant: str, level: str, seed: int, chooser: bool = False
) -> tuple[NcwState, list[tuple[int, str]]]:
    """One seeded game; human seats by seeded random choice (or the official chooser)."""
    rng = Rng(seed * 7919 + 11)
    state = RULES.setup(seed, variant, options_for(variant, level))
    log: list[tuple[int, str]] = []
    bots = set(INFOS[variant].bot_seats)
    for _ in range(5_000):
        decision = RULES.decision(state)
        if decision is None:
            return state, log
        assert not bots & set(decision.seats), f"bot seats asked in {decision.kind!r}"
        seat = rng.choice(decision.seats)
        if chooser:
            option = choose_option(state, seat, decision, level)
        else:
            option = rng.choice(decision.options_for(seat)).id
        log.append((seat, option))
        state = RULES.apply(state, seat, option).state
    raise AssertionError("the game did not end")


def test_setup_takes_the_difficulty_option_of_bot_variants_only() -> None:
    state = RULES.setup(0, "solitaire-us", {"difficulty": "expert"})
    assert state.flags["difficulty"] == 2 and state.bots == 0b1110
    with pytest.raises(SetupError):
        RULES.setup(0, "solitaire-us", {"difficulty": "legendary"})
    with pytest.raises(SetupError):
        RULES.setup(0, "4p", {"difficulty": "expert"})
    assert all(
        v.options == ({"difficulty": ("intermediate", "beginner", "expert")} if v.bot_seats else {})
        for v in RULES.variants()
    )


def test_every_variant_is_offered_by_the_rules() -> None:
    assert [v.id for v in RULES.variants()] == list(INFOS)
    assert {v.id: v.bot_seats for v in RULES.variants()} == {
        k: v.bot_seats for k, v in INFOS.items()
    }


@pytest.mark.parametrize(("variant", "level", "seed"), LIGHT)
def test_seeded_bot_variant_game(variant: str, level: str, seed: int) -> None:
    state, log = play(variant, level, seed)
    assert state.over and RULES.result(state) is not None
    assert RULES.invariants(state) == []
    if seed == 0:
        replay = RULES.setup(seed, variant, options_for(variant, level))
        for seat, option in log:
            replay = RULES.apply(replay, seat, option).state
        assert RULES.encode_bytes(replay) == RULES.encode_bytes(state)


@pytest.mark.parametrize("seed", range(6))
def test_four_official_bots_play_to_the_end(seed: int) -> None:
    state, log = play("4p", "intermediate", seed, chooser=True)
    result = RULES.result(state)
    assert result is not None and result.winners
    assert len(log) > 100


@pytest.mark.parametrize("variant", BOT_VARIANTS)
def test_official_bots_at_the_human_seats_too(variant: str) -> None:
    state, _ = play(variant, "expert", 3, chooser=True)
    assert state.over


@pytest.mark.parametrize(("index", "variant"), list(enumerate(INFOS)))
def test_harness_over_every_variant(index: int, variant: str) -> None:
    level = DIFFICULTIES[index % 3]
    report = playout(RULES, 100 + index, variant, options_for(variant, level), config=HARNESS)
    assert report.failures == []
    assert report.finished


def test_setup_places_the_bots_and_offers_the_scenario_deployments() -> None:
    from warroom.games.ncw.bots.variants import country_index

    state = RULES.setup(4, "2p-china-eu", {"difficulty": "expert"})
    for name in ("Turkey", "Philippines", "Israel", "Colombia"):
        assert state.control[country_index(name)] == 0
    for name in ("Venezuela", "Ukraine", "Iran", "Libya", "Cuba", "Vietnam"):
        assert state.control[country_index(name)] == 3
    assert state.flags["difficulty"] == 2


def test_the_bots_ally_holds_the_extra_markers() -> None:
    from warroom.games.ncw import content, flow

    state = RULES.setup(2, "3p-bot-china", {"difficulty": "beginner"})
    tibet = next(
        c.number for c in content.tables().cards.values() if c.name == "The Tibetan Conflict"
    )
    assert {"ally2", "ally3"} <= set(flow.veto_markers(state, 3, tibet))
    assert flow.veto_cost(tibet, "ally3") == 3


@pytest.mark.parametrize("level", DIFFICULTIES)
def test_bots_never_hold_objectives_and_humans_do(level: str) -> None:
    state = RULES.setup(5, "solitaire-china", {"difficulty": level})
    while state.turn == 1 and (decision := RULES.decision(state)) is not None:
        seat = decision.seats[0]
        state = RULES.apply(state, seat, decision.options_for(seat)[0].id).state
    assert state.objectives[0] == state.objectives[1] == state.objectives[3] == []
    assert state.objectives[2]
    assert not ({1, 7} & set(state.objectives[2]) | {1, 7} & set(state.objective_decks[2]))
