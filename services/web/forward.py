"""Forwarding of every RPC of every service in the protos to its gRPC upstream.

Each service gets two connect-python applications over one forwarder (`ServiceApp`):

- `binary` (Connect, gRPC-Web and gRPC with binary protobuf, what the browser sends):
  endpoints whose messages are `RawMessage`s, so the request body's bytes go to the
  upstream call unparsed and the upstream's answer bytes go back unparsed (gRPC identity
  serializers on one shared channel per upstream address);
- `json` (Connect JSON): the same endpoints with the real message classes, since JSON
  must be converted: parsed into the message, serialized for gRPC, and back.

Errors (code, message, google.rpc.Status details), deadlines, metadata, server streams
and metrics are the forwarder's, whichever the encoding.
"""

from __future__ import annotations

import asyncio
import contextvars
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterable
from contextlib import aclosing
from dataclasses import dataclass
from typing import Any

import grpc
from connectrpc.method import MethodInfo
from connectrpc.request import RequestContext
from connectrpc.server import ConnectASGIApplication, Endpoint
from google.protobuf.message import Message

from services.common.logging import get_logger
from services.web import metrics, wire
from services.web.methods import Method, load_game_messages, services
from services.web.passthrough import RawMessage, SmallGzip
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

# Set per streaming HTTP request by the gateway app: an event set when the browser goes
# away, so an idle server stream stops its upstream call at once, not at its next message.
DISCONNECTED: contextvars.ContextVar[asyncio.Event | None] = contextvars.ContextVar(
    "warroom_web_disconnected", default=None
)
Context = RequestContext[Any, Any]


class Route:
    """One forwarded method: its upstream callable (made on first use) and metrics."""

    __slots__ = ("_call", "_channel", "latency", "method", "ok")

    def __init__(self, method: Method, channel: Callable[[], grpc.aio.Channel]) -> None:
        self.method = method
        self.latency = metrics.LATENCY.labels(method.service, method.name)
        self.ok = metrics.RPCS.labels(method.service, method.name, "OK")
        self._channel = channel
        self._call: Any = None

    def call(self) -> Any:
        """The bytes-in, bytes-out grpc.aio multicallable of this method."""
        if self._call is None:
            channel = self._channel()
            factory = channel.unary_stream if self.method.server_streaming else channel.unary_unary
            self._call = factory(self.method.path)
        return self._call

    def observe(self, code: str, started: float) -> None:
        """Count one finished call."""
        (self.ok if code == "OK" else self.counter(code)).inc()
        self.latency.observe(time.perf_counter() - started)

    def counter(self, code: str) -> Any:
        """The calls counter of this method for a failure code."""
        return metrics.RPCS.labels(self.method.service, self.method.name, code)


