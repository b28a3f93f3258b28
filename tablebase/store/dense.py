"""Dense storage: one value a slot of the game's dense index, in compressed blocks of the ``blocks`` table.

A game whose positions of each ply can be numbered densely (its *dense
index*, :class:`DenseIndex`; Connect Four's is
:mod:`tablebase.games.connect4.index`) is built ply by ply over that
numbering, and stored as the values alone: no keys. Each ply is cut into
blocks of :data:`BLOCK` slots, one row of ``blocks`` each: the variant, the
ply, the first slot (``first_state``; a block's first slot is a multiple of
:data:`BLOCK`), the position of the first slot as text (``first_key``), the
number of slots, and the data: an 8-byte header (format :data:`FORMAT`, the
number of parts, the CRC-32 of the rest and of the row's ply, first slot and
count), the end of each part's stream (two bytes each; the top bit set when the
part is stored as its bytes), then the streams: the block in parts of
:data:`PART` slots, each compressed on its own (raw deflate) either as its
bytes, one a slot, or as its runs of equal bytes (the byte of each run, then
the run lengths as two byte planes, low bytes then high bytes). A part is
stored as runs only where they compress to at most :data:`RUNS_SHARE` of its
bytes, since expanding runs costs a lookup about as much as inflating. Each
slot's byte is the packed value of :func:`tablebase.store.block_codec.pack_values`.

The index decides which slots hold a value: one position of each symmetry
class, and not the positions whose value the rules give
(:meth:`DenseIndex.derived`: the end of a game, a win with the next move).
Every other slot (not a position, or not stored) repeats the value before it
in its block, which makes long runs; so a slot's byte means something only
for a stored position. A lookup asks the rules first, then reads one block
(one indexed read) and decompresses the part it needs to one byte a slot;
blocks and their decoded parts stay in a least-recently-used cache
(:class:`~tablebase.store.block_cache.BlockCache`). What the storage shares
with the packed one (the value format, the checksum's seed, the rows of
``blocks`` and ``plies``) is in :mod:`tablebase.store.block_codec`.
"""

from __future__ import annotations

import sqlite3
import struct
import zlib
from typing import TYPE_CHECKING, Callable, Iterator, Protocol, Sequence

import numpy as np

from tablebase.games.common.dense_index import DRAWN_END, LOST_END, WON_END
from tablebase.store.block_cache import CACHE_BYTES, BlockCache
from tablebase.store.block_codec import (
    BlockRow,
    BlockTable,
    CorruptBlockError,
    checksum,
    encode_rows,
    insert_rows,
    ply_sums,
    unpack,
    write_blocks,
)

# libdeflate (``tablebase[fast]``) inflates a part of known size and checks a block in about half the
# time of zlib, which does both without it
_crc32: Callable[[bytes | memoryview, int], int] = zlib.crc32
_inflate_exact: Callable[[bytes, int], bytearray] | None = None
_INFLATE_ERRORS: tuple[type[Exception], ...] = (zlib.error,)
try:
    import deflate
except ImportError:
    pass
else:
    _crc32 = deflate.crc32
    _inflate_exact = deflate.deflate_decompress
    _INFLATE_ERRORS = (zlib.error, deflate.DeflateError)

if TYPE_CHECKING:
    import os

    from tablebase.games.base import Game
    from tablebase.games.common.dense_index import DenseIndex, PlyCounts
    from tablebase.solve import Progress
    from tablebase.store.writer import PlyTally

#: Slots per block.
BLOCK = 16384
#: Slots per part of a block (each part compressed on its own, so a lookup decompresses one).
PART = 4096
#: zlib level of the blocks.
LEVEL = 9
#: The block format written; formats 2 (one zlib stream of the whole block's runs) and 3 (every part
#: as runs) are still read.
FORMAT = 4
#: A part is stored as runs when they compress to at most this share of the part's bytes compressed.
RUNS_SHARE = 0.8
#: The flag on a part's end (format 4) that marks a part stored as its bytes.
BYTES_FLAG = 0x8000
#: The packed values of a game over (distance 0), which have no moves.
GAME_OVER = (LOST_END, WON_END, DRAWN_END)
_HEADER = struct.Struct("<BBBxI")


