"""Scoring rounds and victory: 1 VP per controlled Victory Star; 10 VP ahead wins at once;
after the last scoring round the most VPs wins, the Axis on a tie."""

from __future__ import annotations

from warroom.games.qmg_sf.content import tables
from warroom.games.qmg_sf.state import AXIS, SIDES, Ctx, SfState


def stars(s: SfState, side: int) -> int:
    """Victory Stars a side controls now."""
    t = tables()
    return sum(1 for sp, star in enumerate(t.star) if star and s.control[sp] == side)


def score_round(s: SfState, ctx: Ctx) -> None:
    """A scoring round: VPs for stars, then the immediate-victory check (and the final one)."""
    t = tables()
    for side in (0, 1):
        gained = stars(s, side)
        s.vp[side] += gained
        ctx.log(f"scoring: the {SIDES[side]} gain {gained} VP")
    lead = s.vp[0] - s.vp[1]
    if abs(lead) >= 10:
        end(s, 0 if lead > 0 else 1, "10 or more VPs ahead after a scoring round", ctx)
    elif s.round >= t.rounds:
        if lead == 0:
            end(s, AXIS, "tied after the final scoring round (the Axis win ties)", ctx)
        else:
            end(s, 0 if lead > 0 else 1, "most VPs after the final scoring round", ctx)


def end(s: SfState, winner: int, reason: str, ctx: Ctx) -> None:
    """Finish the game."""
    s.over = True
    s.winner = winner
    s.reason = reason
    s.stack.clear()
    s.combat = None
    ctx.log(f"the {SIDES[winner]} win: {reason}")
