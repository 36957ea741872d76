"""Forwarding of every RPC of every generated Connect service to its gRPC upstream.

The Connect applications come from `make proto` (protoc-gen-connect-python writes a
`*_connect.py` beside each `*_pb2.py`): each gives the URL paths, message types and kind
(unary or server stream) of its service's methods. The gateway implements each service's
protocol with one generic forwarder whose handlers read the method from the request
context, so a new RPC in proto/ is forwarded after `make proto` without any code here.
"""

from __future__ import annotations

import asyncio
import contextvars
import importlib
import inspect
import pkgutil
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import grpc
from connectrpc.request import RequestContext
from connectrpc.server import ConnectASGIApplication
from google.protobuf.message import Message

from services.common.logging import get_logger
from services.web import metrics, wire
from services.web.upstream import Upstreams

log = get_logger("web")
# Upstream failures worth an operator's attention (a refusal of a bad request is not).
FAILURES = frozenset(
    {
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.INTERNAL,
        grpc.StatusCode.UNKNOWN,
        grpc.StatusCode.DATA_LOSS,
    }
)

APP_SUFFIX = "ASGIApplication"
# Set per HTTP request by the gateway app: an event set when the browser goes away, so an
# idle server stream stops its upstream call at once instead of at its next message.
DISCONNECTED: contextvars.ContextVar[asyncio.Event | None] = contextvars.ContextVar(
    "warroom_web_disconnected", default=None
)


@dataclass(frozen=True)
class ServiceApp:
    """One generated Connect application bound to its upstream."""

    name: str
    path: str
    app: ConnectASGIApplication[Any]


def generated_services(package: str = "warroom.v1") -> list[tuple[type[Any], type[Any]]]:
    """(ASGI application class, service protocol class) of every generated Connect service."""
    root = importlib.import_module(package)
    found: list[tuple[type[Any], type[Any]]] = []
    for info in sorted(pkgutil.iter_modules(root.__path__), key=lambda i: i.name):
        if info.name.endswith("_connect"):
            found.extend(_services_in(importlib.import_module(f"{package}.{info.name}")))
    return found


def _services_in(module: ModuleType) -> list[tuple[type[Any], type[Any]]]:
    pairs = []
    for name, cls in inspect.getmembers(module, inspect.isclass):
        if (
            name.endswith(APP_SUFFIX)
            and issubclass(cls, ConnectASGIApplication)
            and cls.__module__ == module.__name__
        ):
            pairs.append((cls, getattr(module, name.removesuffix(APP_SUFFIX))))
    return pairs


