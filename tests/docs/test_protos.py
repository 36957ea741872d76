"""The published proto/ tree is all a client needs (issue 17 s6).

proto/third_party/ ships the google.rpc, grpc.health and grpc.reflection protos. Each must
describe exactly what the services speak (the installed packages' generated descriptors),
proto/ with it must compile on its own, and Python must keep the packages' own modules.
"""

from __future__ import annotations

from types import ModuleType

import pytest
from google.protobuf import descriptor_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_health.v1 import health_pb2
from grpc_reflection.v1alpha import reflection_pb2

from tests.docs.protoset import PROTO, ROOT, THIRD_PARTY, compile_protos

# Shipped file -> (the module the services use, the package it names on the wire there).
SHIPPED: dict[str, tuple[ModuleType, str]] = {
    "google/rpc/status.proto": (status_pb2, "google.rpc"),
    "google/rpc/error_details.proto": (error_details_pb2, "google.rpc"),
    "google/rpc/code.proto": (code_pb2, "google.rpc"),
    "grpc/health/v1/health.proto": (health_pb2, "grpc.health.v1"),
    # v1 and v1alpha are the same messages under two package names; the servers answer both.
    "grpc/reflection/v1/reflection.proto": (reflection_pb2, "grpc.reflection.v1alpha"),
}


def _wire(file: descriptor_pb2.FileDescriptorProto, package: str) -> dict[str, object]:
    """What a file fixes on the wire and in type names, package-relative and order-free."""

    def rel(name: str) -> str:
        return name.replace(f".{package}.", ".", 1)

    facts: dict[str, object] = {}

    def message(m: descriptor_pb2.DescriptorProto, prefix: str) -> None:
        facts[f"message {prefix}{m.name}"] = sorted(
            (f.name, f.number, f.type, f.label, rel(f.type_name), f.oneof_index)
            if f.HasField("oneof_index")
            else (f.name, f.number, f.type, f.label, rel(f.type_name), -1)
            for f in m.field
        )
        for nested in m.nested_type:
            message(nested, f"{prefix}{m.name}.")
        for enum in m.enum_type:
            facts[f"enum {prefix}{m.name}.{enum.name}"] = sorted(
                (v.name, v.number) for v in enum.value
            )

    for m in file.message_type:
        message(m, "")
    for enum in file.enum_type:
        facts[f"enum {enum.name}"] = sorted((v.name, v.number) for v in enum.value)
    for service in file.service:
        facts[f"service {service.name}"] = sorted(
            (
                x.name,
                rel(x.input_type),
                rel(x.output_type),
                x.client_streaming,
                x.server_streaming,
            )
            for x in service.method
        )
    return facts


def test_third_party_folder_ships_each_file_with_its_licence() -> None:
    found = sorted(str(p.relative_to(THIRD_PARTY)) for p in THIRD_PARTY.rglob("*.proto"))
    assert found == sorted(SHIPPED)
    assert "Apache License" in (THIRD_PARTY / "LICENSE").read_text()
    readme = (THIRD_PARTY / "README.md").read_text()
    for name in SHIPPED:
        text = (THIRD_PARTY / name).read_text()
        assert "Licensed under the Apache License, Version 2.0" in text, name
        assert f"`{name}`" in readme, f"{name} is not described in proto/third_party/README.md"


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_shipped_proto_is_what_the_services_speak(name: str) -> None:
    module, served_package = SHIPPED[name]
    (shipped,) = compile_protos([name], THIRD_PARTY).file
    served = descriptor_pb2.FileDescriptorProto.FromString(module.DESCRIPTOR.serialized_pb)
    assert served.package == served_package
    assert _wire(shipped, shipped.package) == _wire(served, served.package)
    if served_package != "grpc.reflection.v1alpha":
        assert shipped.package == served.package


def test_our_protos_compile_from_the_published_tree_alone() -> None:
    """Everything under proto/ (ours + third_party) builds with no other include path but the
    well-known types every protobuf compiler bundles."""
    ours = sorted(
        str(p.relative_to(PROTO)) for p in PROTO.rglob("*.proto") if THIRD_PARTY not in p.parents
    )
    assert len(ours) >= 9
    built = compile_protos([*ours, *sorted(SHIPPED)], PROTO, THIRD_PARTY)
    names = {f.name for f in built.file}
    assert "warroom/v1/lobby.proto" in names and "google/rpc/error_details.proto" in names


