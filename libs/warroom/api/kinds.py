"""Mapping between the API's GameKind enum and the rules registry's game ids."""

from __future__ import annotations

from warroom.engine.errors import RulesError
from warroom.v1 import common_pb2

GAME_IDS: dict[int, str] = {
    common_pb2.GAME_KIND_NEW_COLD_WAR: "ncw",
    common_pb2.GAME_KIND_QMG_COLD_WAR: "qmg_cw",
    common_pb2.GAME_KIND_QMG_SOUTH_FRONT: "qmg_sf",
}
GAME_KINDS: dict[str, int] = {game_id: kind for kind, game_id in GAME_IDS.items()}


def game_id(kind: int) -> str:
    """The registry id of a GameKind; raises RulesError for an unknown or unset kind."""
    try:
        return GAME_IDS[kind]
    except KeyError:
        raise RulesError(f"unknown game kind {kind}") from None


def game_kind(game_id_: str) -> int:
    """The GameKind of a registry id; raises RulesError for an unknown id."""
    try:
        return GAME_KINDS[game_id_]
    except KeyError:
        raise RulesError(f"unknown game {game_id_!r}") from None
