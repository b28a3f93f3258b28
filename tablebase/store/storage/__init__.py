"""Storage: how a variant's solved positions are kept in the file, behind one protocol.

A variant row names its storage (``variants.storage``); :func:`storage_class` maps
that name to a class implementing :class:`~tablebase.store.storage.base.Storage`,
and everything above the store (the query layer, ``verify``, the CLI, the
HTTP server) talks to the storage only through the protocol. A new storage is
one class registered with :func:`register`.

* ``moves`` (:class:`MovesTable`): states and moves rows; every question
  is answerable in plain SQL (the default for the seed games).
* ``states`` (:class:`StatesOnly`): states rows only; moves are derived from
  the rules at query time and their children looked up by key.
* ``packed`` (:class:`Packed`): no rows per position; the states of each ply
  sorted in compressed blocks of the ``blocks`` table, moves from the rules
  (:mod:`tablebase.store.packed`, read by :mod:`tablebase.store.packed_reader`,
  written by :mod:`tablebase.store.packed_writer`).
* ``dense`` (:class:`Dense`): no keys either; one value a slot of the game's
  dense index of its positions, in compressed blocks, solved by the storage
  itself over that index (:mod:`tablebase.store.dense`).
* ``tiers`` (:class:`Tiered`): a variant built tier by tier, one value a slot
  of each tier's dense numbering of its classes, which the game gives
  (:mod:`tablebase.store.tiers`).

The two block storages share one codec of what is around their block formats
(:mod:`tablebase.store.block_codec`) and one cache of decoded blocks
(:mod:`tablebase.store.block_cache`).

The protocol, its values and the base class of the built-in storages
(:class:`BaseStorage`) are in :mod:`~tablebase.store.storage.base`, the row
storages in :mod:`~tablebase.store.storage.rows`, the block storages in
:mod:`~tablebase.store.storage.blocks`; all are importable from here.

This package imports neither numpy nor SQLAlchemy at load time: opening a
database for a probe must stay fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tablebase.errors import BuildError, DatabaseError
from tablebase.store.storage.base import (
    BaseStorage,
    EdgeChunk,
    Entry,
    PlyRow,
    Row,
    StateChunk,
    Storage,
    Value,
    read_plies,
)
from tablebase.store.storage.blocks import Dense, Packed
from tablebase.store.storage.rows import MovesTable, RulesMoves, StatesOnly, StatesTable
from tablebase.store.storage.tiered import Tiered

if TYPE_CHECKING:
    from tablebase.games.base import Game

_STORAGES: dict[str, type[Storage]] = {cls.name: cls for cls in (MovesTable, StatesOnly, Packed, Dense, Tiered)}


def register(cls: type[Storage]) -> type[Storage]:
    """Make a storage class known by its :attr:`Storage.name` (usable as a class decorator)."""
    _STORAGES[cls.name] = cls
    return cls


def names() -> list[str]:
    """The registered storage names."""
    return list(_STORAGES)


def storage_class(name: str) -> type[Storage]:
    """The storage class called ``name``; raises :class:`BuildError` for an unknown name."""
    try:
        return _STORAGES[name]
    except KeyError:
        known = " or ".join(repr(n) for n in _STORAGES)
        raise BuildError(f"unknown storage {name!r}: use {known}") from None


def storage_info(name: str) -> type[Storage]:
    """The storage class called ``name`` for describing a stored variant (a name this version does
    not know reads as a storage that keeps no moves)."""
    return _STORAGES.get(name) or _unknown(name)


def _unknown(name: str) -> type[Storage]:
    return type(f"Unknown_{name}", (StatesTable,), {"name": name, "label": name})


def open_storage(name: str, game: Game, variant_id: int, symmetry: bool) -> Storage:
    """The storage of a variant stored with storage ``name``."""
    cls = _STORAGES.get(name)
    if cls is None:
        raise DatabaseError(
            f"variant {game.name!r} uses storage {name!r}, which this version of tablebase cannot read;"
            " upgrade the tablebase package"
        )
    return cls(game, variant_id, symmetry)


__all__ = [
    "BaseStorage",
    "Dense",
    "EdgeChunk",
    "Entry",
    "MovesTable",
    "Packed",
    "PlyRow",
    "Row",
    "RulesMoves",
    "StateChunk",
    "StatesOnly",
    "StatesTable",
    "Storage",
    "Tiered",
    "Value",
    "names",
    "open_storage",
    "read_plies",
    "register",
    "storage_class",
    "storage_info",
]