class Forwarder:
    """Forwards a service's calls, as bytes, to its upstream."""

    def __init__(self, service: str, upstreams: Upstreams, default_timeout: float) -> None:
        self.service = service
        self._upstreams = upstreams
        self._timeout = default_timeout

    def route(self, method: Method) -> Route:
        """The route of one of this service's methods."""
        return Route(method, lambda: self._upstreams.channel(self.service))

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

    def _failed(self, error: grpc.aio.AioRpcError, route: Route, ctx: Context) -> Exception:
        self._log_failure(error, route.method.name)
        wire.copy_metadata(error.initial_metadata(), ctx.response_headers())
        wire.copy_metadata(error.trailing_metadata(), ctx.response_trailers())
        return wire.connect_error(error, self.service)

    async def unary(self, route: Route, request: bytes, ctx: Context) -> bytes:
        """Forward one unary call; its answer's bytes (a ConnectError on failure)."""
        started = time.perf_counter()
        code = "OK"
        call = route.call()(
            request,
            metadata=wire.outgoing_metadata(ctx.request_headers(), ctx.client_address()),
            timeout=wire.timeout_seconds(ctx.timeout_ms(), self._timeout),
        )
        try:
            response: bytes = await call
        except grpc.aio.AioRpcError as error:
            code = error.code().name
            raise self._failed(error, route, ctx) from None
        finally:
            route.observe(code, started)
        wire.copy_metadata(await call.initial_metadata(), ctx.response_headers())
        wire.copy_metadata(await call.trailing_metadata(), ctx.response_trailers())
        return response

    async def stream(
        self, route: Route, request: bytes, ctx: Context
    ) -> AsyncGenerator[bytes, None]:
        """Forward one server stream; its messages' bytes (a ConnectError on failure)."""
        name = route.method.name
        started = time.perf_counter()
        code = "OK"
        call = route.call()(
            request,
            metadata=wire.outgoing_metadata(ctx.request_headers(), ctx.client_address()),
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
            raise self._failed(error, route, ctx) from None
        except (asyncio.CancelledError, GeneratorExit):
            code = "CANCELLED"
            raise
        finally:
            call.cancel()
            metrics.STREAMS.labels(self.service, name).dec()
            route.observe(code, started)


async def _next_message(call: Any, disconnected: asyncio.Event | None) -> bytes | None:
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


def _binary_endpoint(forwarder: Forwarder, route: Route) -> Any:
    """The endpoint passing a method's bytes through untouched."""
    info = _info(route.method, RawMessage, RawMessage)
    if route.method.server_streaming:

        async def stream(request: RawMessage, ctx: Context) -> AsyncIterator[RawMessage]:
            async with aclosing(forwarder.stream(route, request.data, ctx)) as upstream:
                async for data in upstream:
                    yield RawMessage(data)

        return Endpoint.server_stream(info, stream)

    async def unary(request: RawMessage, ctx: Context) -> RawMessage:
        return RawMessage(await forwarder.unary(route, request.data, ctx))

    return Endpoint.unary(info, unary)


def _json_endpoint(forwarder: Forwarder, route: Route) -> Any:
    """The endpoint converting a method's messages (Connect JSON <-> protobuf bytes)."""
    method = route.method
    decode = method.output.FromString
    info = _info(method, method.input, method.output)
    if method.server_streaming:

        async def stream(request: Message, ctx: Context) -> AsyncIterator[Message]:
            data_in = request.SerializeToString()
            async with aclosing(forwarder.stream(route, data_in, ctx)) as upstream:
                async for data in upstream:
                    yield decode(data)

        return Endpoint.server_stream(info, stream)

    async def unary(request: Message, ctx: Context) -> Message:
        return decode(await forwarder.unary(route, request.SerializeToString(), ctx))

    return Endpoint.unary(info, unary)


def _info(method: Method, input: type[Any], output: type[Any]) -> MethodInfo[Any, Any]:
    return MethodInfo(
        name=method.name,
        service_name=method.service,
        input=input,
        output=output,
        idempotency_level=method.idempotency,
    )


class ForwardingApplication(ConnectASGIApplication[Forwarder]):
    """connect-python's ASGI application for one service, with the given endpoints."""

    def __init__(
        self,
        path: str,
        forwarder: Forwarder,
        endpoints: dict[str, Any],
        read_max_bytes: int,
    ) -> None:
        super().__init__(
            service=forwarder,
            endpoints=lambda _service: endpoints,
            read_max_bytes=read_max_bytes,
            compressions=[SmallGzip()],
        )
        self._path = path

    @property
    def path(self) -> str:
        """`/<package>.<Service>`."""
        return self._path


@dataclass(frozen=True)
class ServiceApp:
    """One service's applications (binary pass-through and JSON) and its streaming paths."""

    name: str
    path: str
    binary: ForwardingApplication
    json: ForwardingApplication
    streaming: frozenset[str]


def service_app(
    name: str, methods: Iterable[Method], forwarder: Forwarder, read_max_bytes: int
) -> ServiceApp:
    """The two applications of a service forwarded by `forwarder`."""
    routes = [forwarder.route(m) for m in methods]
    binary = {r.method.path: _binary_endpoint(forwarder, r) for r in routes}
    typed = {r.method.path: _json_endpoint(forwarder, r) for r in routes}
    path = f"/{name}"
    return ServiceApp(
        name,
        path,
        ForwardingApplication(path, forwarder, binary, read_max_bytes),
        ForwardingApplication(path, forwarder, typed, read_max_bytes),
        frozenset(r.method.path for r in routes if r.method.server_streaming),
    )


def build_apps(
    upstreams: Upstreams, default_timeout: float, read_max_bytes: int
) -> list[ServiceApp]:
    """The applications of every service in the protos that has an upstream."""
    load_game_messages()
    return [
        service_app(name, methods, Forwarder(name, upstreams, default_timeout), read_max_bytes)
        for name, methods in services().items()
        if upstreams.known(name)
    ]
