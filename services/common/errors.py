"""Refusals every service reports the same way: a gRPC status, a stable reason and details.

An `RpcError` carries the status code, a machine-readable `reason` (google.rpc.ErrorInfo),
a message naming the problem, and the offending request field. `status()` builds the
google.rpc.Status a client reads from the `grpc-status-details-bin` trailer: always an
ErrorInfo, plus BadRequest for INVALID_ARGUMENT, PreconditionFailure for
FAILED_PRECONDITION/ABORTED and RetryInfo when the caller should wait.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import grpc
from google.protobuf import any_pb2, duration_pb2
from google.protobuf.message import Message
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

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
    grpc.StatusCode.DEADLINE_EXCEEDED: code_pb2.DEADLINE_EXCEEDED,
    grpc.StatusCode.INTERNAL: code_pb2.INTERNAL,
}


class RpcError(Exception):
    """A refused request: status code, stable reason, message, field and extra metadata.

    `domain` names the service in ErrorInfo; an error raised by a shared helper leaves it
    empty and the service reporting it supplies its own (`status(default_domain)`).
    """

    domain = ""

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

    def details(self) -> list[Message]:
        """BadRequest / PreconditionFailure / RetryInfo, as the code calls for."""
        details: list[Message] = []
        if self.code == grpc.StatusCode.INVALID_ARGUMENT and self.field:
            violation = error_details_pb2.BadRequest.FieldViolation(
                field=self.field, description=self.message
            )
            details.append(error_details_pb2.BadRequest(field_violations=[violation]))
        if self.code in (grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.ABORTED):
            failure = error_details_pb2.PreconditionFailure.Violation(
                type=self.reason, subject=self.field or "", description=self.message
            )
            details.append(error_details_pb2.PreconditionFailure(violations=[failure]))
        if self.retry_after is not None:
            seconds = max(self.retry_after, 0.0)
            whole = int(seconds)
            delay = duration_pb2.Duration(seconds=whole, nanos=int((seconds - whole) * 1e9))
            details.append(error_details_pb2.RetryInfo(retry_delay=delay))
        return details

    def status(self, default_domain: str = "") -> status_pb2.Status:
        """The google.rpc.Status: ErrorInfo first, then the code's own details."""
        info = error_details_pb2.ErrorInfo(
            reason=self.reason, domain=self.domain or default_domain, metadata=self.metadata
        )
        packed = []
        for detail in (info, *self.details()):
            holder = any_pb2.Any()
            holder.Pack(detail)
            packed.append(holder)
        return status_pb2.Status(
            code=_CODES.get(self.code, code_pb2.UNKNOWN), message=self.message, details=packed
        )


def invalid(reason: str, message: str, field: str | None = None, **meta: str) -> RpcError:
    """INVALID_ARGUMENT naming the offending field."""
    return RpcError(grpc.StatusCode.INVALID_ARGUMENT, reason, message, meta, field)


async def abort(context: Any, error: RpcError, domain: str) -> None:
    """Abort the call with the error's rich status (never returns)."""
    status = rpc_status.to_status(error.status(domain))
    await context.abort(status.code, status.details, status.trailing_metadata)
