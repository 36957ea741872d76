"""Player ratings: openskill Plackett-Luce over team and multi-faction results. Pure, no I/O.

A finished game gives each seat a finishing rank. Seats of one team (an allied bloc) form
one openskill team whose rank is its best seat's; with one seat per team this is the
multi-faction (3- or 4-way) case. In a game whose allies still compete for an individual win
(`Rules.team_victory` False: New Cold War) every seat is its own openskill team
(`rating_team`), so a power is not credited with its ally's victory. Bots are rated too: each bot kind and difficulty is a
pseudo-player (`BotChoice.pseudo_player_id`). A rater sitting in several seats of one game
(three seats played by the same bot) moves by the mean of its seats' changes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache

from openskill.models import PlackettLuce


@dataclass(frozen=True, slots=True)
class SkillRating:
    """An openskill rating: mean, deviation and games rated."""

    mu: float = 25.0
    sigma: float = 25.0 / 3.0
    games: int = 0

    @property
    def ordinal(self) -> float:
        """The conservative display rating, mu - 3 sigma."""
        return self.mu - 3.0 * self.sigma


@dataclass(frozen=True, slots=True)
class RatedSeat:
    """One seat of a finished game: who played it, for which team, and its finishing rank."""

    rater_id: str
    team: str
    rank: int


def rating_team(team: str, seat_index: int, team_victory: bool) -> str:
    """The openskill team a seat is rated in: its team where teams win together, else itself."""
    return team if team_victory else f"seat {seat_index}"


@cache
def _model() -> PlackettLuce:
    return PlackettLuce()


def rate(seats: Sequence[RatedSeat], current: Mapping[str, SkillRating]) -> dict[str, SkillRating]:
    """New ratings of every rater in `seats` after one game (missing raters start fresh).

    Raises ValueError when fewer than two teams took part.
    """
    teams: dict[str, list[RatedSeat]] = {}
    for seat in seats:
        teams.setdefault(seat.team, []).append(seat)
    if len(teams) < 2:
        raise ValueError(f"a rated game needs two teams or more, got {sorted(teams)}")
    model = _model()
    names = list(teams)
    groups = [
        [
            model.rating(
                mu=current.get(s.rater_id, SkillRating()).mu,
                sigma=current.get(s.rater_id, SkillRating()).sigma,
            )
            for s in teams[name]
        ]
        for name in names
    ]
    ranks = [float(min(s.rank for s in teams[name])) for name in names]
    updated = model.rate(groups, ranks=ranks)
    deltas: dict[str, list[tuple[float, float]]] = {}
    for name, group in zip(names, updated, strict=True):
        for seat, new in zip(teams[name], group, strict=True):
            old = current.get(seat.rater_id, SkillRating())
            deltas.setdefault(seat.rater_id, []).append((new.mu - old.mu, new.sigma))
    result: dict[str, SkillRating] = {}
    for rater_id, changes in deltas.items():
        old = current.get(rater_id, SkillRating())
        mu = old.mu + sum(d for d, _ in changes) / len(changes)
        sigma = sum(s for _, s in changes) / len(changes)
        result[rater_id] = SkillRating(mu, sigma, old.games + 1)
    return result
