"""Server reflection under both of its names: grpc.reflection.v1 and grpc.reflection.v1alpha.

grpcio-reflection implements only v1alpha. The v1 protocol (proto/third_party/grpc/reflection/
v1/reflection.proto) has the same messages, field for field, under another package, so one
servicer answers both method paths with the same bytes. The v1 descriptors, derived from
v1alpha's with the package renamed, are added to the default pool so that reflection also
describes its own v1 service (`grpcurl describe grpc.reflection.v1.ServerReflection`).
"""

from __future__ import annotations

from collections.abc import Sequence

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool
from grpc_reflection.v1alpha import reflection, reflection_pb2, reflection_pb2_grpc

V1ALPHA_SERVICE: str = reflection.SERVICE_NAME
V1_SERVICE = "grpc.reflection.v1.ServerReflection"
V1_FILE = "grpc/reflection/v1/reflection.proto"
_METHOD = "ServerReflectionInfo"


def v1_file_descriptor() -> descriptor_pb2.FileDescriptorProto:
    """grpc/reflection/v1/reflection.proto as v1alpha's descriptor with the package renamed."""
    alpha = reflection_pb2.DESCRIPTOR
    file = descriptor_pb2.FileDescriptorProto.FromString(alpha.serialized_pb)
    old, new = f".{alpha.package}.", ".grpc.reflection.v1."
    file.name, file.package = V1_FILE, "grpc.reflection.v1"
    file.ClearField("options")

    def rename(message: descriptor_pb2.DescriptorProto) -> None:
        for field in message.field:
            if field.type_name.startswith(old):
                field.type_name = new + field.type_name[len(old) :]
        for nested in message.nested_type:
            rename(nested)

    for message in file.message_type:
        rename(message)
    for service in file.service:
        for method in service.method:
            method.input_type = new + method.input_type[len(old) :]
            method.output_type = new + method.output_type[len(old) :]
    return file


def _register_v1_descriptors() -> None:
    """Add the v1 file to the default pool once (a no-op when something already did)."""
    pool = descriptor_pool.Default()
    try:
        pool.FindServiceByName(V1_SERVICE)
    except KeyError:
        pool.AddSerializedFile(v1_file_descriptor().SerializeToString())


def _v1_handlers(servicer: object) -> dict[str, grpc.RpcMethodHandler]:
    return {
        _METHOD: grpc.stream_stream_rpc_method_handler(
            getattr(servicer, _METHOD),
            request_deserializer=reflection_pb2.ServerReflectionRequest.FromString,
            response_serializer=reflection_pb2.ServerReflectionResponse.SerializeToString,
        )
    }


def enable_reflection(service_names: Sequence[str], server: grpc.aio.Server) -> None:
    """Serve reflection on `server` as v1 and v1alpha, listing `service_names`, both
    reflection services and anything else named by the caller (e.g. health)."""
    _register_v1_descriptors()
    names = (*service_names, V1_SERVICE, V1ALPHA_SERVICE)
    servicer = reflection.aio.ReflectionServicer(names)
    reflection_pb2_grpc.add_ServerReflectionServicer_to_server(servicer, server)
    handlers = _v1_handlers(servicer)
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(V1_SERVICE, handlers),))
    server.add_registered_method_handlers(V1_SERVICE, handlers)