class Forwarder:
    """Implements a generated service protocol by forwarding each call upstream.

    Every public method of the protocol becomes an attribute: unary methods (`async def` in
    the protocol) forward with `unary_unary`, server-streaming ones with `unary_stream`.
    """

    def __init__(
        self, protocol: type[Any], service: str, upstreams: Upstreams, default_timeout: float
    ) -> None:
        self.service = service
        self._upstreams = upstreams
        self._timeout = default_timeout
        self._callables: dict[str, Any] = {}
        for name, function in inspect.getmembers(protocol, inspect.isfunction):
            if not name.startswith("_"):
                unary = inspect.iscoroutinefunction(function)
                setattr(self, name, self._unary if unary else self._stream)

    def _callable(self, ctx: RequestContext[Any, Any], streaming: bool) -> Any:
        method = ctx.method()
        path = f"/{method.service_name}/{method.name}"
        found = self._callables.get(path)
        if found is None:
            channel = self._upstreams.channel(self.service)
            factory = channel.unary_stream if streaming else channel.unary_unary
            found = factory(
                path,
                request_serializer=_serialize,
                response_deserializer=method.output.FromString,
            )
            self._callables[path] = found
        return found

    def _log_failure(self, error: grpc.aio.AioRpcError, method: str) -> None:
        if error.code() in FAILURES:
            log.warning(
                "upstream call failed",
                service=self.service,
                method=method,
                upstream=self._upstreams.endpoint(self.service),
                code=error.code().name,
                details=error.details(),
            )

    def _metadata(self, ctx: RequestContext[Any, Any]) -> wire.Metadata:
        return wire.outgoing_metadata(ctx.request_headers(), ctx.client_address())

    async def _unary(self, request: Message, ctx: RequestContext[Any, Any]) -> Message:
        name = ctx.method().name
        started = time.perf_counter()
        code = "OK"
        call = self._callable(ctx, streaming=False)(
            request,
            metadata=self._metadata(ctx),
            timeout=wire.timeout_seconds(ctx.timeout_ms(), self._timeout),
        )
        try:
            response: Message = await call
        except grpc.aio.AioRpcError as error:
            code = error.code().name
            self._log_failure(error, name)
            wire.copy_metadata(error.initial_metadata(), ctx.response_headers())
            wire.copy_metadata(error.trailing_metadata(), ctx.response_trailers())
            raise wire.connect_error(error, self.service) from None
        finally:
            metrics.observe(self.service, name, code, time.perf_counter() - started)
        wire.copy_metadata(await call.initial_metadata(), ctx.response_headers())
        wire.copy_metadata(await call.trailing_metadata(), ctx.response_trailers())
        return response

    async def _stream(self, request: Message, ctx: RequestContext[Any, Any]) -> AsyncIterator[Any]:
        name = ctx.method().name
        started = time.perf_counter()
        code = "OK"
        call = self._callable(ctx, streaming=True)(
            request,
            metadata=self._metadata(ctx),
            timeout=wire.timeout_seconds(ctx.timeout_ms(), None),
        )
        disconnected = DISCONNECTED.get()
        metrics.STREAMS.labels(self.service, name).inc()
        first = True
        try:
            while True:
                message = await _next_message(call, disconnected)
                if message is None:
                    break
                if first:
                    wire.copy_metadata(await call.initial_metadata(), ctx.response_headers())
                    first = False
                yield message
            wire.copy_metadata(await call.trailing_metadata(), ctx.response_trailers())
        except grpc.aio.AioRpcError as error:
            code = error.code().name
            self._log_failure(error, name)
            wire.copy_metadata(error.trailing_metadata(), ctx.response_trailers())
            raise wire.connect_error(error, self.service) from None
        except (asyncio.CancelledError, GeneratorExit):
            code = "CANCELLED"
            raise
        finally:
            call.cancel()
            metrics.STREAMS.labels(self.service, name).dec()
            metrics.observe(self.service, name, code, time.perf_counter() - started)


def _serialize(message: Message) -> bytes:
    return message.SerializeToString()


async def _next_message(call: Any, disconnected: asyncio.Event | None) -> Any | None:
    """The next upstream message; None at the end of the stream or when the client left."""
    if disconnected is None:
        message = await call.read()
    else:
        reader = asyncio.ensure_future(call.read())
        waiter = asyncio.ensure_future(disconnected.wait())
        try:
            await asyncio.wait({reader, waiter}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            waiter.cancel()
        if not reader.done():
            reader.cancel()
            return None
        message = reader.result()
    return None if message is grpc.aio.EOF else message


def build_apps(
    upstreams: Upstreams, default_timeout: float, read_max_bytes: int
) -> list[ServiceApp]:
    """One Connect application per generated service that has an upstream."""
    apps: list[ServiceApp] = []
    for app_class, protocol in generated_services():
        probe = app_class(service=object(), read_max_bytes=read_max_bytes)
        service = probe.path.strip("/")
        if not upstreams.known(service):
            continue
        forwarder = Forwarder(protocol, service, upstreams, default_timeout)
        app = app_class(service=forwarder, read_max_bytes=read_max_bytes)
        apps.append(ServiceApp(service, probe.path, app))
    return apps
