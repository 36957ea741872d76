"""Undecodable request bytes answered with INVALID_ARGUMENT, not UNKNOWN and a traceback.

`guarded(server)` wraps a grpc.aio server for the generated `add_*Servicer_to_server`
functions: every unary-request handler they register gets a deserializer that turns a
DecodeError into a marker, and a behaviour that answers the marker with INVALID_ARGUMENT
(reason MALFORMED_REQUEST, domain `warroom`) before the servicer sees it. The wrapping is
done once at registration; a decodable request costs one identity check.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from typing import Any

import grpc
from google.protobuf.message import DecodeError

from services.common.errors import abort, invalid

DOMAIN = "warroom"


class _Undecodable:
    """What a guarded deserializer returns for bytes that are not the request message."""

    def __init__(self, name: str, error: str) -> None:
        self.name = name
        self.error = error


def _deserializer(inner: Callable[[bytes], Any]) -> Callable[[bytes], Any]:
    def decode(data: bytes) -> Any:
        try:
            return inner(data)
        except (DecodeError, ValueError, TypeError) as exc:
            name = getattr(getattr(inner, "__self__", None), "DESCRIPTOR", None)
            return _Undecodable(getattr(name, "full_name", "the request"), type(exc).__name__)

    return decode


async def _refuse(context: Any, request: _Undecodable) -> None:
    error = invalid(
        "MALFORMED_REQUEST",
        f"the request bytes are not a valid {request.name} message",
        "request",
    )
    await abort(context, error, DOMAIN)


def _wrap_unary(behavior: Any) -> Any:
    async def unary(request: Any, context: Any) -> Any:
        if isinstance(request, _Undecodable):
            await _refuse(context, request)
        return await behavior(request, context)

    return unary


def _wrap_stream(behavior: Any) -> Any:
    async def stream(request: Any, context: Any) -> AsyncIterator[Any]:
        if isinstance(request, _Undecodable):
            await _refuse(context, request)
            return
        async for item in behavior(request, context):
            yield item

    return stream


def guard(handler: grpc.RpcMethodHandler) -> grpc.RpcMethodHandler:
    """The handler with a guarded deserializer (unary-request methods; others unchanged)."""
    if handler.request_streaming or handler.request_deserializer is None:
        return handler
    decode = _deserializer(handler.request_deserializer)
    if handler.response_streaming:
        return grpc.unary_stream_rpc_method_handler(
            _wrap_stream(handler.unary_stream),
            request_deserializer=decode,
            response_serializer=handler.response_serializer,
        )
    return grpc.unary_unary_rpc_method_handler(
        _wrap_unary(handler.unary_unary),
        request_deserializer=decode,
        response_serializer=handler.response_serializer,
    )


class _GuardedServer:
    """The subset of grpc.aio.Server the generated registration functions call."""

    def __init__(self, server: grpc.aio.Server) -> None:
        self._server = server
        self._handlers: dict[str, dict[str, grpc.RpcMethodHandler]] = {}

    def add_registered_method_handlers(
        self, service: str, handlers: Mapping[str, grpc.RpcMethodHandler]
    ) -> None:
        guarded = self._handlers.setdefault(service, {})
        guarded.update({name: guard(h) for name, h in handlers.items()})
        self._server.add_registered_method_handlers(service, guarded)  # type: ignore[attr-defined]

    def add_generic_rpc_handlers(self, handlers: Sequence[grpc.GenericRpcHandler]) -> None:
        self._server.add_generic_rpc_handlers([_GuardedGeneric(h) for h in handlers])

    def __getattr__(self, name: str) -> Any:
        return getattr(self._server, name)


class _GuardedGeneric(grpc.GenericRpcHandler):
    def __init__(self, inner: grpc.GenericRpcHandler) -> None:
        self._inner = inner
        self._cache: dict[str, grpc.RpcMethodHandler] = {}

    def service(self, handler_call_details: grpc.HandlerCallDetails) -> Any:
        method = handler_call_details.method
        known = self._cache.get(method)
        if known is None:
            found = self._inner.service(handler_call_details)
            if found is None:
                return None
            known = self._cache[method] = guard(found)
        return known


def guarded(server: grpc.aio.Server) -> Any:
    """`server` as the generated registration functions should see it (see module doc)."""
    return _GuardedServer(server)