def _runs(filled: np.ndarray) -> bytes:
    """The runs of equal bytes of ``filled``: each run's byte, then the lengths' low and high bytes."""
    starts = np.flatnonzero(np.diff(filled)) + 1
    ends = np.append(starts, filled.size)
    lengths = np.diff(ends, prepend=0).astype("<u2")
    runs: bytes = filled[ends - 1].tobytes() + np.ascontiguousarray(lengths.view(np.uint8).reshape(-1, 2).T).tobytes()
    return runs


def _deflate(raw: bytes) -> bytes:
    packer = zlib.compressobj(LEVEL, zlib.DEFLATED, -15)
    return packer.compress(raw) + packer.flush()


def encode_block(values: np.ndarray, ply: int, first: int) -> bytes:
    """The data of a block: ``values`` (one byte a slot, 0 where nothing is stored) with each 0 after
    a stored value replaced by the value before it, each part of :data:`PART` slots compressed on
    its own, as its bytes or as its runs."""
    values = np.ascontiguousarray(values, dtype=np.uint8)
    at = np.where(values != 0, np.arange(values.size, dtype=np.int32), 0)
    np.maximum.accumulate(at, out=at)
    filled = values[at]
    streams = []
    flags = []
    for lo in range(0, filled.size, PART):
        part = filled[lo : lo + PART]
        plain = _deflate(part.tobytes())
        runs = _deflate(_runs(part))
        as_runs = len(runs) <= RUNS_SHARE * len(plain)
        streams.append(runs if as_runs else plain)
        flags.append(0 if as_runs else BYTES_FLAG)
    ends = np.cumsum([len(stream) for stream in streams])
    if ends[-1] >= BYTES_FLAG:
        raise ValueError(f"block of ply {ply} from slot {first} compresses to {ends[-1]} bytes, over the format's limit")
    body = (ends | flags).astype("<u2").tobytes() + b"".join(streams)
    crc = checksum(body, ply, first, values.size)
    return _HEADER.pack(FORMAT, len(streams), 0, crc) + body


def _expand(raw: bytes | bytearray, size: int) -> bytes:
    """One byte a slot from runs coded by :func:`_runs` (``size`` slots in all)."""
    n = len(raw) // 3
    if len(raw) != 3 * n:
        raise CorruptBlockError("block fails its checksum")
    planes = np.frombuffer(raw, dtype=np.uint8)
    counts = planes[n : 2 * n].astype(np.intp)
    counts += planes[2 * n :].astype(np.intp) << 8
    out: bytes = planes[:n].repeat(counts).tobytes()
    if len(out) != size:
        raise CorruptBlockError("block fails its checksum")
    return out


