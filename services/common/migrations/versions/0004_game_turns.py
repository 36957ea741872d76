"""game: owed work derivable from SQL (seats.turn_version) and an index on clock deadlines

`seats.turn_version` is the game version at which the seat's current turn opened (the
decision's first version, or the version after the seat's own last answer when the same
decision continues for it); NULL when the seat owes nothing. With `controller` and
`clock_deadline` it tells, from SQL alone, which bot turns are owed and which clocks run,
and it bounds the `expected_version` a SubmitAction may carry (docs/api.md).

Revision ID: 0004_game_turns
Revises: 0003_lobby_parties
Create Date: 2026-12-01 23:40:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004_game_turns"
down_revision: str | None = "0003_lobby_parties"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("turn_version", sa.BigInteger(), nullable=True))
        batch.create_index("ix_seats_clock_deadline", ["clock_deadline"])


def downgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.drop_index("ix_seats_clock_deadline")
        batch.drop_column("turn_version")
