"""Edge validation shared by the lobby, the bot service and the game service.

Every name a request carries is checked where it enters, before it reaches SQL, Redis or
the rules: free text has no control characters and a bounded length, ids are short
printable tokens, and game, variant, side and bot names are known values (the message
lists them). A refusal is INVALID_ARGUMENT with a stable reason and the field
(`services.common.errors.invalid`); the reporting service supplies its ErrorInfo domain.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from typing import Any

from services.common.errors import RpcError, invalid
from warroom.api import kinds
from warroom.bots.registry import KINDS, default_difficulty
from warroom.engine.errors import RulesError
from warroom.engine.registry import game_ids

# Longest values accepted at the edge.
ID_MAX = 64
NAME_MAX = 32
TEXT_MAX = 256
OPTION_MAX = 64
OPTIONS_MAX = 32
ID_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:\-]*")
# Unicode categories refused in any text: controls (NUL, BEL, ESC, ...), format characters
# (bidi overrides, zero-width), surrogates, private use and unassigned code points.
_REFUSED = frozenset({"Cc", "Cf", "Cs", "Co", "Cn"})
# Format characters that are part of ordinary text: the zero-width joiner of emoji sequences.
_ALLOWED = frozenset({"\u200d"})


def _shown(value: str) -> str:
    """A value as quoted in a message: escaped and cut short."""
    return repr(value[:40]) + ("..." if len(value) > 40 else "")


def check_text(value: str, field: str, limit: int = TEXT_MAX, *, required: bool = False) -> str:
    """Free text (display names, labels): no control or format characters, at most `limit`
    characters; BAD_TEXT, TOO_LONG or MISSING_FIELD otherwise."""
    if not value:
        if required:
            raise invalid("MISSING_FIELD", f"{field} is required", field)
        return value
    if len(value) > limit:
        raise invalid(
            "TOO_LONG", f"{field} is longer than {limit} characters ({len(value)})", field
        )
    for char in value:
        if unicodedata.category(char) in _REFUSED and char not in _ALLOWED:
            raise invalid(
                "BAD_TEXT",
                f"{field} contains a control character U+{ord(char):04X}: {_shown(value)}",
                field,
            )
    return value


def check_id(value: str, field: str, *, required: bool = True, limit: int = ID_MAX) -> str:
    """An id (table, ticket, player, party, game): ASCII letters, digits and `._:-`, at most
    `limit` characters; MALFORMED_ID or MISSING_FIELD otherwise."""
    if not value:
        if required:
            raise invalid("MISSING_FIELD", f"{field} is required", field)
        return value
    if len(value) > limit or not ID_RE.fullmatch(value):
        raise invalid(
            "MALFORMED_ID",
            f"{field} {_shown(value)} is malformed: expected at most {limit} letters, digits "
            "or ._:-",
            field,
        )
    return value


def check_ids(values: Iterable[str], field: str) -> list[str]:
    """Each of a repeated id field (see `check_id`)."""
    return [check_id(v, f"{field}[{i}]") for i, v in enumerate(values)]


def check_choice(value: str, known: Iterable[str], field: str, reason: str, what: str) -> str:
    """One of `known` (empty passes: the caller applies its default); `reason` otherwise,
    the message listing the known values."""
    options = list(known)
    if value and value not in options:
        check_text(value, field, OPTION_MAX)
        raise invalid(
            reason,
            f"unknown {what}: {_shown(value)} (known: {', '.join(options) or 'none'})",
            field,
        )
    return value


def check_options(options: Mapping[str, str], field: str = "options") -> dict[str, str]:
    """Game options: at most OPTIONS_MAX entries of short, clean keys and values."""
    if len(options) > OPTIONS_MAX:
        raise invalid("TOO_MANY_OPTIONS", f"at most {OPTIONS_MAX} {field}", field)
    for key, value in options.items():
        check_text(key, f"{field} key", OPTION_MAX, required=True)
        check_text(value, f"{field}[{key}]", OPTION_MAX)
    return dict(options)


def check_game(kind: int, rules_id: str, field: str = "game", *, required: bool = True) -> str:
    """The rules-registry id a request names (`rules_id` wins over `kind`); UNKNOWN_GAME
    listing the registered games, MISSING_FIELD when neither is set and one is required."""
    if rules_id:
        return check_choice(rules_id, game_ids(), "rules_id", "UNKNOWN_GAME", "game")
    if kind:
        try:
            return kinds.game_id(kind)
        except RulesError:
            names = ", ".join(f"{k} ({g})" for g, k in kinds.GAME_KINDS.items())
            raise invalid(
                "UNKNOWN_GAME", f"unknown game kind {kind} (known: {names})", field
            ) from None
    if required:
        raise invalid("MISSING_FIELD", "game or rules_id is required", field)
    return ""


def check_bot(kind: str, difficulty: str, game: str, field: str) -> tuple[str, str]:
    """A bot kind and difficulty that can play `game` (difficulty "" = the kind's default):
    UNKNOWN_BOT_KIND, UNKNOWN_DIFFICULTY or BOT_CANNOT_PLAY, listing the known values."""
    check_choice(kind, KINDS, f"{field}.kind", "UNKNOWN_BOT_KIND", "bot kind")
    if kind and game not in KINDS[kind].games():
        playing = [k for k, info in KINDS.items() if game in info.games()]
        raise invalid(
            "BOT_CANNOT_PLAY",
            f"bot kind {kind!r} cannot play {game!r} (bots for it: {', '.join(playing)})",
            f"{field}.kind",
        )
    if difficulty:
        if not kind:
            check_text(difficulty, f"{field}.difficulty", OPTION_MAX)
            return kind, difficulty
        check_choice(
            difficulty,
            KINDS[kind].difficulties,
            f"{field}.difficulty",
            "UNKNOWN_DIFFICULTY",
            f"difficulty for bot kind {kind!r}",
        )
    return kind, difficulty or (default_difficulty(kind) if kind else "")


CLOCK_MAX_S = 30 * 24 * 3600


def check_clock(clock: Any, game: str, field: str) -> None:
    """A turn clock (common.v1.ClockSpec): a known mode and fallback, times between 0 and
    30 days, and a fallback bot that can play `game`; BAD_CLOCK otherwise."""
    modes = clock.DESCRIPTOR.enum_types_by_name["Mode"].values_by_number
    fallbacks = clock.DESCRIPTOR.enum_types_by_name["Fallback"].values_by_number
    if clock.mode not in modes:
        raise invalid("BAD_CLOCK", f"unknown clock mode {clock.mode}", f"{field}.mode")
    if clock.fallback not in fallbacks:
        raise invalid("BAD_CLOCK", f"unknown clock fallback {clock.fallback}", f"{field}.fallback")
    for name in ("initial_seconds", "increment_seconds"):
        value = getattr(clock, name)
        if not 0 <= value <= CLOCK_MAX_S:
            raise invalid(
                "BAD_CLOCK", f"{name} must be between 0 and {CLOCK_MAX_S}", f"{field}.{name}"
            )
    bot = clock.fallback_bot
    if bot.kind or bot.difficulty:
        check_bot(bot.kind, bot.difficulty, game, f"{field}.fallback_bot")


def check_difficulty(difficulty: str, kind: str, field: str) -> str:
    """A difficulty of a known bot kind (empty passes)."""
    info = KINDS.get(kind)
    known = info.difficulties if info is not None else ()
    return check_choice(
        difficulty, known, field, "UNKNOWN_DIFFICULTY", f"difficulty for bot kind {kind!r}"
    )


__all__ = [
    "RpcError",
    "check_bot",
    "check_choice",
    "check_clock",
    "check_difficulty",
    "check_game",
    "check_id",
    "check_ids",
    "check_options",
    "check_text",
    "invalid",
]
