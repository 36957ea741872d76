"""gRPC and HTTP health checks and port probes used by the supervisor, the demo and the tests."""

from __future__ import annotations

import json
import socket
import time
import urllib.error
import urllib.request

import grpc
from grpc_health.v1 import health_pb2


def grpc_health(endpoint: str, service: str = "", timeout: float = 1.0) -> str:
    """The health status name of a gRPC endpoint ("SERVING", ...), or "UNREACHABLE"."""
    with grpc.insecure_channel(endpoint) as channel:
        check = channel.unary_unary(
            "/grpc.health.v1.Health/Check",
            request_serializer=health_pb2.HealthCheckRequest.SerializeToString,
            response_deserializer=health_pb2.HealthCheckResponse.FromString,
        )
        try:
            response = check(health_pb2.HealthCheckRequest(service=service), timeout=timeout)
        except grpc.RpcError as error:
            code = error.code() if isinstance(error, grpc.Call) else None
            if code == grpc.StatusCode.NOT_FOUND:
                return "UNKNOWN_SERVICE"
            return "UNREACHABLE"
        return health_pb2.HealthCheckResponse.ServingStatus.Name(response.status)


def http_health(url: str, timeout: float = 1.0) -> str:
    """The `status` of an HTTP health endpoint's JSON answer ("SERVING", ...), or "UNREACHABLE"."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            body = response.read()
    except urllib.error.HTTPError as error:
        body = error.read()
    except (OSError, ValueError):
        return "UNREACHABLE"
    try:
        status = json.loads(body).get("status")
    except (ValueError, AttributeError):
        return "UNKNOWN"
    return str(status) if status else "UNKNOWN"


def wait_serving(endpoint: str, timeout: float, service: str = "") -> bool:
    """Poll the health check until it reports SERVING or `timeout` seconds pass."""
    deadline = time.monotonic() + timeout
    while True:
        if grpc_health(endpoint, service) == "SERVING":
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.2)


def port_free(host: str, port: int) -> bool:
    """Whether a TCP port can be bound on `host` right now."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return False
    return True


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port that was free a moment ago (the kernel's choice)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def port_open(host: str, port: int, timeout: float = 0.5) -> bool:
    """Whether something accepts TCP connections on host:port."""
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False