def test_python_keeps_the_packages_generated_modules() -> None:
    """make proto skips proto/third_party: no second google.rpc or grpc.health in libs/."""
    for shadow in ("third_party", "google", "grpc", "grpc_health", "grpc_reflection"):
        assert not (ROOT / "libs" / shadow).exists(), f"libs/{shadow} was generated"
    for module, _ in SHIPPED.values():
        assert "site-packages" in str(module.__file__), module.__name__
    makefile = (ROOT / "Makefile").read_text()
    assert "-path $(PROTO_THIRD_PARTY) -prune" in makefile
    image = (ROOT / "infra" / "docker" / "Dockerfile").read_text()
    assert "find proto -path proto/third_party -prune" in image  # its protoc step
    assert "COPY buf.yaml" in image  # the web stage's buf generate sees the workspace


def test_served_v1_reflection_descriptor_is_the_shipped_one() -> None:
    """services.common.reflection derives v1 from v1alpha: the result is the published v1."""
    from services.common.reflection import V1_FILE, v1_file_descriptor

    (shipped,) = compile_protos([V1_FILE], THIRD_PARTY).file
    derived = v1_file_descriptor()
    assert (derived.name, derived.package) == (shipped.name, shipped.package)
    assert _wire(derived, "-") == _wire(shipped, "-")  # full type names compared as they are


SIXTY_FOUR = {
    descriptor_pb2.FieldDescriptorProto.TYPE_INT64: "int64",
    descriptor_pb2.FieldDescriptorProto.TYPE_UINT64: "uint64",
    descriptor_pb2.FieldDescriptorProto.TYPE_SINT64: "sint64",
    descriptor_pb2.FieldDescriptorProto.TYPE_FIXED64: "fixed64",
    descriptor_pb2.FieldDescriptorProto.TYPE_SFIXED64: "sfixed64",
}


def _sixty_four_bit_fields() -> dict[str, str]:
    """Every 64-bit integer field of proto/warroom: full name -> type (a map by its value)."""
    ours = sorted(str(p.relative_to(PROTO)) for p in (PROTO / "warroom").rglob("*.proto"))
    found: dict[str, str] = {}

    def walk(prefix: str, message: descriptor_pb2.DescriptorProto) -> None:
        entries = {n.name: n for n in message.nested_type if n.options.map_entry}
        for field in message.field:
            entry = entries.get(field.type_name.rsplit(".", 1)[-1])
            if entry is not None and field.type == field.TYPE_MESSAGE:
                key, value = entry.field
                if value.type in SIXTY_FOUR:
                    key_type = (
                        key.type_name
                        or descriptor_pb2.FieldDescriptorProto.Type.Name(key.type)
                        .removeprefix("TYPE_")
                        .lower()
                    )
                    found[f"{prefix}{message.name}.{field.name}"] = (
                        f"map<{key_type}, {SIXTY_FOUR[value.type]}>"
                    )
            elif field.type in SIXTY_FOUR:
                repeated = "repeated " if field.label == field.LABEL_REPEATED else ""
                found[f"{prefix}{message.name}.{field.name}"] = repeated + SIXTY_FOUR[field.type]
        for nested in message.nested_type:
            if not nested.options.map_entry:
                walk(f"{prefix}{message.name}.", nested)

    for file in compile_protos(ours, PROTO).file:
        for message in file.message_type:
            walk(f"{file.package}.", message)
    return found


def _documented_sixty_four_bit_fields() -> dict[str, str]:
    """docs/api.md's list between <!-- int64-fields:start --> and <!-- int64-fields:end -->."""
    text = (ROOT / "docs" / "api.md").read_text()
    start, end = "<!-- int64-fields:start -->", "<!-- int64-fields:end -->"
    assert text.count(start) == 1 and text.count(end) == 1, "docs/api.md lost its 64-bit list"
    block = text[text.index(start) + len(start) : text.index(end)]
    rows: dict[str, str] = {}
    for line in block.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 2 or not cells[0].startswith("`"):
            continue
        name, kind = cells[0].strip("`"), cells[1].strip("`")
        assert name not in rows, f"{name} listed twice"
        rows[name] = kind
    return rows


def test_docs_list_every_64_bit_field() -> None:
    """docs/api.md names each 64-bit field of the API with its type: no more, no fewer."""
    fields = _sixty_four_bit_fields()
    assert "warroom.v1.CreateGameRequest.seed" in fields  # the seeds that exceed 2^53
    assert _documented_sixty_four_bit_fields() == fields
