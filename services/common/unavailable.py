"""A lost store is UNAVAILABLE, never UNKNOWN: a server interceptor every service gets.

When Redis or the SQL database cannot be reached (a restart, a failover, a stale pooled
connection that the client's retries could not save), whatever RPC was running fails with
`UNAVAILABLE`, an ErrorInfo reason (`REDIS_UNAVAILABLE`, `DATABASE_UNAVAILABLE`; domain
`warroom.platform`) and a RetryInfo, so clients (the SDK does) retry after a short wait. This
covers unary calls and server streams (e.g. LobbyService.WatchTicket: the stream ends with
UNAVAILABLE instead of hanging or reporting UNKNOWN). Nothing was changed by the failed call
unless it reached its commit, which every command makes idempotent.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc
import redis.exceptions
import sqlalchemy.exc
from google.protobuf import any_pb2, duration_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

from services.common.logging import get_logger

log = get_logger("server")
DOMAIN = "warroom.platform"
RETRY_AFTER_SECONDS = 1

REDIS_ERRORS: tuple[type[BaseException], ...] = (
    redis.exceptions.ConnectionError,
    redis.exceptions.TimeoutError,
    redis.exceptions.BusyLoadingError,
)
DATABASE_ERRORS: tuple[type[BaseException], ...] = (
    sqlalchemy.exc.OperationalError,
    sqlalchemy.exc.DisconnectionError,
)


def reason_of(error: BaseException) -> str | None:
    """The ErrorInfo reason for a store failure, or None for any other error."""
    if isinstance(error, REDIS_ERRORS):
        return "REDIS_UNAVAILABLE"
    if isinstance(error, DATABASE_ERRORS):
        return "DATABASE_UNAVAILABLE"
    return None


def unavailable_status(reason: str, method: str) -> status_pb2.Status:
    """UNAVAILABLE with ErrorInfo and a RetryInfo of RETRY_AFTER_SECONDS."""
    store = "Redis" if reason == "REDIS_UNAVAILABLE" else "the database"
    details = []
    for detail in (
        error_details_pb2.ErrorInfo(reason=reason, domain=DOMAIN, metadata={"method": method}),
        error_details_pb2.RetryInfo(retry_delay=duration_pb2.Duration(seconds=RETRY_AFTER_SECONDS)),
    ):
        holder = any_pb2.Any()
        holder.Pack(detail)
        details.append(holder)
    return status_pb2.Status(
        code=code_pb2.UNAVAILABLE,
        message=f"{store} is unreachable right now; retry in a moment",
        details=details,
    )


async def _abort(context: Any, error: BaseException, method: str) -> None:
    reason = reason_of(error)
    assert reason is not None
    log.warning("store unavailable", method=method, reason=reason, error=repr(error))
    status = rpc_status.to_status(unavailable_status(reason, method))
    await context.abort(status.code, status.details, status.trailing_metadata)


def _wrap_unary(inner: Callable[..., Awaitable[Any]], method: str) -> Callable[..., Any]:
    async def behavior(request: Any, context: Any) -> Any:
        try:
            return await inner(request, context)
        except REDIS_ERRORS + DATABASE_ERRORS as error:
            await _abort(context, error, method)

    return behavior


def _wrap_stream(inner: Callable[..., AsyncIterator[Any]], method: str) -> Callable[..., Any]:
    async def behavior(request: Any, context: Any) -> AsyncIterator[Any]:
        try:
            async for item in inner(request, context):
                yield item
        except REDIS_ERRORS + DATABASE_ERRORS as error:
            await _abort(context, error, method)

    return behavior


def _wrap(inner: Callable[..., Any], method: str) -> Callable[..., Any]:
    if inspect.isasyncgenfunction(inner):
        return _wrap_stream(inner, method)
    return _wrap_unary(inner, method)


_FACTORIES = {
    "unary_unary": grpc.unary_unary_rpc_method_handler,
    "unary_stream": grpc.unary_stream_rpc_method_handler,
    "stream_unary": grpc.stream_unary_rpc_method_handler,
    "stream_stream": grpc.stream_stream_rpc_method_handler,
}


class StoreUnavailableInterceptor(grpc.aio.ServerInterceptor):  # type: ignore[misc]
    """Maps Redis and database connection failures of any RPC onto UNAVAILABLE."""

    async def intercept_service(
        self, continuation: Callable[..., Awaitable[Any]], handler_call_details: Any
    ) -> Any:
        handler = await continuation(handler_call_details)
        if handler is None:
            return None
        method = handler_call_details.method
        for kind, factory in _FACTORIES.items():
            inner = getattr(handler, kind)
            if inner is not None:
                return factory(
                    _wrap(inner, method),
                    request_deserializer=handler.request_deserializer,
                    response_serializer=handler.response_serializer,
                )
        return handler
