"""Golden seeded games: the final state, option log and events of a few fixed games, pinned.

The replay tests check that a game replays from its seed and log in the same build; these pin
the outcome across builds, so a speed change that alters any decision, event or final state
fails here. The hashes were recorded before the issue-21 speed pass; change them only for a
deliberate change of the rules or the bots (and say so in the commit).
"""

from __future__ import annotations

import hashlib

import pytest

from warroom.engine.match import Match
from warroom.engine.model import UNDO_OPTION_ID
from warroom.engine.rng import Rng
from warroom.games.ncw.bots.policy import choose_option
from warroom.games.ncw.rules import NewColdWarRules
from warroom.games.ncw.state import NcwState

RULES = NewColdWarRules()


def _digest(parts: list[str]) -> str:
    """A short hash of a game's log lines."""
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def _final(state: NcwState) -> str:
    """A short hash of a state's deterministic encoding."""
    return hashlib.sha256(RULES.encode_bytes(state)).hexdigest()[:16]


def bot_game(seed: int) -> tuple[int, str, str]:
    """A 4-bot game: (decisions, final state hash, hash of options, events and views)."""
    state = RULES.setup(seed, "4p", {})
    log: list[str] = []
    while (decision := RULES.decision(state)) is not None:
        seat = decision.seats[0]
        option = choose_option(state, seat, decision)
        log.append(f"{decision.kind}|{seat}|{option}|{len(decision.options_for(seat))}")
        applied = RULES.apply(state, seat, option)
        log.extend(f"{e.kind}|{e.text}|{sorted(e.visible_to or ())}" for e in applied.events)
        state = applied.state
    log.append(RULES.view(state, None).SerializeToString(deterministic=True).hex())
    return len(log), _final(state), _digest(log)


def random_game(seed: int, variant: str = "4p") -> tuple[int, str, str]:
    """A seeded random playout through `Rules.apply` (bot seats played by the rules' own bots
    in a bot variant): (decisions, final state hash, hash of options and labels)."""
    rng = Rng(seed)
    state = RULES.setup(seed, variant, {})
    log: list[str] = []
    while (decision := RULES.decision(state)) is not None:
        seat = rng.choice(decision.seats)
        options = decision.options_for(seat)
        option = rng.choice(options).id
        log.append(f"{seat}|{option}|{'/'.join(o.id + '=' + o.label for o in options)}")
        state = RULES.apply(state, seat, option).state
    return len(log), _final(state), _digest(log)


def match_game(seed: int) -> tuple[int, str, str]:
    """A seeded random playout through `Match` (decision ids, undo): (decisions, hashes)."""
    rng = Rng(seed)
    match = Match(RULES)
    state = match.start(seed, "4p", {})
    log: list[str] = []
    while state.pending is not None:
        seat = rng.choice(state.pending.seats)
        ids = [o.id for o in state.pending.options_for(seat) if o.id != UNDO_OPTION_ID]
        option = rng.choice(ids)
        log.append(f"{state.pending.id}|{seat}|{option}")
        state = match.apply(state, seat, option).state
    return len(log), _final(state.game), _digest(log)


BOT_GAMES = {
    1: (918, "de57cf1d22e1ca4f", "99d28514498bfd38"),
    2: (929, "9c6541287e911447", "b9ff082a7d127046"),
    3: (868, "69bb39e13a64eda0", "979e4ce6c37ada80"),
    7: (959, "76017cf86b659593", "17dd91f11a897052"),
}
RANDOM_GAMES = {
    (1001, "4p"): (438, "f1ebbcbc1b990dcd", "21ed4d5dc4fa4de0"),
    (1002, "4p"): (430, "6cb0d82b2242d9eb", "a44c8fe81d61c10e"),
    (1003, "4p"): (448, "cfc5d79a821d6233", "96f87017cf9336c3"),
    (1006, "solitaire-us"): (94, "11288546609a124d", "bbb0b1714a41bac8"),
    (1007, "solitaire-china"): (89, "bdd96e54bf6f2974", "52c7446e15b857a7"),
}
MATCH_GAMES = {
    1004: (430, "8283a86b758f1685", "7db83e8e15dc6045"),
    1005: (431, "e3eb07fa1f881258", "c9cdd6a7b7c635ae"),
}


@pytest.mark.parametrize("seed", sorted(BOT_GAMES))
def test_four_bot_game_is_pinned(seed: int) -> None:
    assert bot_game(seed) == BOT_GAMES[seed]


@pytest.mark.parametrize("game", sorted(RANDOM_GAMES))
def test_random_playout_is_pinned(game: tuple[int, str]) -> None:
    assert random_game(*game) == RANDOM_GAMES[game]


@pytest.mark.parametrize("seed", sorted(MATCH_GAMES))
def test_match_playout_is_pinned(seed: int) -> None:
    assert match_game(seed) == MATCH_GAMES[seed]
