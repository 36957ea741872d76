"""Lobby tables: players, credentials, ratings, lobby tables and their seats, match results,
parties and their members."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    UniqueConstraint,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from services.common.db import Base


class PlayerRow(Base):
    """A player: registered (with a credential), guest, or a bot pseudo-player."""

    __tablename__ = "lobby_players"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    display_name: Mapped[str] = mapped_column(String(64))
    # Lower-cased account name of a registered player (unique); None for guests and bots.
    account: Mapped[str | None] = mapped_column(String(64), unique=True)
    guest: Mapped[bool] = mapped_column(Boolean, default=False)
    bot: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class CredentialRow(Base):
    """A registered player's password hash (argon2id)."""

    __tablename__ = "lobby_credentials"

    player_id: Mapped[str] = mapped_column(
        ForeignKey("lobby_players.id", ondelete="CASCADE"), primary_key=True
    )
    password_hash: Mapped[str] = mapped_column(String(256))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class RatingRow(Base):
    """A player's (or bot pseudo-player's) openskill rating in one game."""

    __tablename__ = "lobby_ratings"
    __table_args__ = (Index("ix_lobby_ratings_game_ordinal", "game", "ordinal"),)

    player_id: Mapped[str] = mapped_column(
        ForeignKey("lobby_players.id", ondelete="CASCADE"), primary_key=True
    )
    game: Mapped[str] = mapped_column(String(32), primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    ordinal: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class TableRow(Base):
    """A table: a custom game being gathered, or a matchmade game (source "match")."""

    __tablename__ = "lobby_tables"
    __table_args__ = (Index("ix_lobby_tables_listing", "game", "status", "private", "created_at"),)

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    game: Mapped[str] = mapped_column(String(32))
    variant: Mapped[str] = mapped_column(String(64))
    options: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    host_player_id: Mapped[str | None] = mapped_column(String(64))
    source: Mapped[str] = mapped_column(String(16), default="custom")
    private: Mapped[bool] = mapped_column(Boolean, default=False)
    invite_code: Mapped[str | None] = mapped_column(String(32))
    allow_spectators: Mapped[bool] = mapped_column(Boolean, default=False)
    # ClockSpec and the default fill BotSpec as protobuf JSON.
    clock: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    fill_bot: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    status: Mapped[str] = mapped_column(String(16))
    game_id: Mapped[str | None] = mapped_column(String(64), unique=True)
    # The CreateGame request id the game was created with (asking again with it returns the
    # game's seat tokens: how an owner recovers a seat; the lobby keeps only digests).
    game_request_id: Mapped[str | None] = mapped_column(String(128))
    spectator_token: Mapped[str | None] = mapped_column(String(256))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # Optimistic concurrency: every change bumps it (UPDATE ... WHERE version = ?).
    version: Mapped[int] = mapped_column(Integer, default=0)

    seats: Mapped[list[SeatRow]] = relationship(
        back_populates="table", order_by="SeatRow.index", cascade="all, delete-orphan"
    )


class SeatRow(Base):
    """One seat of a lobby table: its side and team, the player or bot, the seat token digest."""

    __tablename__ = "lobby_seats"
    __table_args__ = (UniqueConstraint("table_id", "index"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("lobby_tables.id", ondelete="CASCADE"))
    index: Mapped[int] = mapped_column(Integer)
    side: Mapped[str] = mapped_column(String(64))
    team: Mapped[str] = mapped_column(String(64))
    player_id: Mapped[str | None] = mapped_column(String(64), index=True)
    display_name: Mapped[str | None] = mapped_column(String(64))
    bot_kind: Mapped[str | None] = mapped_column(String(32))
    bot_difficulty: Mapped[str | None] = mapped_column(String(32))
    # The rules automate this seat (never offered to players).
    automated: Mapped[bool] = mapped_column(Boolean, default=False)
    # SHA-256 (hex) of the seat token: the token itself is never stored.
    seat_token_digest: Mapped[str | None] = mapped_column(String(64))

    table: Mapped[TableRow] = relationship(back_populates="seats")


class MatchResultRow(Base):
    """A finished game's result as rated (one row per game; its presence makes rating idempotent)."""

    __tablename__ = "lobby_match_results"

    game_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("lobby_tables.id", ondelete="CASCADE"))
    game: Mapped[str] = mapped_column(String(32))
    result: Mapped[dict[str, Any]] = mapped_column(JSON)
    # Rating changes applied: rater id -> [mu before, mu after].
    changes: Mapped[dict[str, Any]] = mapped_column(JSON)
    finished_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class PartyRow(Base):
    """A party: players who queue together; its leader invites and queues it."""

    __tablename__ = "lobby_parties"

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    leader_player_id: Mapped[str] = mapped_column(
        ForeignKey("lobby_players.id", ondelete="CASCADE")
    )
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class PartyMemberRow(Base):
    """A member of a party (accepted) or an invitation waiting for the player's answer.

    A player belongs to at most one party (a partial unique index on accepted rows) but may
    hold invitations from several.
    """

    __tablename__ = "lobby_party_members"
    __table_args__ = (
        Index(
            "uq_lobby_party_members_member",
            "player_id",
            unique=True,
            postgresql_where=text("accepted"),
            sqlite_where=text("accepted"),
        ),
    )

    party_id: Mapped[str] = mapped_column(
        ForeignKey("lobby_parties.id", ondelete="CASCADE"), primary_key=True
    )
    player_id: Mapped[str] = mapped_column(
        ForeignKey("lobby_players.id", ondelete="CASCADE"), primary_key=True
    )
    accepted: Mapped[bool] = mapped_column(Boolean, default=False)
    # Invited at (pending) or joined at (accepted).
    since: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    # A pending invitation lapses then (None once accepted).
    expires_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
