"""Rules-engine core: the game interface, the decision model, deterministic RNG,
undo-aware matches, content packs and the conformance harness. Pure Python, no I/O."""

from warroom.engine.errors import ContentError, IllegalOptionError, RulesError
from warroom.engine.model import (
    SPECTATOR,
    Applied,
    Decision,
    Event,
    Option,
    Result,
    SeatInfo,
    VariantInfo,
)
from warroom.engine.rules import Rules

__all__ = [
    "SPECTATOR",
    "Applied",
    "ContentError",
    "Decision",
    "Event",
    "IllegalOptionError",
    "Option",
    "Result",
    "Rules",
    "RulesError",
    "SeatInfo",
    "VariantInfo",
]
