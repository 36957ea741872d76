"""Regressions: every decision advances the game (no enter/cancel cycle a deterministic bot
can loop in), and determinizations from mid-game views of every seat are consistent."""

from __future__ import annotations

from warroom.engine.match import Match
from warroom.engine.rng import Rng
from warroom.games.qmg_cw.content import tables
from warroom.games.qmg_cw.state import CwState
from warroom.games.qmg_cw.v1 import qmg_cw_pb2 as pb

from .helpers import RULES, act, give, options, pc, scenario

VARIANTS = ("3p", "4p", "5p", "6p")


def test_cancelling_a_picker_closes_that_entry_for_the_step() -> None:
    """Entering "remove" or "organic" and cancelling closes that entry: the state changed."""
    state = scenario(pieces=[("moscow", "soviet", "army"), ("south_pacific", "soviet", "navy")])
    give(state, 0, "hand", state.seats[0].deck[:3])
    assert "remove" in options(state, 0)
    before = RULES.encode_bytes(state)
    state = act(act(state, 0, "remove"), 0, "cancel")
    assert RULES.encode_bytes(state) != before
    assert "remove" not in options(state, 0) and "done" in options(state, 0)

    state = scenario(pieces=[("south_pacific", "soviet", "navy")], step="action")
    give(state, 0, "hand", state.seats[0].deck[:3])
    assert "organic" in options(state, 0)
    state = act(act(state, 0, "organic"), 0, "cancel")
    assert "organic" not in options(state, 0)
    assert pc("south_pacific", "soviet", "navy") in state.pieces


def test_no_sequence_of_decisions_returns_to_an_earlier_state() -> None:
    """Seeded games of every variant, biased towards the pickers' entries and cancels,
    never revisit a state.

    A cycle of decisions (enter a picker, cancel it) lets a deterministic bot (the
    one-ply heuristic breaks ties by order) go round forever: the game never ends.
    """
    match = Match(RULES)
    for seed, variant in enumerate(VARIANTS, start=3):
        state = match.start(seed, variant, {})
        rng = Rng(seed)
        seen = {RULES.encode_bytes(state.game)}
        for _ in range(600):
            if state.pending is None:
                break
            seat = rng.choice(state.pending.seats)
            ids = [o.id for o in state.pending.options_for(seat) if o.id != "undo"]
            entries = [i for i in ids if i in ("remove", "organic", "cancel")]
            pick = rng.choice(entries) if entries and rng.random() < 0.7 else rng.choice(ids)
            state = match.apply(state, seat, pick).state
            data = RULES.encode_bytes(state.game)
            assert data not in seen, f"{variant}: {pick!r} returned to an earlier state"
            seen.add(data)


def _check_determinizations(state: CwState, rng: Rng, where: str) -> None:
    """Every seat's determinization reproduces its view and the public view, is sound, and
    offers that seat exactly its true options and the same decision kind."""
    public = RULES.view(state, None)
    truth = RULES.decision(state)
    for seat in range(len(state.seats)):
        view = RULES.view(state, seat)
        sampled = RULES.determinize(view, seat, rng.below(1 << 62))
        label = f"{where}, seat {seat}"
        assert RULES.view(sampled, seat) == view, label
        assert RULES.view(sampled, None) == public, label
        assert RULES.invariants(sampled) == [], label
        decision = RULES.decision(sampled)
        assert (decision is None) == (truth is None), label
        if decision is None or truth is None:
            continue
        assert decision.kind == truth.kind and decision.seats, label
        assert decision.options_for(seat) == truth.options_for(seat), label


def test_determinizations_from_mid_game_and_searched_positions_of_every_seat() -> None:
    """Harness-style checks for every seat of every variant, on positions of seeded games
    and on positions a search reaches by playing on inside a determinization (whose
    playouts must keep a seat to act until the game ends)."""
    match = Match(RULES)
    for seed, variant in enumerate(VARIANTS, start=21):
        state = match.start(seed, variant, {})
        rng = Rng(seed)
        for step in range(260):
            if state.pending is None:
                break
            if step % 5 == 0:
                where = f"{variant} seed {seed} step {step}"
                _check_determinizations(state.game, rng, where)
                seat = rng.below(len(state.game.seats))
                world = RULES.determinize(RULES.view(state.game, seat), seat, rng.below(1 << 62))
                for depth in range(12):
                    decision = RULES.decision(world)
                    if decision is None:
                        assert RULES.result(world) is not None
                        break
                    assert decision.seats, f"{where}: a searched position names no seat"
                    mover = rng.choice(decision.seats)
                    option = rng.choice(decision.options_for(mover)).id
                    world = RULES.apply(world, mover, option).state
                    if depth % 4 == 3:
                        _check_determinizations(world, rng, f"{where} searched {depth}")
            seat = rng.choice(state.pending.seats)
            ids = [o.id for o in state.pending.options_for(seat) if o.id != "undo"]
            state = match.apply(state, seat, rng.choice(ids)).state


def test_opening_determinization_keeps_the_espionage_cards_still_to_place() -> None:
    """An opponent's unfinished opening draw holds the Espionage cards it must still place,
    and only cards of its own deck colour."""
    state = RULES.setup(5, "6p", {})
    for seed in range(20):
        sampled = RULES.determinize(RULES.view(state, 0), 0, seed)
        for index, player in enumerate(sampled.seats[1:], start=1):
            spies = [c for c in player.opening if tables().cards[c].type == "espionage"]
            assert len(spies) >= 1, index
            colours = {tables().cards[c].deck for c in player.opening + player.deck}
            assert colours == {player.colour}, index


def test_the_espionage_step_does_not_reveal_who_holds_an_espionage_card() -> None:
    """A seat with two cards or more is asked in the Espionage step even with no Espionage
    card in hand (it can only pass), so the pending step shows nothing about its hand."""
    state = scenario(step="esp_step")
    plain = [c for c in state.seats[0].deck if tables().cards[c].type != "espionage"][:3]
    give(state, 0, "hand", plain)
    assert options(state, 0) == ["pass"]
    state = act(state, 0, "pass")
    assert RULES.decision(state) is not None


def test_own_view_lists_the_own_deck_sorted() -> None:
    """A player knows what is left in its deck (never the order): realloc options are reproduced."""
    state = RULES.setup(9, "4p", {})
    view = RULES.view(state, 2)
    assert isinstance(view, pb.View)
    assert list(view.seats[2].deck) == sorted(state.seats[2].deck)
    assert list(view.seats[3].deck) == []
    spectator = RULES.view(state, None)
    assert isinstance(spectator, pb.View)
    assert list(spectator.seats[2].deck) == []
