"""Lobby errors: each carries the gRPC status code it maps to and a message naming the problem."""

from __future__ import annotations

import grpc


class LobbyError(Exception):
    """An error a lobby call reports as a gRPC status; state is left unchanged."""

    code = grpc.StatusCode.INTERNAL

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class Unauthenticated(LobbyError):
    code = grpc.StatusCode.UNAUTHENTICATED


class InvalidArgument(LobbyError):
    code = grpc.StatusCode.INVALID_ARGUMENT


class FailedPrecondition(LobbyError):
    code = grpc.StatusCode.FAILED_PRECONDITION


class PermissionDenied(LobbyError):
    code = grpc.StatusCode.PERMISSION_DENIED


class NotFound(LobbyError):
    code = grpc.StatusCode.NOT_FOUND


class Unavailable(LobbyError):
    code = grpc.StatusCode.UNAVAILABLE
