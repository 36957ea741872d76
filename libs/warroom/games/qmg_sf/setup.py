"""Setup: the board, starting pieces, decks, opening hands, First Game hands and mulligans."""

from __future__ import annotations

from warroom.engine import rng
from warroom.games.qmg_sf.content import COUNTRIES, tables
from warroom.games.qmg_sf.state import ALLIES, AXIS, INITIAL, NEUTRAL, OFF, Frame, SfState

VARIANTS: dict[str, str] = {
    "standard": "Both players shuffle their Mid War cards and draw 5; one mulligan each.",
    "first_game": "Opening hands are the cards labelled 'First Game' (the Allies choose 5 of their 6).",
}


def new_state(seed: int, variant: str) -> SfState:
    """A new game waiting for the setup decisions (First Game choice, mulligans)."""
    t = tables()
    s = SfState(variant=variant, rng=rng.seed_state(seed))
    s.loc = [OFF] * len(t.piece_faction)
    s.on = [OFF] * len(t.piece_faction)
    s.control = list(t.control_start)
    s.step_changes = {}
    s.minor = [NEUTRAL] * len(COUNTRIES)
    s.mcf = [n if t.country[sp] >= 0 else 0 for sp, n in enumerate(t.mcf_start)]
    for key, space in t.start:
        fac, kind = divmod(key, 8)
        piece = next(
            p
            for p in range(len(t.piece_faction))
            if s.loc[p] == OFF and t.piece_faction[p] == fac and t.piece_kind[p] == kind
        )
        s.loc[piece] = space
    order: list[Frame] = []
    for side in (AXIS, ALLIES):
        mid = [c for c in t.deck_cards[side] if t.cards[c].era == "mid"]
        s.late[side] = [c for c in t.deck_cards[side] if t.cards[c].era == "late"]
        s.contingency.update(dict.fromkeys(t.contingency_cards[side], INITIAL))
        if variant == "first_game":
            labelled = [c for c in mid if t.cards[c].first_game]
            rest = [c for c in mid if c not in labelled]
            s.rng = rng.shuffle(s.rng, rest)
            if len(labelled) <= 5:
                s.hands[side] = labelled
            else:
                s.hands[side] = labelled
                s.decks[side] = rest
                order.append(Frame("fg_leave", side))
                continue
            s.decks[side] = rest
        else:
            s.rng = rng.shuffle(s.rng, mid)
            s.hands[side] = [mid.pop() for _ in range(5)]
            s.decks[side] = mid
    order += [Frame("mulligan", AXIS), Frame("mulligan", ALLIES)]
    s.stack = list(reversed(order))
    s.phase = "setup"
    return s
