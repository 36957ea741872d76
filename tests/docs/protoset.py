"""Compile .proto files from the published proto/ tree into descriptors (grpc_tools.protoc)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import grpc_tools  # type: ignore[import-untyped]
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf.message import Message
from grpc_tools import protoc  # type: ignore[import-untyped]

ROOT = Path(__file__).resolve().parents[2]
PROTO = ROOT / "proto"
THIRD_PARTY = PROTO / "third_party"
WKT = os.path.join(os.path.dirname(grpc_tools.__file__), "_proto")


def compile_protos(
    paths: list[str], *includes: Path, with_imports: bool = False
) -> descriptor_pb2.FileDescriptorSet:
    """The descriptors of `paths` (relative to `includes`; the well-known types are found)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "set.binpb"
        args = [f"-I{d}" for d in includes] + [f"-I{WKT}", f"--descriptor_set_out={out}"]
        if with_imports:
            args.append("--include_imports")
        assert protoc.main(["protoc", *args, *paths]) == 0, f"protoc failed on {paths}"
        return descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes())


def message_classes(path: str, *includes: Path) -> dict[str, type[Message]]:
    """Message classes of one published file, built in a pool of their own (full name -> class),
    so that a test speaks exactly what the file says, not what the server's packages say."""
    pool = descriptor_pool.DescriptorPool()
    for file in compile_protos([path], *includes, with_imports=True).file:
        pool.Add(file)
    described = pool.FindFileByName(path)
    return {
        m.full_name: message_factory.GetMessageClass(m)
        for m in described.message_types_by_name.values()
    }
