"""Lobby errors: a gRPC status, a stable reason (ErrorInfo, domain `warroom.lobby`), a message
naming the problem and the offending field. Every reason is listed in docs/api.md."""

from __future__ import annotations

import grpc

from services.common.errors import RpcError

DOMAIN = "warroom.lobby"


class LobbyError(RpcError):
    """An error a lobby call reports as a gRPC status; state is left unchanged."""

    domain = DOMAIN
    status_code = grpc.StatusCode.INTERNAL

    def __init__(self, reason: str, message: str, field: str | None = None, **meta: str) -> None:
        super().__init__(self.status_code, reason, message, meta, field)


class Unauthenticated(LobbyError):
    status_code = grpc.StatusCode.UNAUTHENTICATED


class InvalidArgument(LobbyError):
    status_code = grpc.StatusCode.INVALID_ARGUMENT


class FailedPrecondition(LobbyError):
    status_code = grpc.StatusCode.FAILED_PRECONDITION


class PermissionDenied(LobbyError):
    status_code = grpc.StatusCode.PERMISSION_DENIED


class NotFound(LobbyError):
    status_code = grpc.StatusCode.NOT_FOUND


class AlreadyExists(LobbyError):
    status_code = grpc.StatusCode.ALREADY_EXISTS


class Unavailable(LobbyError):
    status_code = grpc.StatusCode.UNAVAILABLE


class Aborted(LobbyError):
    """A lost race (the state changed meanwhile): read again and retry."""

    status_code = grpc.StatusCode.ABORTED
