"""The seam through which the variants' bot seats reach the rules (rulebook 6).

The core rules (setup, the turn flow, board operations) ask the variant questions here:
how many cards a power is dealt, whether humans gift a card to a bot now, what the bot
places, what region reward a bot scores, and so on. They never import the bots package.
The bots package implements `VariantHooks` (`warroom.games.ncw.bots.hooks`) and installs
it when it is imported; the rules' entry point (`warroom.games.ncw.rules`) imports the bots
package, so every game played through the rules has its hooks. Until then any question
raises a `RuntimeError` naming the fix, rather than playing the base game by mistake.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from warroom.games.ncw.state import NcwState, Play


class VariantHooks(Protocol):
    """What the rules ask the variants (every answer is the base game's in the 4-player game)."""

    def on_setup(self, s: NcwState, options: Mapping[str, str]) -> None:
        """After the base setup: difficulty, bot deployments, padlocks, bot vetoes (6.3)."""

    def deploy_options(self, s: NcwState, p: int) -> dict[str, tuple[int, ...]] | None:
        """A power's deployment options ({}: none by decision; None: the base table of 3.5)."""

    def hand_size(self, s: NcwState, p: int) -> int:
        """Cards dealt to p at the start of a turn."""

    def gift_due(self, s: NcwState, stage: str) -> bool:
        """Whether humans give a card to a bot now ("before_exchange" or "after_leftover")."""

    def gift_givers(self, s: NcwState) -> list[int]:
        """The human powers that give a card this turn."""

    def gift_options(self, s: NcwState, p: int) -> list[tuple[str, str]]:
        """p's gift options as (id, label)."""

    def apply_gift(self, s: NcwState, p: int, option: str) -> None:
        """Move the chosen gift card to its bot."""

    def leftover_exchange_allowed(self, s: NcwState) -> bool:
        """Whether anyone may exchange with the leftover pile."""

    def leftover_goes_to_discard(self, s: NcwState, p: int) -> bool:
        """Whether p's card left at the end of a turn goes to the discard pile."""

    def on_turn_start(self, s: NcwState) -> list[str]:
        """The bots' special benefits at the start of a turn; returns log lines."""

    def bot_place(self, s: NcwState, p: int) -> Play | None:
        """A bot's play this round (removing the card from its hand), or None."""

    def region_reward(self, s: NcwState, p: int, r: int, base: int) -> int:
        """The reward p scores for controlling region r."""

    def bot_victors(self, s: NcwState) -> list[int]:
        """Bots with an automatic victory at the end of this turn."""

    def objectives_needed(self, s: NcwState) -> int:
        """Objectives a human needs for an automatic victory."""

    def objectives_award_vp(self, s: NcwState) -> bool:
        """Whether declaring an objective scores its VPs."""


class _NotInstalled:
    """Stands for the hooks until the bots package installs them."""

    def __getattr__(self, name: str) -> object:
        raise RuntimeError(
            f"New Cold War's variant hooks are not installed (asked for {name!r}): "
            "import warroom.games.ncw.rules (or warroom.games.ncw.bots) first"
        )


hooks: VariantHooks = _NotInstalled()  # type: ignore[assignment]
"""The installed variant hooks; the rules call `seam.hooks.<question>(...)`."""


def install(implementation: VariantHooks) -> None:
    """Install the variants' hooks (the bots package does this when imported)."""
    global hooks
    hooks = implementation


def is_bot(s: NcwState, p: int) -> bool:
    """Whether the rules automate power p (a fact of the state, the same in every variant)."""
    return bool(s.bots >> p & 1)
