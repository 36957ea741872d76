"""lobby: parties with consent, seat token digests, game request ids

Seat tokens were stored in plaintext (lobby_seats.seat_token); they become SHA-256 digests
(seat_token_digest), the token itself recoverable from the authority by the table's
CreateGame request id (lobby_tables.game_request_id, filled from games.request_id).
Matchmade games become watchable (allow_spectators) as docs/api.md describes.

Revision ID: 0003_lobby_parties
Revises: 0002_lobby
Create Date: 2026-12-01 23:20:00
"""

import hashlib
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003_lobby_parties"
down_revision: str | None = "0002_lobby"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _digest_seat_tokens() -> None:
    bind = op.get_bind()
    seats = sa.table(
        "lobby_seats",
        sa.column("id", sa.Integer),
        sa.column("seat_token", sa.String),
        sa.column("seat_token_digest", sa.String),
    )
    rows = bind.execute(
        sa.select(seats.c.id, seats.c.seat_token).where(seats.c.seat_token.isnot(None))
    )
    for seat_id, token in list(rows):
        digest = hashlib.sha256(token.encode()).hexdigest() if token else None
        bind.execute(seats.update().where(seats.c.id == seat_id).values(seat_token_digest=digest))


def upgrade() -> None:
    with op.batch_alter_table("lobby_seats") as batch:
        batch.add_column(sa.Column("seat_token_digest", sa.String(length=64), nullable=True))
    _digest_seat_tokens()
    with op.batch_alter_table("lobby_seats") as batch:
        batch.drop_column("seat_token")
    with op.batch_alter_table("lobby_tables") as batch:
        batch.add_column(sa.Column("game_request_id", sa.String(length=128), nullable=True))
    op.execute(
        "UPDATE lobby_tables SET game_request_id = "
        "(SELECT games.request_id FROM games WHERE games.id = lobby_tables.game_id) "
        "WHERE game_id IS NOT NULL"
    )
    op.execute("UPDATE lobby_tables SET allow_spectators = true WHERE source = 'match'")
    op.create_table(
        "lobby_parties",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("leader_player_id", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["leader_player_id"],
            ["lobby_players.id"],
            name=op.f("fk_lobby_parties_leader_player_id_lobby_players"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_lobby_parties")),
    )
    op.create_table(
        "lobby_party_members",
        sa.Column("party_id", sa.String(length=40), nullable=False),
        sa.Column("player_id", sa.String(length=64), nullable=False),
        sa.Column("accepted", sa.Boolean(), nullable=False),
        sa.Column("since", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["party_id"],
            ["lobby_parties.id"],
            name=op.f("fk_lobby_party_members_party_id_lobby_parties"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["lobby_players.id"],
            name=op.f("fk_lobby_party_members_player_id_lobby_players"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("party_id", "player_id", name=op.f("pk_lobby_party_members")),
    )
    op.create_index(
        "uq_lobby_party_members_member",
        "lobby_party_members",
        ["player_id"],
        unique=True,
        postgresql_where=sa.text("accepted"),
        sqlite_where=sa.text("accepted"),
    )


def downgrade() -> None:
    op.drop_index("uq_lobby_party_members_member", table_name="lobby_party_members")
    op.drop_table("lobby_party_members")
    op.drop_table("lobby_parties")
    with op.batch_alter_table("lobby_tables") as batch:
        batch.drop_column("game_request_id")
    with op.batch_alter_table("lobby_seats") as batch:
        batch.add_column(sa.Column("seat_token", sa.String(length=256), nullable=True))
        batch.drop_column("seat_token_digest")
