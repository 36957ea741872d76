"""The RPCs the gateway forwards, read from the compiled protos' service descriptors.

Every service of every `*_pb2` module of `warroom.v1` (written by `make proto`) is listed
with its methods' URL paths, message classes and kind (unary or server stream), so a new
RPC in proto/ is forwarded after `make proto` without any code here.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from pathlib import Path

from connectrpc.method import IdempotencyLevel
from google.protobuf import descriptor_pb2
from google.protobuf.descriptor import MethodDescriptor, ServiceDescriptor
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass

PACKAGE = "warroom.v1"
# Where the games' own messages live (the `google.protobuf.Any` views): imported so that
# Connect JSON can write and read them.
GAMES_PACKAGE = "warroom.games"
_IDEMPOTENCY = {
    descriptor_pb2.MethodOptions.NO_SIDE_EFFECTS: IdempotencyLevel.NO_SIDE_EFFECTS,
    descriptor_pb2.MethodOptions.IDEMPOTENT: IdempotencyLevel.IDEMPOTENT,
}


@dataclass(frozen=True)
class Method:
    """One RPC: its service, name, URL path, message classes and kind."""

    service: str
    name: str
    input: type[Message]
    output: type[Message]
    server_streaming: bool
    idempotency: IdempotencyLevel

    @property
    def path(self) -> str:
        """The HTTP (and gRPC) path, `/<package>.<Service>/<Method>`."""
        return f"/{self.service}/{self.name}"


def _method(descriptor: MethodDescriptor) -> Method:
    if descriptor.client_streaming:
        raise ValueError(f"{descriptor.full_name}: client streams are not forwarded")
    level = descriptor.GetOptions().idempotency_level
    return Method(
        service=descriptor.containing_service.full_name,
        name=descriptor.name,
        input=GetMessageClass(descriptor.input_type),
        output=GetMessageClass(descriptor.output_type),
        server_streaming=descriptor.server_streaming,
        idempotency=_IDEMPOTENCY.get(level, IdempotencyLevel.UNKNOWN),
    )


def _modules(package: str) -> list[str]:
    root = importlib.import_module(package)
    return sorted(
        f"{package}.{info.name}"
        for info in pkgutil.iter_modules(root.__path__)
        if info.name.endswith("_pb2")
    )


def services(package: str = PACKAGE) -> dict[str, list[Method]]:
    """Full service name -> its methods, for every service of the package's protos."""
    found: dict[str, list[Method]] = {}
    for name in _modules(package):
        module = importlib.import_module(name)
        described: dict[str, ServiceDescriptor] = module.DESCRIPTOR.services_by_name
        for service in described.values():
            found[service.full_name] = [_method(m) for m in service.methods]
    return found


def load_game_messages(package: str = GAMES_PACKAGE) -> int:
    """Import every game's `<game>/v1/*_pb2` module (their types join the default pool),
    and nothing else of the games; how many modules."""
    root = importlib.import_module(package)
    names = []
    for game in pkgutil.iter_modules(root.__path__):
        folder = [str(Path(p) / game.name / "v1") for p in root.__path__]
        names += [
            f"{package}.{game.name}.v1.{info.name}"
            for info in pkgutil.iter_modules(folder)
            if game.ispkg and info.name.endswith("_pb2")
        ]
    for name in names:
        importlib.import_module(name)
    return len(names)
