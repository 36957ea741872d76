"""Typed authority errors carrying a gRPC status, a clear message and google.rpc details
(built by `services.common.errors.RpcError`, domain `warroom.game`)."""

from __future__ import annotations

import grpc

from services.common.errors import RpcError

DOMAIN = "warroom.game"


class GameError(RpcError):
    """A rejected request: status code, machine-readable reason, message, extra metadata."""

    domain = DOMAIN


def invalid(reason: str, message: str, field: str | None = None, **meta: str) -> GameError:
    """INVALID_ARGUMENT."""
    return GameError(grpc.StatusCode.INVALID_ARGUMENT, reason, message, meta, field)


def precondition(reason: str, message: str, **meta: str) -> GameError:
    """FAILED_PRECONDITION."""
    return GameError(grpc.StatusCode.FAILED_PRECONDITION, reason, message, meta)


def aborted(reason: str, message: str, **meta: str) -> GameError:
    """ABORTED (stale version or a lost race): re-read the view and retry."""
    return GameError(grpc.StatusCode.ABORTED, reason, message, meta)


def denied(reason: str, message: str, **meta: str) -> GameError:
    """PERMISSION_DENIED."""
    return GameError(grpc.StatusCode.PERMISSION_DENIED, reason, message, meta)


def not_found(message: str, **meta: str) -> GameError:
    """NOT_FOUND."""
    return GameError(grpc.StatusCode.NOT_FOUND, "GAME_NOT_FOUND", message, meta)


def already_exists(message: str, **meta: str) -> GameError:
    """ALREADY_EXISTS."""
    return GameError(grpc.StatusCode.ALREADY_EXISTS, "IDEMPOTENCY_KEY_REUSED", message, meta)


def exhausted(message: str, retry_after: float, **meta: str) -> GameError:
    """RESOURCE_EXHAUSTED with a RetryInfo."""
    return GameError(
        grpc.StatusCode.RESOURCE_EXHAUSTED, "RATE_LIMITED", message, meta, retry_after=retry_after
    )
