"""What the block storages share: the packed value format, a block's checksum, the ``blocks`` rows and the per-ply tallies.

Both block storages (``packed``: sorted keys and their values,
:mod:`tablebase.store.packed`; ``dense``: values at the slots of a dense
index, :mod:`tablebase.store.dense`) code their blocks in formats of their
own, and share what is around them, written here once:

* the packed value of a stored position, ``outcome | (distance + 1) << 2``
  (the outcome codes of :class:`tablebase.outcome.Code`; ``distance + 1`` so
  that 0 stands for no distance, a perpetual draw), coded and decoded only
  here: :func:`pack_values` and :func:`unpack_values` on arrays, :func:`unpack`
  and :func:`stored_value` on one value, :func:`stored_moves` on a probe's moves;
* the seed of a block's CRC-32 (:func:`checksum`), which ties the data to the
  row's ply, first state and count, so a block moved to another ply or
  position fails to decode; and the inflate of a raw deflate stream
  (:func:`inflate`, with :func:`fast_crc32`: libdeflate's where installed);
* the rows of the ``blocks`` table: encoded on threads (:func:`encode_rows`),
  inserted in batches (:func:`insert_rows`), read by ply and named in errors
  (:class:`BlockTable`), written into a file with pages of :data:`PAGE_SIZE`
  (:func:`write_blocks`);
* a row of the ``plies`` table (:func:`ply_sums`).

This module imports numpy only inside the functions on arrays: the storages
load it with the package.
"""

from __future__ import annotations

import sqlite3
import struct
import zlib
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Sequence, TypeVar

from tablebase.errors import DatabaseError
from tablebase.outcome import NAMES

if TYPE_CHECKING:
    import os

    import numpy as np

    from tablebase.games.base import Game
    from tablebase.solve import Progress
    from tablebase.store.storage.base import Value
    from tablebase.store.states import Summary
    from tablebase.store.writer import PlyTally

#: SQLite page size of a file made anew for a block storage: a compressed block of a few KB leaves
#: most of a 4 KB page empty; a 16 KB page holds several.
PAGE_SIZE = 16384
#: A row of the ``blocks`` table: ``(variant_id, ply, first_state, first_key, count, data)``.
BlockRow = tuple[int, int, int, str, int, bytes]
#: Rows per ``INSERT`` batch.
_BATCH = 256
_INSERT = "INSERT INTO blocks (variant_id, ply, first_state, first_key, count, data) VALUES (?, ?, ?, ?, ?, ?)"
_SEED = struct.Struct("<qqq")
#: The bits of a packed value that hold its outcome code; the distance + 1 is above them.
_OUTCOME_BITS = 3
_DISTANCE_SHIFT = 2

_Item = TypeVar("_Item")


class CorruptBlockError(DatabaseError):
    """A block's data does not decode to what its row says."""


# -- the packed value format ---------------------------------------------------------------------


def pack_values(outcome: np.ndarray, distance: np.ndarray) -> np.ndarray:
    """One ``np.uint16`` per state from outcome codes (1..3) and distances (-1: none)."""
    import numpy as np

    codes = np.asarray(outcome).astype(np.uint16)
    return codes | ((np.asarray(distance).astype(np.int64) + 1) << _DISTANCE_SHIFT).astype(np.uint16)


def unpack_values(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(outcome codes as np.int8, distances as np.int32 with -1 for none)`` of packed values."""
    import numpy as np

    values = np.asarray(values)
    return (values & _OUTCOME_BITS).astype(np.int8), (values >> _DISTANCE_SHIFT).astype(np.int32) - 1


def _decode(value: int) -> Value:
    distance = (value >> _DISTANCE_SHIFT) - 1
    return NAMES[value & _OUTCOME_BITS], None if distance < 0 else distance


#: :func:`_decode` of the packed values of distances up to 254.
_UNPACKED: dict[int, Value] = {v: _decode(v) for v in range(1 << 10) if v & _OUTCOME_BITS in NAMES}


def unpack(value: int) -> Value:
    """``(outcome, distance)`` of one packed value (from a table for the usual ones)."""
    return _UNPACKED.get(value) or _decode(value)


def stored_value(value: int | None) -> Value | None:
    """:func:`unpack` of a stored value, ``None`` for none."""
    if value is None:
        return None
    return _UNPACKED.get(value) or _decode(value)


def stored_moves(moves: Iterable[tuple[int, int | None]]) -> list[tuple[int, Value | None]]:
    """:func:`stored_value` of the packed value of each ``(move, packed value)``."""
    table = _UNPACKED
    return [(move, None if v is None else table.get(v) or _decode(v)) for move, v in moves]


# -- checksums and streams ------------------------------------------------------------------------

# libdeflate (``tablebase[fast]``) inflates a stream of known size and computes a CRC-32 in about
# half the time of zlib, which does both without it
fast_crc32: Callable[[bytes | memoryview, int], int] = zlib.crc32
_inflate_exact: Callable[[bytes | memoryview, int], bytearray] | None = None
_INFLATE_ERRORS: tuple[type[Exception], ...] = (zlib.error,)
try:
    import deflate
except ImportError:
    pass
else:
    fast_crc32 = deflate.crc32
    _inflate_exact = deflate.deflate_decompress
    _INFLATE_ERRORS = (zlib.error, deflate.DeflateError)


def checksum(
    data: bytes | memoryview, ply: int, first: int, count: int,
    crc32: Callable[[bytes | memoryview, int], int] = zlib.crc32,
) -> int:
    """The CRC-32 of a block's (or a part's) ``data``, seeded with its row's ply, first state and count."""
    return crc32(data, zlib.crc32(_SEED.pack(ply, first, count)))


