"""The grpc.aio CatalogService over `warroom.catalog`, served by the lobby process.

Public (no token): the catalogue holds no secret. A refusal carries google.rpc.ErrorInfo
(domain "warroom.catalog") with a stable reason, and BadRequest naming the field:
GAME_REQUIRED and UNKNOWN_GAME_KIND (INVALID_ARGUMENT), UNKNOWN_GAME (NOT_FOUND).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import grpc
from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

from warroom import catalog
from warroom.api.kinds import GAME_IDS
from warroom.v1 import catalog_pb2, catalog_pb2_grpc, common_pb2

SERVICE_NAME = catalog_pb2.DESCRIPTOR.services_by_name["CatalogService"].full_name
DOMAIN = "warroom.catalog"


class CatalogError(Exception):
    """A refused request: code, reason, message and the request field at fault."""

    def __init__(self, code: int, reason: str, message: str, field: str) -> None:
        super().__init__(message)
        self.code, self.reason, self.message, self.field = code, reason, message, field

    def status(self) -> status_pb2.Status:
        """The google.rpc.Status with ErrorInfo and BadRequest."""
        details = [
            error_details_pb2.ErrorInfo(reason=self.reason, domain=DOMAIN),
            error_details_pb2.BadRequest(
                field_violations=[
                    error_details_pb2.BadRequest.FieldViolation(
                        field=self.field, description=self.message
                    )
                ]
            ),
        ]
        packed = []
        for detail in details:
            holder = any_pb2.Any()
            holder.Pack(detail)
            packed.append(holder)
        return status_pb2.Status(code=self.code, message=self.message, details=packed)


def _kinds() -> str:
    return ", ".join(
        common_pb2.GameKind.Name(common_pb2.GameKind.ValueType(k)) for k in sorted(GAME_IDS)
    )


def resolve(request: catalog_pb2.GetCatalogRequest) -> str:
    """The rules id a GetCatalog request names; raises CatalogError."""
    known = ", ".join(catalog.rules_ids())
    if request.rules_id:
        if request.rules_id not in catalog.rules_ids():
            raise CatalogError(
                code_pb2.NOT_FOUND,
                "UNKNOWN_GAME",
                f"unknown game {request.rules_id!r} (known rules ids: {known})",
                "rules_id",
            )
        return request.rules_id
    if request.game == common_pb2.GAME_KIND_UNSPECIFIED:
        raise CatalogError(
            code_pb2.INVALID_ARGUMENT,
            "GAME_REQUIRED",
            f"set game ({_kinds()}) or rules_id ({known})",
            "game",
        )
    try:
        return catalog.resolve(request.game, "")
    except catalog.UnknownGameError:
        raise CatalogError(
            code_pb2.INVALID_ARGUMENT,
            "UNKNOWN_GAME_KIND",
            f"unknown game kind {request.game} (known: {_kinds()})",
            "game",
        ) from None


def answer(request: catalog_pb2.GetCatalogRequest) -> catalog_pb2.GetCatalogResponse:
    """The GetCatalog answer (blocking: the first call per game builds its catalogue)."""
    found = catalog.catalog(resolve(request))
    if request.if_none_match and request.if_none_match == found.content_version:
        return catalog_pb2.GetCatalogResponse(
            content_version=found.content_version, not_modified=True
        )
    return catalog_pb2.GetCatalogResponse(content_version=found.content_version, catalog=found)


def warm() -> None:
    """Build every catalogue once (the lobby runs it in the background at start)."""
    catalog.warm()


class CatalogServicer(catalog_pb2_grpc.CatalogServiceServicer):
    """CatalogService: ListGameKinds and GetCatalog."""

    async def ListGameKinds(
        self,
        request: catalog_pb2.ListGameKindsRequest,
        context: grpc.aio.ServicerContext[Any, Any],
    ) -> catalog_pb2.ListGameKindsResponse:
        """Every hosted game in short."""
        games = await asyncio.to_thread(lambda: [catalog.summary(g) for g in catalog.rules_ids()])
        return catalog_pb2.ListGameKindsResponse(games=games)

    async def GetCatalog(
        self,
        request: catalog_pb2.GetCatalogRequest,
        context: grpc.aio.ServicerContext[Any, Any],
    ) -> catalog_pb2.GetCatalogResponse:
        """One game's catalogue, or not_modified for a current cached copy."""
        try:
            return await asyncio.to_thread(answer, request)
        except CatalogError as error:
            status = rpc_status.to_status(error.status())
            await context.abort(status.code, status.details, status.trailing_metadata)
            raise AssertionError("unreachable") from None


def register(servicer: CatalogServicer | None = None) -> Callable[[grpc.aio.Server], None]:
    """A registration callback for `services.common.server.start_server`."""

    def add(server: grpc.aio.Server) -> None:
        catalog_pb2_grpc.add_CatalogServiceServicer_to_server(servicer or CatalogServicer(), server)

    return add
