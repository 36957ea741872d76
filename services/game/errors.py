"""Typed authority errors carrying a gRPC status, a clear message and google.rpc details."""

from __future__ import annotations

from collections.abc import Mapping

import grpc
from google.protobuf import any_pb2, duration_pb2
from google.protobuf.message import Message
from google.rpc import code_pb2, error_details_pb2, status_pb2

DOMAIN = "warroom.game"

_CODES: dict[grpc.StatusCode, int] = {
    grpc.StatusCode.INVALID_ARGUMENT: code_pb2.INVALID_ARGUMENT,
    grpc.StatusCode.FAILED_PRECONDITION: code_pb2.FAILED_PRECONDITION,
    grpc.StatusCode.ABORTED: code_pb2.ABORTED,
    grpc.StatusCode.PERMISSION_DENIED: code_pb2.PERMISSION_DENIED,
    grpc.StatusCode.UNAUTHENTICATED: code_pb2.UNAUTHENTICATED,
    grpc.StatusCode.NOT_FOUND: code_pb2.NOT_FOUND,
    grpc.StatusCode.ALREADY_EXISTS: code_pb2.ALREADY_EXISTS,
    grpc.StatusCode.RESOURCE_EXHAUSTED: code_pb2.RESOURCE_EXHAUSTED,
    grpc.StatusCode.UNAVAILABLE: code_pb2.UNAVAILABLE,
    grpc.StatusCode.INTERNAL: code_pb2.INTERNAL,
}


class GameError(Exception):
    """A rejected request: status code, machine-readable reason, message, extra metadata."""

    def __init__(
        self,
        code: grpc.StatusCode,
        reason: str,
        message: str,
        metadata: Mapping[str, str] | None = None,
        field: str | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message
        self.metadata = dict(metadata or {})
        self.field = field
        self.retry_after = retry_after

    def status(self) -> status_pb2.Status:
        """The google.rpc.Status with ErrorInfo plus BadRequest/PreconditionFailure/RetryInfo."""
        details: list[Message] = []
        info = error_details_pb2.ErrorInfo(
            reason=self.reason, domain=DOMAIN, metadata=self.metadata
        )
        details.append(info)
        if self.code == grpc.StatusCode.INVALID_ARGUMENT and self.field:
            details.append(
                error_details_pb2.BadRequest(
                    field_violations=[
                        error_details_pb2.BadRequest.FieldViolation(
                            field=self.field, description=self.message
                        )
                    ]
                )
            )
        if self.code in (grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.ABORTED):
            details.append(
                error_details_pb2.PreconditionFailure(
                    violations=[
                        error_details_pb2.PreconditionFailure.Violation(
                            type=self.reason, subject=self.field or "", description=self.message
                        )
                    ]
                )
            )
        if self.retry_after is not None:
            seconds = max(self.retry_after, 0.0)
            details.append(
                error_details_pb2.RetryInfo(
                    retry_delay=duration_pb2.Duration(
                        seconds=int(seconds), nanos=int((seconds % 1) * 1e9)
                    )
                )
            )
        packed = []
        for detail in details:
            holder = any_pb2.Any()
            holder.Pack(detail)
            packed.append(holder)
        return status_pb2.Status(
            code=_CODES.get(self.code, code_pb2.UNKNOWN), message=self.message, details=packed
        )


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