def inflate(stream: bytes | memoryview, size: int | None = None) -> bytes | bytearray:
    """The bytes of a raw deflate ``stream`` (``size`` of them when known: libdeflate's exact inflate,
    where installed); :class:`CorruptBlockError` when it does not inflate."""
    try:
        if size is not None and _inflate_exact is not None:
            return _inflate_exact(stream, size)
        return zlib.decompress(stream, -15)
    except _INFLATE_ERRORS as exc:
        raise CorruptBlockError(f"block does not decode ({exc})") from exc


# -- rows of the ``blocks`` table --------------------------------------------------------------------


def encode_rows(
    layers: Iterable[Iterable[_Item]], encode: Callable[[_Item], BlockRow], threads: int | None = None
) -> Iterator[Iterator[BlockRow]]:
    """Per layer, the rows of its items (``encode`` of each, in order), encoded by ``threads``
    threads (zlib releases the interpreter lock; default: one a core)."""
    import os
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(threads or os.cpu_count() or 1) as pool:
        for items in layers:
            yield pool.map(encode, items)


def insert_rows(cur: sqlite3.Cursor, rows: Iterable[BlockRow], variant_id: int | None = None) -> int:
    """Insert ``rows`` into ``blocks`` in batches (each given the variant row ``variant_id`` when
    one is given); the number of rows inserted."""
    batch: list[BlockRow] = []
    written = 0
    for row in rows:
        batch.append(row if variant_id is None else (variant_id, *row[1:]))
        if len(batch) >= _BATCH:
            cur.executemany(_INSERT, batch)
            written += len(batch)
            batch.clear()
    if batch:
        cur.executemany(_INSERT, batch)
        written += len(batch)
    return written


def write_blocks(
    path: str | os.PathLike[str], summary: Summary, storage: str, seconds: float,
    fill: Callable[[sqlite3.Cursor, int], PlyTally], progress: Progress | None = None,
) -> None:
    """Replace the variant of ``summary`` in the file ``path`` by one of storage ``storage`` whose
    blocks and ``plies`` rows ``fill`` writes (a file made anew has pages of :data:`PAGE_SIZE`)."""
    from tablebase.store.states import replace_variant_data

    replace_variant_data(Path(path), summary, storage, seconds, fill, progress, page_size=PAGE_SIZE)


class BlockTable:
    """The ``blocks`` rows of one variant, read through the connection given to each call.

    ``first_state`` maps a block's ply and first state (its row's ``first_state``) to the
    position that starts it (the identity, unless the rows count slots of an index).
    """

    def __init__(self, game: Game, variant_id: int, first_state: Callable[[int, int], int] | None = None):
        self.game = game
        self.variant_id = variant_id
        self._first_state = first_state
        self._plies: list[int] | None = None

    def plies(self, conn: sqlite3.Connection) -> list[int]:
        """The plies that have blocks, in order."""
        if self._plies is None:
            self._plies = [
                r[0]
                for r in conn.execute(
                    "SELECT DISTINCT ply FROM blocks WHERE variant_id = ? ORDER BY ply", (self.variant_id,)
                )
            ]
        return self._plies

    def of_ply(self, conn: sqlite3.Connection, ply: int) -> Iterator[tuple[int, int, bytes]]:
        """``(first state, count, data)`` of the blocks of ``ply``, in order."""
        rows: Iterator[tuple[int, int, bytes]] = conn.execute(
            "SELECT first_state, count, data FROM blocks WHERE variant_id = ? AND ply = ? ORDER BY first_state",
            (self.variant_id, ply),
        )
        return rows

    def at_or_below(self, conn: sqlite3.Connection, ply: int, key: int) -> tuple[int, int, bytes, int | None] | None:
        """``(first state, count, data, the next block's first state or None)`` of the block of ``ply``
        that starts last at or below ``key``; ``None`` below the first block."""
        row: tuple[int, int, bytes, int | None] | None = conn.execute(
            "SELECT first_state, count, data, (SELECT first_state FROM blocks WHERE variant_id = ?1 AND ply = ?2"
            " AND first_state > ?3 ORDER BY first_state LIMIT 1)"
            " FROM blocks WHERE variant_id = ?1 AND ply = ?2 AND first_state <= ?3 ORDER BY first_state DESC LIMIT 1",
            (self.variant_id, ply, key),
        ).fetchone()
        return row

    def corrupt(self, ply: int, first: int, exc: Exception) -> CorruptBlockError:
        """The error that names the variant and the block of ``ply`` from ``first`` that ``exc`` found corrupt."""
        state = first if self._first_state is None else self._first_state(ply, first)
        return CorruptBlockError(
            f"{self.game.name}: the block of ply {ply} from {self.game.format_position(state)!r} is corrupt"
            f" ({exc}); rebuild the variant"
        )


# -- rows of the ``plies`` table ---------------------------------------------------------------------


def ply_sums(
    positions: int, classes: int, class_outcomes: Sequence[int], terminal: int, outcomes: Sequence[int]
) -> np.ndarray:
    """A ply's counts in the order of :attr:`tablebase.store.writer.PlyTally.COLUMNS`: positions,
    classes, classes won, lost and drawn, terminal classes, positions won, lost and drawn."""
    import numpy as np

    return np.array([positions, classes, *class_outcomes, terminal, *outcomes], dtype=np.int64)
