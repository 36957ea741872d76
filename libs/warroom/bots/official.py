"""The `ncw-official` kind: New Cold War's official bots (rulebook section 6), as a Bot.

The flowchart lives with the game (`warroom.games.ncw.bots`) and reads a game
state. The adapter never hands it the true state: it samples one
determinization of the seat's view (the seat's own hand and everything public
are exact; other hands, the deck order and secret objectives are sampled) and
asks the flowchart for its option there. The flowchart reads only public board
facts and the bot's own cards, so the sample does not change its answer except
where the rulebook has the bot draw at random.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from typing import Any

from warroom.bots.position import Bot, Choice, SeatPosition, ensure_legal, only_option
from warroom.engine.rng import Rng

MODULE = "warroom.games.ncw.bots"


def _chooser() -> Callable[..., Any] | None:
    try:
        module = importlib.import_module(MODULE)
    except ImportError:
        return None
    for name in ("choose_option", "choose"):
        function = getattr(module, name, None)
        if callable(function):
            return function  # type: ignore[no-any-return]
    return None


def official_available() -> bool:
    """Whether the New Cold War official-bot chooser is importable."""
    return _chooser() is not None


class NcwOfficialBot(Bot):
    """New Cold War's official bot at one difficulty (beginner, intermediate, expert)."""

    kind = "ncw-official"

    def __init__(self, difficulty: str = "expert", seed: int = 0) -> None:
        self.difficulty = difficulty
        self._rng = Rng(seed)

    def choose(self, position: SeatPosition) -> Choice:
        """The flowchart's option on a determinization of the seat's view."""
        single = only_option(position)
        if single is not None:
            return Choice(single)
        chooser = _chooser()
        if chooser is None:
            raise RuntimeError(f"{MODULE} offers no official-bot chooser yet")
        world = position.rules.determinize(position.view, position.seat, self._rng.below(1 << 62))
        ids = position.option_ids()
        params = inspect.signature(chooser).parameters
        kwargs: dict[str, Any] = {}
        if "difficulty" in params:
            kwargs["difficulty"] = self.difficulty
        if "decision" in params:
            answer = chooser(world, position.seat, position.decision, **kwargs)
        else:
            answer = chooser(world, position.seat, ids, **kwargs)
        return Choice(ensure_legal(position, str(answer)), notes={"difficulty": self.difficulty})
