"""Who may ask BotService for a search, and how big a search each caller may ask for.

ChooseAction needs `authorization: Bearer <credential>`: a lobby player token (a guest's or a
registered player's) or the service credential. Each role has a cap on the search budget
(`bot_role_caps`): an explicit budget above it is refused, an unset one is clamped, and a
player's search is always time-bounded. The service role is the platform's own (the lobby,
the live bot path); players are the analysis and hint traffic.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Any

import grpc

from services.bots.settings import BotSettings
from services.common.auth import bearer
from services.common.errors import RpcError
from services.lobby.auth import TokenError, read_token
from warroom.bots.registry import KINDS, BotSpec, default_difficulty, resolve_budget

SERVICE = "service"
PLAYER = "player"
GUEST = "guest"
_TOKEN_CACHE = 10_000


@dataclass(frozen=True, slots=True)
class Caller:
    """An authenticated caller: its role and the key its quota is kept under."""

    role: str
    key: str

    @property
    def is_service(self) -> bool:
        """Whether this is the platform's own credential (the live lane)."""
        return self.role == SERVICE


@dataclass(frozen=True, slots=True)
class Cap:
    """The largest search of a role: time (ms), ISMCTS iterations, heuristic samples."""

    ms: int
    iterations: int
    samples: int


def unauthenticated(reason: str, message: str) -> RpcError:
    """UNAUTHENTICATED with a reason."""
    return RpcError(grpc.StatusCode.UNAUTHENTICATED, reason, message)


class Gate:
    """Identifies callers (player tokens are verified once, then cached until expiry)."""

    def __init__(self, settings: BotSettings) -> None:
        self.settings = settings
        self._player_keys = settings.player_token_keys().all()
        self._known: dict[str, tuple[Caller, float]] = {}

    def identify(self, metadata: Any) -> Caller:
        """The caller of a request; raises RpcError UNAUTHENTICATED without a valid credential."""
        credential = bearer(metadata)
        if credential is None:
            raise unauthenticated(
                "CREDENTIAL_REQUIRED",
                "ChooseAction needs a credential: authorization: Bearer <token from "
                "LobbyService.Login> (or the service credential)",
            )
        if self.settings.service_keys().matches(credential.encode()):
            return Caller(SERVICE, SERVICE)
        known = self._known.get(credential)
        if known is not None and known[1] > time.time():
            return known[0]
        try:
            identity = read_token(self._player_keys, credential)
        except TokenError as exc:
            reason = "TOKEN_EXPIRED" if "expired" in str(exc) else "INVALID_TOKEN"
            raise unauthenticated(reason, f"{exc} (log in with LobbyService.Login)") from None
        caller = Caller(GUEST if identity.guest else PLAYER, f"player:{identity.player_id}")
        if len(self._known) >= _TOKEN_CACHE:
            self._known.clear()
        self._known[credential] = (caller, identity.expires_at)
        return caller

    def cap(self, caller: Caller) -> Cap:
        """The budget cap of a caller's role."""
        values = self.settings.bot_role_caps.get(caller.role, {})
        return Cap(
            int(values.get("ms", self.settings.bot_max_budget_ms)),
            int(values.get("iterations", self.settings.bot_max_budget_iterations)),
            int(values.get("samples", self.settings.bot_max_budget_iterations)),
        )

    def bound(self, spec: BotSpec, caller: Caller) -> BotSpec:
        """The spec within the caller's cap (PERMISSION_DENIED for an explicit budget above it).

        Unset budgets become the kind's default, clamped to the cap; a player's search always
        carries a time budget, so none can run longer than its role allows.
        """
        if caller.is_service:
            return spec  # the service's own limits (bot_max_budget_*) apply
        cap = self.cap(caller)
        limit = cap.samples if spec.kind == "heuristic" else cap.iterations
        for value, most, unit in (
            (spec.budget_ms, cap.ms, "ms"),
            (spec.budget_iterations, limit, "iterations"),
        ):
            if value > most:
                raise RpcError(
                    grpc.StatusCode.PERMISSION_DENIED,
                    "BUDGET_ABOVE_ROLE_CAP",
                    f"a {caller.role} may ask for at most {most} {unit} per search (asked {value})",
                    {"role": caller.role, "limit": str(most), "unit": unit},
                )
        info = KINDS.get(spec.kind)
        if info is None:
            return spec
        difficulty = spec.difficulty or default_difficulty(spec.kind)
        if difficulty not in info.budgets:
            return spec  # make_bot names the known difficulties
        default = resolve_budget(info, difficulty, self.settings.budget_overrides())
        iterations = spec.budget_iterations or (0 if spec.budget_ms else default.iterations)
        ms = spec.budget_ms or (0 if spec.budget_iterations else default.ms)
        return replace(
            spec,
            budget_iterations=min(iterations, limit),
            budget_ms=min(ms or cap.ms, cap.ms),
        )

    def cost_ms(self, spec: BotSpec, caller: Caller) -> int:
        """The search time a bounded spec may take (what the quota reserves)."""
        return spec.budget_ms or self.cap(caller).ms
