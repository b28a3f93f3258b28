"""Dense storage: one value a slot of the game's dense index, in compressed blocks of the ``blocks`` table.

A game whose positions of each ply can be numbered densely (its *dense
index*, :class:`DenseIndex`; Connect Four's is
:mod:`tablebase.games.connect4_index`) is built ply by ply over that
numbering, and stored as the values alone: no keys. Each ply is cut into
blocks of :data:`BLOCK` slots, one row of ``blocks`` each: the variant, the
ply, the first slot (``first_state``; a block's first slot is a multiple of
:data:`BLOCK`), the position of the first slot as text (``first_key``), the
number of slots, and the data: an 8-byte header (format :data:`FORMAT`, the
CRC-32 of the data and of the row's ply, first slot and count) and the zlib
stream of the block's runs of equal bytes: the byte of each run, then the
run lengths as two byte planes (low bytes, then high bytes). Each slot's byte
is the packed value of :func:`tablebase.store.packed.pack_values`.

The index decides which slots hold a value: one position of each symmetry
class, and not the positions whose value the rules give
(:meth:`DenseIndex.derived`: the end of a game, a win with the next move).
Every other slot (not a position, or not stored) repeats the value before it
in its block, which makes long runs; so a slot's byte means something only
for a stored position. A lookup asks the rules first, then reads one block
(one indexed read, one decompression of about a hundred runs) and
bisects its run ends; decoded blocks stay in a least-recently-used cache.
"""

from __future__ import annotations

import bisect
import sqlite3
import struct
import threading
import zlib
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Sequence

import numpy as np

from tablebase.store.packed import CorruptBlockError

if TYPE_CHECKING:
    import os

    from tablebase.games.base import Game
    from tablebase.games.dense import DenseIndex, PlyCounts
    from tablebase.solve import Progress
    from tablebase.store.writer import PlyTally

#: Slots per block.
BLOCK = 16384
#: zlib level of the blocks.
LEVEL = 9
#: SQLite page size of a file made anew.
PAGE_SIZE = 16384
#: Bytes of decoded blocks a reader keeps.
CACHE_BYTES = 64 << 20
FORMAT = 2
_HEADER = struct.Struct("<BBBxI")
_SEED = struct.Struct("<qqq")


def _seed(ply: int, first: int, count: int) -> int:
    return zlib.crc32(_SEED.pack(ply, first, count))


def encode_block(values: np.ndarray, ply: int, first: int) -> bytes:
    """The data of a block: ``values`` (one byte a slot, 0 where nothing is stored) with each 0 after
    a stored value replaced by the value before it, as runs, compressed."""
    values = np.ascontiguousarray(values, dtype=np.uint8)
    at = np.where(values != 0, np.arange(values.size, dtype=np.int32), 0)
    np.maximum.accumulate(at, out=at)
    filled = values[at]
    starts = np.flatnonzero(np.diff(filled)) + 1
    ends = np.append(starts, filled.size)
    lengths = np.diff(ends, prepend=0).astype("<u2")
    raw = filled[ends - 1].tobytes() + np.ascontiguousarray(lengths.view(np.uint8).reshape(-1, 2).T).tobytes()
    crc = zlib.crc32(raw, _seed(ply, first, values.size))
    return _HEADER.pack(FORMAT, 0, 1, crc) + zlib.compress(raw, LEVEL)


class Runs:
    """A decoded block: its runs of equal bytes, as the end of each run (from the block's first
    slot) and its byte."""

    __slots__ = ("ends", "values", "_ends")

    def __init__(self, ends: np.ndarray, values: bytes):
        self.ends = np.ascontiguousarray(ends, dtype=np.int64)
        self.values = values
        # the same memory seen as a sequence of Python ints, for bisect
        self._ends = self.ends.data.cast("B").cast("q")

    def __getitem__(self, offset: int) -> int:
        return self.values[bisect.bisect_right(self._ends, offset)]

    @property
    def nbytes(self) -> int:
        return int(self.ends.nbytes) + len(self.values)

    def expand(self) -> np.ndarray:
        """One byte a slot."""
        return np.repeat(np.frombuffer(self.values, dtype=np.uint8), np.diff(self.ends, prepend=0))


