"""SQLAlchemy models of the tablebase schema.

The schema itself is created and changed only by the alembic migrations in
``migrations/``; these models describe it for the migrations' autogenerate
check and for the small metadata rows (``variants``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Optional

from sqlalchemy import (
    JSON,
    Boolean,
    CheckConstraint,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class Variant(Base):
    """One built game variant."""

    __tablename__ = "variants"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String, unique=True)
    family: Mapped[str] = mapped_column(String)
    rules: Mapped[str] = mapped_column(Text, default="")
    parameters: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    symmetry: Mapped[bool] = mapped_column(Boolean)
    complete: Mapped[bool] = mapped_column(Boolean, default=True)
    storage: Mapped[str] = mapped_column(String, server_default="moves")
    root_key: Mapped[str] = mapped_column(String)
    outcome: Mapped[Optional[str]] = mapped_column(String, nullable=True)
    distance: Mapped[Optional[int]] = mapped_column(Integer, nullable=True)
    states_count: Mapped[int] = mapped_column(Integer, default=0)
    moves_count: Mapped[int] = mapped_column(Integer, default=0)
    build_seconds: Mapped[float] = mapped_column(Float, default=0.0)
    builder_version: Mapped[str] = mapped_column(String)
    built_at: Mapped[datetime] = mapped_column(DateTime)

    __table_args__ = (
        CheckConstraint("outcome IN ('win', 'loss', 'draw')", name="outcome"),
    )


class State(Base):
    """One position (one representative per symmetry class when reduced)."""

    __tablename__ = "states"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    variant_id: Mapped[int] = mapped_column(ForeignKey("variants.id", ondelete="CASCADE"))
    key: Mapped[str] = mapped_column(String)
    to_move: Mapped[str] = mapped_column(String)
    ply: Mapped[int] = mapped_column(Integer)
    terminal: Mapped[bool] = mapped_column(Boolean)
    outcome: Mapped[str] = mapped_column(String)
    distance: Mapped[Optional[int]] = mapped_column(Integer, nullable=True)
    #: The reachable positions the state stands for: its orbit, unless a symmetry moves the start.
    orbit: Mapped[int] = mapped_column(Integer, default=1)
    representative: Mapped[bool] = mapped_column(Boolean, default=True)

    __table_args__ = (
        UniqueConstraint("variant_id", "key"),
        CheckConstraint("outcome IN ('win', 'loss', 'draw')", name="outcome"),
        Index("ix_states_variant_id_ply", "variant_id", "ply"),
    )


class Move(Base):
    """A legal move between two stored states, in the notation of the variant."""

    __tablename__ = "moves"

    from_state: Mapped[int] = mapped_column(
        ForeignKey("states.id", ondelete="CASCADE"), primary_key=True
    )
    move: Mapped[str] = mapped_column(String, primary_key=True)
    to_state: Mapped[int] = mapped_column(ForeignKey("states.id", ondelete="CASCADE"), index=True)

    __table_args__ = {"sqlite_with_rowid": False}


class Ply(Base):
    """Counts of one ply of a variant: positions, classes, outcomes and terminal states stored there."""

    __tablename__ = "plies"

    variant_id: Mapped[int] = mapped_column(ForeignKey("variants.id", ondelete="CASCADE"), primary_key=True)
    ply: Mapped[int] = mapped_column(Integer, primary_key=True)
    positions: Mapped[int] = mapped_column(Integer)
    classes: Mapped[int] = mapped_column(Integer)
    wins: Mapped[int] = mapped_column(Integer)
    losses: Mapped[int] = mapped_column(Integer)
    draws: Mapped[int] = mapped_column(Integer)
    terminal: Mapped[int] = mapped_column(Integer)
    #: Positions won, lost and drawn for the side to move (``wins``, ``losses``, ``draws`` count stored states);
    #: empty for a packed variant built before these columns existed.
    win_positions: Mapped[Optional[int]] = mapped_column(Integer, nullable=True)
    loss_positions: Mapped[Optional[int]] = mapped_column(Integer, nullable=True)
    draw_positions: Mapped[Optional[int]] = mapped_column(Integer, nullable=True)

    __table_args__ = {"sqlite_with_rowid": False}


class Block(Base):
    """A compressed block of consecutive states of one ply of a packed variant (see :mod:`tablebase.store.packed`)."""

    __tablename__ = "blocks"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    variant_id: Mapped[int] = mapped_column(ForeignKey("variants.id", ondelete="CASCADE"))
    ply: Mapped[int] = mapped_column(Integer)
    first_state: Mapped[int] = mapped_column(Integer)
    first_key: Mapped[str] = mapped_column(String)
    count: Mapped[int] = mapped_column(Integer)
    data: Mapped[bytes] = mapped_column(LargeBinary)

    __table_args__ = (UniqueConstraint("variant_id", "ply", "first_state"),)
