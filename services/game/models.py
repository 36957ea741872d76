"""SQL schema of the game authority: games, seats, the append-only action log, snapshots, results."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    UniqueConstraint,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import Mapped, mapped_column
from sqlalchemy.types import TypeDecorator

from services.common.db import Base

ACTIVE = "active"
FINISHED = "finished"


class UTCDateTime(TypeDecorator[datetime]):
    """A UTC instant, aware on the way in and out on every database.

    PostgreSQL keeps `timestamptz`; SQLite has no time zones and hands back naive values,
    so this stores UTC there and reads every value back as an aware UTC datetime. A naive
    value written is taken as UTC. Comparisons in Python then never mix naive and aware.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        """To UTC (naive on SQLite, which would drop the offset anyway)."""
        if value is None:
            return None
        value = value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        """An aware UTC datetime."""
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class GameRow(Base):
    """One hosted game; `version` is the head of its action log (fenced by compare-and-set)."""

    __tablename__ = "games"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    rules_id: Mapped[str] = mapped_column(String(64), index=True)
    variant: Mapped[str] = mapped_column(String(64))
    options: Mapped[dict[str, str]] = mapped_column(JSON)
    # uint64 seeds do not fit a signed BIGINT: kept as decimal text.
    seed: Mapped[str] = mapped_column(String(20))
    # Per-game salt from which seat tokens are derived (tokens themselves are never stored).
    salt: Mapped[str] = mapped_column(String(64))
    status: Mapped[str] = mapped_column(String(16), index=True, default=ACTIVE)
    version: Mapped[int] = mapped_column(BigInteger, default=0)
    allow_spectators: Mapped[bool] = mapped_column(Boolean, default=False)
    spectator_delay_versions: Mapped[int] = mapped_column(Integer, default=0)
    spectator_token_digest: Mapped[str | None] = mapped_column(String(64), nullable=True)
    request_id: Mapped[str | None] = mapped_column(String(128), unique=True, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime())
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)


class GameSeatRow(Base):
    """A seat: who plays it, its token digest, bot spec, clock spec and clock state."""

    __tablename__ = "seats"

    game_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[str] = mapped_column(String(128), default="", index=True)
    display_name: Mapped[str] = mapped_column(String(128), default="")
    token_digest: Mapped[str] = mapped_column(String(64), index=True)
    # BotSpec as a JSON dict for a bot seat (from the start), else None.
    bot: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    # ClockSpec as a JSON dict, else None.
    clock: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    # "human" or "bot": who plays the seat now (a clock expiry may hand it to a bot).
    controller: Mapped[str] = mapped_column(String(8), default="human")
    # A taken-over human came back: the seat returns to them at its next decision.
    reclaim: Mapped[bool] = mapped_column(Boolean, default=False)
    clock_remaining_ms: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    clock_deadline: Mapped[datetime | None] = mapped_column(
        UTCDateTime(), nullable=True, index=True
    )
    # The game version at which the running clock was started (stale timers compare it).
    clock_version: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    # The version at which the seat's current turn opened: the decision's first version, or
    # the version after the seat's own last answer when the same decision continues for it.
    # None when the seat owes nothing. (Owed bot turns come from SQL; expected_version >= it.)
    turn_version: Mapped[int | None] = mapped_column(BigInteger, nullable=True)


class ActionRow(Base):
    """The append-only log: one row per game version. `kind` is "option", "resign" or "forfeit"."""

    __tablename__ = "actions"
    __table_args__ = (
        UniqueConstraint("game_id", "seq", name="uq_actions_game_seq"),
        Index(
            "uq_actions_idempotency",
            "game_id",
            "seat",
            "idempotency_key",
            unique=True,
        ),
    )

    id: Mapped[int] = mapped_column(
        BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True
    )
    game_id: Mapped[str] = mapped_column(String(32), ForeignKey("games.id", ondelete="CASCADE"))
    seq: Mapped[int] = mapped_column(BigInteger)
    seat: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(16), default="option")
    decision_id: Mapped[str] = mapped_column(String(64), default="")
    option_id: Mapped[str] = mapped_column(String(256), default="")
    expected_version: Mapped[int] = mapped_column(BigInteger, default=0)
    idempotency_key: Mapped[str | None] = mapped_column(String(128), nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())


class SnapshotRow(Base):
    """A MatchSnapshot (warroom.api.convert.snapshot) at a version without undo history."""

    __tablename__ = "snapshots"

    game_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    version: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    data: Mapped[bytes] = mapped_column(LargeBinary)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())


class ResultRow(Base):
    """The result of a finished game: reason, scores, ranks, winners."""

    __tablename__ = "results"

    game_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    reason: Mapped[str] = mapped_column(String(128))
    scores: Mapped[dict[str, float]] = mapped_column(JSON)
    ranks: Mapped[dict[str, int]] = mapped_column(JSON)
    winners: Mapped[list[int]] = mapped_column(JSON)
    finished_at: Mapped[datetime] = mapped_column(UTCDateTime())