def decode_block(data: bytes, ply: int, first: int, count: int) -> Runs:
    """The runs of a block; raises :class:`CorruptBlockError` if it does not check out."""
    try:
        version, _, _, crc = _HEADER.unpack_from(data)
        if version != FORMAT:
            raise ValueError("unknown block format")
        raw = zlib.decompress(data[_HEADER.size :])
    except (struct.error, ValueError, zlib.error, TypeError) as exc:
        raise CorruptBlockError(f"block does not decode ({exc})") from exc
    n = len(raw) // 3
    if len(raw) != 3 * n or zlib.crc32(raw, _seed(ply, first, count)) != crc:
        raise CorruptBlockError("block fails its checksum")
    planes = np.frombuffer(raw, dtype=np.uint8, offset=n).reshape(2, n).astype(np.int64)
    ends = np.cumsum(planes[0] | planes[1] << 8)
    if n and int(ends[-1]) != count:
        raise CorruptBlockError("block fails its checksum")
    return Runs(ends, raw[:n])


class DenseReader:
    """Lookups of one dense variant through a read connection."""

    def __init__(self, game: Game, index: DenseIndex, variant_id: int, cache_bytes: int = CACHE_BYTES):
        self.game = game
        self.index = index
        self.variant_id = variant_id
        self.cache_bytes = cache_bytes
        self._cache: OrderedDict[tuple[int, int], Runs] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()

    def _blocks(self, conn: sqlite3.Connection, wanted: set[tuple[int, int]]) -> dict[tuple[int, int], Runs]:
        """The decoded blocks ``(ply, first slot)`` that are stored, from the cache or read together."""
        found: dict[tuple[int, int], Runs] = {}
        missing: dict[int, list[int]] = {}
        with self._lock:
            cache = self._cache
            for key in wanted:
                runs = cache.get(key)
                if runs is None:
                    missing.setdefault(key[0], []).append(key[1])
                else:
                    cache.move_to_end(key)
                    found[key] = runs
        if not missing:
            return found
        read: list[tuple[tuple[int, int], Runs]] = []
        for ply, firsts in missing.items():
            rows = conn.execute(
                "SELECT first_state, count, data FROM blocks WHERE variant_id = ? AND ply = ?"
                f" AND first_state IN ({', '.join('?' * len(firsts))})",
                (self.variant_id, ply, *firsts),
            )
            read.extend(((ply, first), self.decode(ply, first, count, data)) for first, count, data in rows)
        with self._lock:
            for key, runs in read:
                found[key] = self._cache[key] = runs
                self._size += runs.nbytes
            while self._size > self.cache_bytes and len(self._cache) > 1:
                self._size -= self._cache.popitem(last=False)[1].nbytes
        return found

    def decode(self, ply: int, first: int, count: int, data: bytes) -> Runs:
        """A block row decoded; raises :class:`CorruptBlockError` naming the variant and the block."""
        try:
            return decode_block(data, ply, first, count)
        except CorruptBlockError as exc:
            position = self.game.format_position(self.index.state(ply, first))
            raise CorruptBlockError(
                f"{self.game.name}: the block of ply {ply} from {position!r} is corrupt ({exc}); rebuild the variant"
            ) from exc

    def value(self, conn: sqlite3.Connection, state: int) -> int | None:
        """The packed value of a position that can arise in play, in any orientation (``None``: not stored)."""
        derived, ply, slot = self.index.find(state)
        if slot < 0:
            return None
        if derived is not None:
            return derived
        first = slot - slot % BLOCK
        runs = self._blocks(conn, {(ply, first)}).get((ply, first))
        if runs is None:
            return None
        return runs[slot - first] or None

    def moves(self, conn: sqlite3.Connection, state: int) -> list[tuple[int, int | None]]:
        """``(move, packed value of the position it leads to)`` for every move of a position not over."""
        children = self.index.children(state)
        blocks = self._blocks(conn, {(ply, slot - slot % BLOCK) for _, _, derived, ply, slot in children if derived is None})
        found: list[tuple[int, int | None]] = []
        for move, _, derived, ply, slot in children:
            if derived is None:
                first = slot - slot % BLOCK
                runs = blocks.get((ply, first))
                derived = (runs[slot - first] or None) if runs is not None else None
            found.append((move, derived))
        return found

    def values(self, conn: sqlite3.Connection, states: Sequence[int]) -> list[int | None]:
        """:meth:`value` of each state."""
        return [self.value(conn, s) for s in states]

    def ply(self, conn: sqlite3.Connection, ply: int, on_error: Callable[[str], None] | None = None) -> np.ndarray:
        """The stored bytes of a whole ply (a block that does not decode reads as zeros, reported to
        ``on_error``, or raises without it)."""
        size = self.index.ply_sizes()[ply]
        out = np.zeros(size, dtype=np.uint8)
        rows = conn.execute(
            "SELECT first_state, count, data FROM blocks WHERE variant_id = ? AND ply = ? ORDER BY first_state",
            (self.variant_id, ply),
        )
        for first, count, data in rows:
            try:
                out[first : first + count] = self.decode(ply, first, count, data).expand()
            except CorruptBlockError as exc:
                if on_error is None:
                    raise
                on_error(str(exc))
        return out


