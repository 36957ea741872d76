"""Translation between Connect (HTTP headers, Connect errors) and gRPC (metadata, status).

Request headers become gRPC metadata through an allow-list (the bearer token, a request id
and `x-warroom-*`), plus `x-forwarded-for`. A gRPC error becomes a Connect error with the
same code and message and the `google.rpc.Status` details of `grpc-status-details-bin`
(ErrorInfo, BadRequest, RetryInfo, ...) as Connect error details.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Sequence

import grpc
from connectrpc.code import Code
from connectrpc.errors import ConnectError
from connectrpc.request import Headers
from google.rpc import status_pb2

STATUS_DETAILS_KEY = "grpc-status-details-bin"
FORWARDED_HEADERS = frozenset({"authorization", "x-request-id"})
FORWARDED_PREFIXES = ("x-warroom-",)
# Metadata a gRPC server sends that belongs to the transport, not to the application.
RESERVED_PREFIXES = ("grpc-", ":")
RESERVED_KEYS = frozenset({"content-type", "content-length", "te", "user-agent", "date"})

Metadata = list[tuple[str, str | bytes]]


def _grpc_to_connect_code() -> dict[grpc.StatusCode, Code]:
    table = {code: Code[code.name] for code in grpc.StatusCode if code.name in Code.__members__}
    table[grpc.StatusCode.CANCELLED] = Code.CANCELED
    return table


CODES = _grpc_to_connect_code()


def outgoing_metadata(headers: Headers, client_address: str | None) -> Metadata:
    """The gRPC metadata to send upstream for a request with these HTTP headers."""
    metadata: Metadata = []
    forwarded: list[str] = []
    for key, value in headers.allitems():
        name = key.lower()
        if name == "x-forwarded-for":
            forwarded.append(value)
        elif name in FORWARDED_HEADERS or name.startswith(FORWARDED_PREFIXES):
            if name.endswith("-bin"):
                metadata.append((name, _b64decode(value)))
            else:
                metadata.append((name, value))
    if client_address:
        forwarded.append(client_address.rsplit(":", 1)[0])
    if forwarded:
        metadata.append(("x-forwarded-for", ", ".join(forwarded)))
    return metadata


def copy_metadata(metadata: Iterable[tuple[str, str | bytes]] | None, into: Headers) -> None:
    """Add upstream response metadata to Connect response headers or trailers."""
    for key, value in metadata or ():
        name = key.lower()
        if name.startswith(RESERVED_PREFIXES) or name in RESERVED_KEYS:
            continue
        if isinstance(value, bytes):
            into.add(name, base64.b64encode(value).decode("ascii"))
        else:
            into.add(name, value)


def connect_error(error: grpc.aio.AioRpcError, service: str) -> ConnectError:
    """The Connect error that carries a gRPC error's code, message and status details."""
    code = CODES.get(error.code(), Code.UNKNOWN)
    message = error.details() or ""
    trailers = error.trailing_metadata() or ()
    details: Sequence[object] = ()
    for key, value in trailers:
        if key == STATUS_DETAILS_KEY and isinstance(value, bytes):
            status = status_pb2.Status.FromString(value)
            details = list(status.details)
            message = status.message or message
    if code is Code.UNAVAILABLE and not details and _transport_failure(message):
        message = f"{service} is unavailable; retry shortly"
    return ConnectError(code, message, details=details)  # type: ignore[arg-type]


def _transport_failure(message: str) -> bool:
    lowered = message.lower()
    return any(
        marker in lowered
        for marker in ("failed to connect", "connection refused", "connect failed", "dns")
    )


def _b64decode(value: str) -> bytes:
    padded = value + "=" * (-len(value) % 4)
    return base64.b64decode(padded)


def timeout_seconds(timeout_ms: float | None, default: float | None) -> float | None:
    """The upstream deadline: the client's (Connect-Timeout-Ms / grpc-timeout) or `default`."""
    if timeout_ms is None:
        return default
    return max(timeout_ms / 1000.0, 0.001)