class SlotBlock:
    """A block row read for lookups: its checked data, and its parts as one byte a slot once decoded."""

    __slots__ = ("data", "ply", "first", "end", "count", "parts", "nbytes", "flagged")

    def __init__(self, data: bytes, ply: int, first: int, count: int):
        try:
            version, parts, _, crc = _HEADER.unpack_from(data)
        except (struct.error, TypeError) as exc:
            raise CorruptBlockError(f"block does not decode ({exc})") from exc
        self.ply = ply
        self.first = first
        #: The block's last slot.
        self.end = first + count - 1
        self.count = count
        #: What the block holds at most: its data and every part decoded.
        self.nbytes = len(data) + count
        #: Whether part ends carry :data:`BYTES_FLAG` (format 4).
        self.flagged = version == FORMAT
        if version == 2:
            whole = _decode_v2(data, ply, first, count)
            self.data = b""
            self.parts: list[bytes | bytearray | None] = [whole[lo : lo + PART] for lo in range(0, count, PART)]
            return
        self.data = data
        if version not in (3, FORMAT) or parts != -(-count // PART) or len(data) < _HEADER.size + 2 * parts:
            raise CorruptBlockError("block does not decode (unknown block format)")
        if checksum(memoryview(data)[_HEADER.size :], ply, first, count, _crc32) != crc:
            raise CorruptBlockError("block fails its checksum")
        self.parts = [None] * parts

    def part(self, i: int) -> bytes | bytearray:
        """Part ``i``, one byte a slot (decoded on first use)."""
        found = self.parts[i]
        if found is None:
            data, parts = self.data, len(self.parts)
            ends = struct.unpack_from(f"<{parts}H", data, _HEADER.size)
            end = ends[i]
            as_bytes = self.flagged and end & BYTES_FLAG
            start = ends[i - 1] & ~BYTES_FLAG if i else 0
            at = _HEADER.size + 2 * parts
            size = min(PART, self.count - i * PART)
            stream = data[at + start : at + (end & ~BYTES_FLAG)]
            try:
                if as_bytes and _inflate_exact is not None:
                    raw: bytes | bytearray = _inflate_exact(stream, size)
                else:
                    raw = zlib.decompress(stream, -15)
            except _INFLATE_ERRORS as exc:
                raise CorruptBlockError(f"block does not decode ({exc})") from exc
            if not as_bytes:
                raw = _expand(raw, size)
            elif len(raw) != size:
                raise CorruptBlockError("block fails its checksum")
            found = self.parts[i] = raw
        return found

    def expand(self) -> np.ndarray:
        """One byte a slot of the whole block."""
        return np.frombuffer(b"".join(self.part(i) for i in range(len(self.parts))), dtype=np.uint8)


def _decode_v2(data: bytes, ply: int, first: int, count: int) -> bytes:
    """The slots of a format-2 block (one zlib stream of the whole block's runs, CRC of the runs)."""
    version, _, _, crc = _HEADER.unpack_from(data)
    try:
        raw = zlib.decompress(data[_HEADER.size :])
    except zlib.error as exc:
        raise CorruptBlockError(f"block does not decode ({exc})") from exc
    if checksum(raw, ply, first, count) != crc:
        raise CorruptBlockError("block fails its checksum")
    return _expand(raw, count)


def decode_block(data: bytes, ply: int, first: int, count: int) -> np.ndarray:
    """One byte a slot of a block; raises :class:`CorruptBlockError` if it does not check out."""
    return SlotBlock(data, ply, first, count).expand()


class DenseReader:
    """Lookups of one dense variant through a read connection."""

    def __init__(self, game: Game, index: DenseIndex, variant_id: int, cache_bytes: int = CACHE_BYTES):
        self.game = game
        self.index = index
        self.variant_id = variant_id
        self.cache: BlockCache[SlotBlock] = BlockCache(cache_bytes)
        self.table = BlockTable(game, variant_id, index.state)

    def _blocks(self, conn: sqlite3.Connection, wanted: set[tuple[int, int]]) -> dict[tuple[int, int], SlotBlock]:
        """The blocks ``(ply, first slot)`` that are stored, from the cache or read together."""
        found: dict[tuple[int, int], SlotBlock] = {}
        missing: dict[int, list[int]] = {}
        keys = list(wanted)
        for key, block in zip(keys, self.cache.covering_each(keys)):
            if block is None:
                missing.setdefault(key[0], []).append(key[1])
            else:
                found[key] = block
        for ply, firsts in missing.items():
            rows = conn.execute(
                "SELECT first_state, count, data FROM blocks WHERE variant_id = ? AND ply = ?"
                f" AND first_state IN ({', '.join('?' * len(firsts))})",
                (self.variant_id, ply, *firsts),
            )
            for first, count, data in rows:
                found[ply, first] = self.cache.add(self.decode(ply, first, count, data))
        return found

    def decode(self, ply: int, first: int, count: int, data: bytes) -> SlotBlock:
        """A block row checked; raises :class:`CorruptBlockError` naming the variant and the block."""
        try:
            return SlotBlock(data, ply, first, count)
        except CorruptBlockError as exc:
            raise self.table.corrupt(ply, first, exc) from exc

    def value(self, conn: sqlite3.Connection, state: int) -> int | None:
        """The packed value of a position that can arise in play, in any orientation (``None``: not stored)."""
        derived, ply, slot = self.index.find(state)
        if slot < 0:
            return None
        if derived is not None:
            return derived
        return self._stored(self._blocks(conn, {(ply, slot - slot % BLOCK)}), ply, slot)

    def moves(self, conn: sqlite3.Connection, state: int) -> list[tuple[int, int | None]]:
        """``(move, packed value of the position it leads to)`` for every move of a position not over."""
        children = self.index.children(state)
        return self._moves(children, self._blocks(conn, _wanted(children)))

    def probe(self, conn: sqlite3.Connection, state: int) -> tuple[int | None, list[tuple[int, int | None]]]:
        """:meth:`value` of a position and, unless it is not stored or over, its :meth:`moves`, the
        blocks of both read together."""
        derived, ply, slot = self.index.find(state)
        if slot < 0:
            return None, []
        if derived in GAME_OVER:
            return derived, []
        children = self.index.children(state)
        wanted = _wanted(children)
        if derived is None:
            wanted.add((ply, slot - slot % BLOCK))
        blocks = self._blocks(conn, wanted)
        if derived is None:
            derived = self._stored(blocks, ply, slot)
            if derived is None:
                return None, []
        return derived, self._moves(children, blocks)

    def _stored(self, blocks: dict[tuple[int, int], SlotBlock], ply: int, slot: int) -> int | None:
        """The stored byte of a slot from the blocks read, ``None`` when nothing is stored there."""
        offset = slot % BLOCK
        block = blocks.get((ply, slot - offset))
        if block is None:
            return None
        i = offset // PART
        part = block.parts[i]
        if part is None:
            try:
                part = block.part(i)
            except CorruptBlockError as exc:
                raise self.table.corrupt(ply, slot - offset, exc) from exc
        return part[offset - i * PART] or None

    def _moves(
        self, children: list[tuple[int, int, int | None, int, int]], blocks: dict[tuple[int, int], SlotBlock]
    ) -> list[tuple[int, int | None]]:
        """``(move, packed value)`` of each of :meth:`DenseIndex.children`, from the blocks read."""
        return [
            (move, self._stored(blocks, ply, slot) if derived is None else derived)
            for move, _, derived, ply, slot in children
        ]

    def values(self, conn: sqlite3.Connection, states: Sequence[int]) -> list[int | None]:
        """:meth:`value` of each state."""
        return [self.value(conn, s) for s in states]

    def ply(self, conn: sqlite3.Connection, ply: int, on_error: Callable[[str], None] | None = None) -> np.ndarray:
        """The stored bytes of a whole ply (a block that does not decode reads as zeros, reported to
        ``on_error``, or raises without it)."""
        size = self.index.ply_sizes()[ply]
        out = np.zeros(size, dtype=np.uint8)
        for first, count, data in self.table.of_ply(conn, ply):
            try:
                out[first : first + count] = SlotBlock(data, ply, first, count).expand()
            except CorruptBlockError as exc:
                named = self.table.corrupt(ply, first, exc)
                if on_error is None:
                    raise named from exc
                on_error(str(named))
        return out


def _wanted(children: list[tuple[int, int, int | None, int, int]]) -> set[tuple[int, int]]:
    """The blocks ``(ply, first slot)`` holding the children the rules give no value for."""
    return {(ply, slot - slot % BLOCK) for _, _, derived, ply, slot in children if derived is None}


def dense_rows(
    game: Game, index: DenseIndex, variant_id: int, progress: Progress | None = None, threads: int | None = None
) -> tuple[list[BlockRow], dict[int, PlyCounts]]:
    """The ``blocks`` rows of a whole build (solved here) and its per-ply counts."""
    rows: list[BlockRow] = []
    counts: dict[int, PlyCounts] = {}

    def encode(item: tuple[int, int, np.ndarray]) -> BlockRow:
        ply, first, values = item
        key = game.format_position(index.state(ply, first))
        return (variant_id, ply, first, key, int(values.size), encode_block(values, ply, first))

    def plies() -> Iterator[Iterator[tuple[int, int, np.ndarray]]]:
        for ply, values, tally in index.solve(progress):
            counts[ply] = tally
            yield ((ply, lo, values[lo : lo + BLOCK]) for lo in range(0, values.size, BLOCK))

    for encoded in encode_rows(plies(), encode, threads):
        rows.extend(encoded)
    return rows, counts


def ply_tally(counts: dict[int, PlyCounts]) -> PlyTally:
    """The ``plies`` rows of a dense build (counted over classes, as for every storage reduced by symmetry)."""
    from tablebase.store.writer import PlyTally

    tally = PlyTally(True)
    for ply, c in counts.items():
        if c.positions:
            tally.sums[ply] = ply_sums(c.positions, c.classes, c.class_outcomes, c.terminal, c.outcomes)
    return tally


class BuiltBlocks(Protocol):
    """The blocks and counts of a dense build done elsewhere (:class:`tablebase.solve.dense_tasks.DenseBuild`)."""

    @property
    def seconds(self) -> float:
        """The seconds the build took."""
        ...

    def counts(self) -> dict[int, PlyCounts]:
        """Per ply, its counts."""
        ...

    def blocks(self) -> Iterator[tuple[int, int, int, bytes]]:
        """``(ply, first slot, count, data)`` of every block."""
        ...

    def block(self, ply: int, slot: int) -> tuple[int, int, bytes]:
        """``(first slot, count, data)`` of the block holding a slot."""
        ...


def write_dense(
    path: str | os.PathLike[str], game: Game, index: DenseIndex, progress: Progress | None = None,
    built: BuiltBlocks | None = None,
) -> None:
    """Store ``game`` in the SQLite file ``path`` with ``storage = 'dense'``, replacing an earlier
    build: solved here over its dense index, or the blocks of a build in tasks (``built``); the
    file is written only once the solve is done."""
    import time

    from tablebase.store.states import Summary

    started = time.perf_counter()
    if built is None:
        rows, counts = dense_rows(game, index, 0, progress)
        blocks = {(r[1], r[2]): (r[2], r[4], r[5]) for r in rows}

        def block_of(ply: int, slot: int) -> tuple[int, int, bytes]:
            return blocks[ply, slot - slot % BLOCK]
    else:
        counts = built.counts()
        block_of = built.block
    summary = Summary(game, True, _start_value(game, index, block_of), sum(c.classes for c in counts.values()))
    seconds = time.perf_counter() - started if built is None else built.seconds

    def fill(cur: sqlite3.Cursor, variant_id: int) -> PlyTally:
        written = insert_rows(cur, rows if built is None else _keyed(game, index, built), variant_id)
        if progress is not None:
            progress("write", written, written)
        return ply_tally(counts)

    write_blocks(path, summary, "dense", seconds, fill, progress)


def _start_value(
    game: Game, index: DenseIndex, block_of: Callable[[int, int], tuple[int, int, bytes]]
) -> tuple[str, int | None]:
    """``(outcome, distance)`` of the start, from the rules or from the block ``block_of(ply, slot)``
    (``(first slot, count, data)``) that holds it."""
    root = game.canonical(game.initial_state())[0]
    packed = index.derived(root)
    if packed is None:
        ply, slot = index.slot(root)
        first, count, data = block_of(ply, slot)
        packed = int(decode_block(data, ply, first, count)[slot - first])
    return unpack(packed)


def _keyed(game: Game, index: DenseIndex, built: BuiltBlocks) -> Iterator[BlockRow]:
    """The ``blocks`` rows of a build in tasks, each with the position of its first slot as text."""
    for ply, first, count, data in built.blocks():
        yield 0, ply, first, game.format_position(index.state(ply, first)), count, data