def dense_rows(
    game: Game, index: DenseIndex, variant_id: int, progress: Progress | None = None, threads: int | None = None
) -> tuple[list[tuple[int, int, int, str, int, bytes]], dict[int, PlyCounts]]:
    """The ``blocks`` rows of a whole build (solved here) and its per-ply counts."""
    import os

    rows: list[tuple[int, int, int, str, int, bytes]] = []
    counts: dict[int, PlyCounts] = {}
    workers = threads or os.cpu_count() or 1

    def encode(item: tuple[int, int, np.ndarray]) -> tuple[int, int, int, str, int, bytes]:
        ply, first, values = item
        key = game.format_position(index.state(ply, first))
        return (variant_id, ply, first, key, int(values.size), encode_block(values, ply, first))

    with ThreadPoolExecutor(workers) as pool:
        for ply, values, tally in index.solve(progress):
            counts[ply] = tally
            items = ((ply, lo, values[lo : lo + BLOCK]) for lo in range(0, values.size, BLOCK))
            rows.extend(pool.map(encode, items))
    return rows, counts


def ply_tally(counts: dict[int, PlyCounts]) -> PlyTally:
    """The ``plies`` rows of a dense build (counted over classes, as for every layout reduced by symmetry)."""
    from tablebase.store.writer import PlyTally

    tally = PlyTally(True)
    for ply, c in counts.items():
        if c.positions:
            tally.sums[ply] = np.array(
                [c.positions, c.classes, *c.class_outcomes, c.terminal, *c.outcomes], dtype=np.int64
            )
    return tally


_INSERT = "INSERT INTO blocks (variant_id, ply, first_state, first_key, count, data) VALUES (?, ?, ?, ?, ?, ?)"
_NAMES = {1: "win", 2: "loss", 3: "draw"}


def write_dense(path: str | os.PathLike[str], game: Game, index: DenseIndex, progress: Progress | None = None) -> None:
    """Solve ``game`` over its dense index and store it in the SQLite file ``path`` with
    ``storage = 'dense'``, replacing an earlier build; the file is written only once the solve is done."""
    import time

    from tablebase.store.states import Summary, replace_variant_data

    started = time.perf_counter()
    rows, counts = dense_rows(game, index, 0, progress)
    root = game.canonical(game.initial_state())[0]
    ply, slot = index.slot(root)
    packed = index.derived(root)
    if packed is None:
        first = slot - slot % BLOCK
        row = next(r for r in rows if r[1] == ply and r[2] == first)
        packed = DenseReader(game, index, 0).decode(ply, first, row[4], row[5])[slot - first]
    result = (_NAMES[packed & 3], None if (packed >> 2) == 0 else (packed >> 2) - 1)
    built = Summary(game, True, result, sum(c.classes for c in counts.values()))
    seconds = time.perf_counter() - started

    def fill(cur: sqlite3.Cursor, variant_id: int) -> PlyTally:
        for lo in range(0, len(rows), 256):
            cur.executemany(_INSERT, [(variant_id, *r[1:]) for r in rows[lo : lo + 256]])
        if progress is not None:
            progress("write", len(rows), len(rows))
        return ply_tally(counts)

    replace_variant_data(Path(path), built, "dense", seconds, fill, progress, page_size=PAGE_SIZE)
