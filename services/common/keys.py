"""The platform's secret keys: rotatable key rings and the policy that refuses weak ones.

Three independent keys, each with its own environment variable:

| key | variable | signs / proves |
|---|---|---|
| service credential | `WARROOM_SERVICE_SECRET` | internal callers (lobby, bot worker) towards the authority and BotService |
| bot seat tokens | `WARROOM_BOT_TOKEN_SECRET` | the derived seat tokens of bot seats (HMAC per game and seat) |
| player tokens | `WARROOM_PLAYER_TOKEN_SECRET` | the lobby's player tokens (HS256 JWTs) |

Each also has `..._PREVIOUS`: a comma-separated list of retired keys still accepted for
verification (never used to sign), so a key can be rotated without logging anyone out or
breaking a running game (docs/deploy.md, "Rotating a key").

Outside development mode (`WARROOM_ENV=development`) a process refuses to start when a key
is missing, is a known default or a placeholder, is shorter than `MIN_SECRET_LENGTH`
characters, or is shared by two roles (`check_secrets`).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

MIN_SECRET_LENGTH = 32
GENERATE_HINT = 'python -c "import secrets; print(secrets.token_urlsafe(32))"'

# Development-mode stand-ins; none of them is ever accepted outside development mode.
DEV_SERVICE_SECRET = "warroom-dev-insecure-service-secret"
_DEV_PLAYER_LABEL = b"warroom-lobby-player-tokens"

# Strings that were shipped at some point, or that people paste from examples.
KNOWN_DEFAULTS = frozenset(
    {
        DEV_SERVICE_SECRET,
        "change-me-in-production",
        "change-me",
        "changeme",
        "secret",
        "password",
        "test-service-secret",
        "bench-secret",
    }
)
_PLACEHOLDER_WORDS = (
    "change-me",
    "changeme",
    "change_me",
    "replace-me",
    "replace_me",
    "placeholder",
    "example",
    "insecure",
    "your-secret",
    "dummy",
    "todo",
    "xxxx",
    "<",
    "${",
)


@dataclass(frozen=True, slots=True)
class Role:
    """One key's role: its setting (and environment variable) name and what it protects."""

    field: str
    variable: str
    purpose: str


SERVICE = Role("service_secret", "WARROOM_SERVICE_SECRET", "the service credential")
BOT_TOKENS = Role("bot_token_secret", "WARROOM_BOT_TOKEN_SECRET", "the key of bot seat tokens")
PLAYER_TOKENS = Role(
    "player_token_secret", "WARROOM_PLAYER_TOKEN_SECRET", "the key of lobby player tokens"
)
ROLES = (SERVICE, BOT_TOKENS, PLAYER_TOKENS)


@dataclass(frozen=True, slots=True)
class KeyRing:
    """A current key (signs) and retired keys (still verify), all as bytes."""

    current: bytes
    previous: tuple[bytes, ...] = ()

    def all(self) -> tuple[bytes, ...]:
        """Every key that verifies, the current one first."""
        return (self.current, *self.previous)

    def matches(self, presented: bytes) -> bool:
        """Whether `presented` equals one of the keys (constant time per key)."""
        found = False
        for key in self.all():
            found |= hmac.compare_digest(presented, key)
        return found


class InsecureSecretsError(RuntimeError):
    """The configured keys are unfit for a deployment; the message lists each problem."""


def split_previous(value: str) -> tuple[str, ...]:
    """The retired keys of a `..._PREVIOUS` setting (comma-separated, blanks dropped)."""
    return tuple(part.strip() for part in value.split(",") if part.strip())


def problem(value: str) -> str | None:
    """Why `value` is unfit as a secret key, or None when it is fit."""
    if not value:
        return "is not set"
    lowered = value.strip().lower()
    if lowered in KNOWN_DEFAULTS:
        return "is a publicly known default"
    if any(word in lowered for word in _PLACEHOLDER_WORDS):
        return "looks like a placeholder"
    if len(value) < MIN_SECRET_LENGTH:
        return f"is too short ({len(value)} characters; at least {MIN_SECRET_LENGTH})"
    if len(set(value)) < 8:
        return "has too few distinct characters"
    return None


def check_secrets(values: dict[str, tuple[str, Sequence[str]]]) -> None:
    """Raise InsecureSecretsError unless every role's current and previous keys are fit.

    `values` maps a role's field name to (current key, previous keys).
    """
    problems: list[str] = []
    seen: dict[str, str] = {}
    for role in ROLES:
        current, previous = values.get(role.field, ("", ()))
        why = problem(current)
        if why is not None:
            problems.append(f"{role.variable} ({role.purpose}) {why}")
        elif current in seen:
            problems.append(
                f"{role.variable} is the same key as {seen[current]}: every role needs its own"
            )
        else:
            seen[current] = role.variable
        for index, old in enumerate(previous, 1):
            why = problem(old)
            if why is not None:
                problems.append(f"{role.variable}_PREVIOUS entry {index} {why}")
    if problems:
        raise InsecureSecretsError(
            "refusing to start with unsafe secrets:\n  - "
            + "\n  - ".join(problems)
            + f"\nGenerate each key with:  {GENERATE_HINT}\n"
            "and set it in the environment (docs/deploy.md, 'Secrets'). For local development "
            "only, WARROOM_ENV=development accepts built-in insecure keys."
        )


def dev_player_key(service_key: bytes) -> bytes:
    """The development-mode player-token key (derived from the service credential)."""
    return hmac.new(service_key, _DEV_PLAYER_LABEL, hashlib.sha256).digest()


def encoded(values: Iterable[str]) -> tuple[bytes, ...]:
    """Keys as bytes."""
    return tuple(value.encode() for value in values)
