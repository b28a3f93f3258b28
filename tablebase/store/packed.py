"""Packed storage: every state of a variant in compressed blocks of the ``blocks`` table.

The states of each ply are sorted by their integer encoding and cut into
blocks of :data:`BLOCK` states. One row of ``blocks`` holds one block: the
variant, the ply, the first state (as the integer the lookups search and as
its position string, for SQL browsers), the number of states and the packed
data. A block is cut into parts of :data:`SUB_BLOCK` states; each part holds

* its keys after the first as differences from the previous key, each split
  into byte planes (all lowest bytes, then all second bytes, ...), as many
  planes as the part's largest difference needs;
* one value per state, ``outcome | (distance + 1) << 2`` (the outcome codes of
  the solver, distance ``+ 1`` so that 0 stands for no distance), in one byte
  plane or two;

and the parts one after the other are one raw deflate stream behind a header
(format, part size, plane counts, each part's first key and the CRC-32 of
its data and of the row's ply, its first state and its count). A lookup is
one indexed read of the block whose first state is the largest not above
the state looked up, the inflation of the stream up to the end of the part
whose range holds it (on average five eighths of the block), the decoding of
that part only and one binary search; decoded parts stay in a bounded
least-recently-used cache (:class:`BlockCache`). Files of format 1 (one part
per block, a zlib stream) are read as well.

Side to move, terminal flag, orbit size and representative flag are not
stored: they follow from the rules. :func:`write_packed` writes a variant from
per-ply arrays (the out-of-core build's layer files or an in-memory solution)
without a row per state.
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
from typing import TYPE_CHECKING, Any, Callable, Iterator, NamedTuple, Sequence

import numpy as np

from tablebase.errors import DatabaseError

if TYPE_CHECKING:
    import os

    from tablebase.games.base import Game
    from tablebase.solve import Progress
    from tablebase.store.states import Layers
    from tablebase.store.writer import PlyTally

#: States per block.
BLOCK = 4096
#: zlib level of the blocks.
LEVEL = 6
#: SQLite page size of a file made anew for a packed variant: a compressed block is about 2 KB, so
#: a 4 KB page holds one and wastes nearly half of it; a 16 KB page holds seven.
PAGE_SIZE = 16384
#: Bytes of decoded blocks a reader keeps (one reader per build of a variant, shared by the threads of a process).
CACHE_BYTES = 64 << 20
#: Largest state a block can hold (keys are SQLite integers).
MAX_STATE = (1 << 63) - 1
#: States per part of a block: a part decodes on its own, so a lookup inflates and decodes at
#: most the data up to the end of one part, a quarter of the block's decoding.
SUB_BLOCK = 1024
#: Format of the blocks written (1: one part; 2: parts of ``SUB_BLOCK`` states); both are read.
FORMAT = 2
#: Format 1: format, key planes, value planes, CRC-32.
_HEADER = struct.Struct("<BBBxI")
#: Format 2: format, log2 of the part size, value planes, bytes of each part's offset; then the
#: key planes of each part, the first key of each part after the first (as an offset from the
#: block's first key) and the CRC-32 of each part.
_HEADER_V2 = struct.Struct("<BBBB")
_CRC = struct.Struct("<I")
_EIGHT = np.uint64(8)
_EIGHT16 = np.uint16(8)
_SEED = struct.Struct("<qqq")
_NO_DISTANCE = -1

Compress = Callable[[bytes], bytes]
Decompress = Callable[[bytes], bytes]


class CorruptBlockError(DatabaseError):
    """A block's data does not decode to what its row says."""


def pack_values(outcome: np.ndarray, distance: np.ndarray) -> np.ndarray:
    """One ``np.uint16`` per state from outcome codes (1..3) and distances (-1: none)."""
    return (np.asarray(outcome).astype(np.uint16) | ((np.asarray(distance).astype(np.int64) + 1) << 2).astype(np.uint16))


def unpack_values(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(outcome codes as np.int8, distances as np.int32 with -1 for none)``."""
    values = np.asarray(values)
    return (values & 3).astype(np.int8), (values >> 2).astype(np.int32) - 1


def _seed(ply: int, first: int, count: int) -> int:
    return zlib.crc32(_SEED.pack(ply, first, count))


def _section(keys: np.ndarray, values: np.ndarray, value_planes: int) -> tuple[bytes, int]:
    """The byte planes of sorted ``keys`` (differences after the first) and of ``values``, and the number of key planes."""
    deltas = np.diff(keys)
    key_planes = (int(deltas.max()).bit_length() + 7) // 8 if deltas.size else 0
    key_bytes = np.ascontiguousarray(deltas.astype("<u8").view(np.uint8).reshape(-1, 8)[:, :key_planes].T).tobytes()
    value_bytes = np.ascontiguousarray(values.astype("<u2").view(np.uint8).reshape(-1, 2)[:, :value_planes].T).tobytes()
    return key_bytes + value_bytes, key_planes


def encode_block(
    keys: np.ndarray,
    values: np.ndarray,
    ply: int,
    compress: Compress | None = None,
    version: int = FORMAT,
    sub_block: int = SUB_BLOCK,
) -> bytes:
    """The data of a block of sorted distinct ``keys`` (``np.uint64``) and packed ``values``.

    ``version`` 2 (the default) codes the block in parts of ``sub_block`` states (a power of two)
    that decode on their own; version 1 is the single-part format of earlier files.
    """
    keys = np.ascontiguousarray(keys, dtype=np.uint64)
    values = np.asarray(values)
    value_planes = 1 if values.size == 0 or int(values.max()) < 256 else 2
    first = int(keys[0])
    if version == 1:
        raw, key_planes = _section(keys, values, value_planes)
        crc = zlib.crc32(raw, _seed(ply, first, int(keys.size)))
        body = compress(raw) if compress is not None else zlib.compress(raw, LEVEL)
        return _HEADER.pack(1, key_planes, value_planes, crc) + body
    if version != 2 or sub_block < 1 or sub_block & (sub_block - 1):
        raise ValueError(f"no block format {version} with parts of {sub_block} states")
    sections, planes, offsets, crcs = [], [], [], []
    for lo in range(0, keys.size, sub_block):
        part_keys = keys[lo : lo + sub_block]
        section, key_planes = _section(part_keys, values[lo : lo + sub_block], value_planes)
        sections.append(section)
        planes.append(key_planes)
        crcs.append(zlib.crc32(section, _seed(ply, int(part_keys[0]), int(part_keys.size))))
        if lo:
            offsets.append(int(part_keys[0]) - first)
    width = (max(offsets).bit_length() + 7) // 8 if offsets else 0
    raw = b"".join(sections)
    if compress is not None:
        body = compress(raw)
    else:
        packer = zlib.compressobj(LEVEL, zlib.DEFLATED, -15)
        body = packer.compress(raw) + packer.flush()
    header = _HEADER_V2.pack(2, sub_block.bit_length() - 1, value_planes, width) + bytes(planes)
    header += b"".join(o.to_bytes(width, "little") for o in offsets) + struct.pack(f"<{len(crcs)}I", *crcs)
    return header + body


class _Part(NamedTuple):
    """Where one part of a block lies in its uncompressed data."""

    first: int
    size: int
    key_planes: int
    start: int
    end: int
    crc: int


class _Layout(NamedTuple):
    """A block's header read: its format, value planes, where the compressed data starts, its parts."""

    version: int
    value_planes: int
    body: int
    parts: list[_Part]
    firsts: list[int]


def _layout(data: bytes, ply: int, first: int, count: int) -> _Layout:
    version = data[0] if data else 0
    if version == 1:
        _, key_planes, value_planes, crc = _HEADER.unpack_from(data)
        if key_planes > 8 or value_planes not in (1, 2):
            raise ValueError("unknown block format")
        end = (count - 1) * key_planes + count * value_planes
        return _Layout(1, value_planes, _HEADER.size, [_Part(first, count, key_planes, 0, end, crc)], [first])
    if version != 2:
        raise ValueError("unknown block format")
    _, shift, value_planes, width = _HEADER_V2.unpack_from(data)
    if shift > 30 or value_planes not in (1, 2) or width > 8 or count < 1:
        raise ValueError("unknown block format")
    size = 1 << shift
    n = (count + size - 1) >> shift
    at = _HEADER_V2.size
    planes = data[at : at + n]
    at += n
    firsts = [first]
    for _ in range(n - 1):
        firsts.append(first + int.from_bytes(data[at : at + width], "little"))
        at += width
    crcs = struct.unpack_from(f"<{n}I", data, at)
    at += 4 * n
    if len(planes) != n or max(planes) > 8:
        raise ValueError("unknown block format")
    parts = []
    start = 0
    for j in range(n):
        part_count = min(size, count - j * size)
        end = start + (part_count - 1) * planes[j] + part_count * value_planes
        parts.append(_Part(firsts[j], part_count, planes[j], start, end, crcs[j]))
        start = end
    return _Layout(2, value_planes, at, parts, firsts)


def _decode_section(
    raw: bytes, first: int, count: int, key_planes: int, value_planes: int
) -> tuple[np.ndarray, np.ndarray]:
    n = count - 1
    planes = np.frombuffer(raw, dtype=np.uint8)
    keys = np.empty(count, dtype=np.uint64)
    deltas = keys[1:]
    if key_planes:
        key_bytes = planes[: n * key_planes].reshape(key_planes, n)
        deltas[:] = key_bytes[key_planes - 1]
        for plane in range(key_planes - 2, -1, -1):
            deltas <<= _EIGHT
            deltas |= key_bytes[plane]
    else:
        deltas[:] = 0
    keys[0] = first
    np.cumsum(keys, out=keys)
    value_bytes = planes[n * key_planes :]
    if value_planes == 1:
        values = value_bytes.astype(np.uint16)
    else:
        low, high = value_bytes.reshape(2, count)
        values = low.astype(np.uint16) | (high.astype(np.uint16) << _EIGHT16)
    return keys, values


def _check(raw: bytes, part: _Part, ply: int) -> None:
    if len(raw) != part.end - part.start or zlib.crc32(raw, _seed(ply, part.first, part.size)) != part.crc:
        raise CorruptBlockError("block fails its checksum")


def decode_block(
    data: bytes, ply: int, first: int, count: int, decompress: Decompress | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """``(keys, values)`` of a block; raises :class:`CorruptBlockError` if it does not check out."""
    try:
        layout = _layout(data, ply, first, count)
        body = memoryview(data)[layout.body :]
        size = layout.parts[-1].end
        if decompress is not None:
            raw = decompress(bytes(body))
        elif layout.version == 1:
            raw = zlib.decompress(body, bufsize=max(size, 1))
        else:
            raw = zlib.decompress(body, -15, max(size, 1))
    except (struct.error, ValueError, zlib.error, TypeError, IndexError) as exc:
        raise CorruptBlockError(f"block does not decode ({exc})") from exc
    if len(raw) != size:
        raise CorruptBlockError("block fails its checksum")
    keys, values = [], []
    for part in layout.parts:
        section = raw[part.start : part.end]
        _check(section, part, ply)
        part_keys, part_values = _decode_section(section, part.first, part.size, part.key_planes, layout.value_planes)
        keys.append(part_keys)
        values.append(part_values)
    if len(keys) == 1:
        return keys[0], values[0]
    return np.concatenate(keys), np.concatenate(values)


def decode_part(data: bytes, ply: int, first: int, count: int, key: int) -> tuple[np.ndarray, np.ndarray, int | None]:
    """``(keys, values, next)`` of the part of a block whose range would hold ``key`` (the whole block
    in format 1), ``next`` the first key of the block's next part (``None`` after the last): only the
    compressed data up to the part's end is inflated and only its checksum checked."""
    if data[:1] != b"\x02":
        return (*decode_block(data, ply, first, count), None)
    try:
        _, shift, value_planes, width = _HEADER_V2.unpack_from(data)
        size = 1 << shift
        n = (count + size - 1) >> shift
        if shift > 30 or value_planes not in (1, 2) or width > 8 or count < 1:
            raise ValueError("unknown block format")
        # the part: the last whose first key is not above ``key``
        at = _HEADER_V2.size + n
        offset = key - first
        j, part_first, next_first = 0, first, None
        for i in range(1, n):
            found = int.from_bytes(data[at : at + width], "little")
            if found > offset:
                next_first = first + found
                break
            j, part_first = i, first + found
            at += width
        at = _HEADER_V2.size + n + (n - 1) * width
        (crc,) = _CRC.unpack_from(data, at + 4 * j)
        planes = data[_HEADER_V2.size : _HEADER_V2.size + n]
        key_planes = planes[j]
        part_count = min(size, count - j * size)
        start = j * size * value_planes + (size - 1) * sum(planes[:j])
        end = start + (part_count - 1) * key_planes + part_count * value_planes
        if len(planes) != n or key_planes > 8:
            raise ValueError("unknown block format")
        body = memoryview(data)[at + 4 * n :]
        if j == n - 1:
            raw = zlib.decompress(body, -15, max(end, 1))
        else:
            raw = zlib.decompressobj(-15).decompress(body, end)
    except (struct.error, ValueError, zlib.error, TypeError, IndexError) as exc:
        raise CorruptBlockError(f"block does not decode ({exc})") from exc
    section = raw[start:end]
    if len(raw) < end or zlib.crc32(section, _seed(ply, part_first, part_count)) != crc:
        raise CorruptBlockError("block fails its checksum")
    return (*_decode_section(section, part_first, part_count, key_planes, value_planes), next_first)


class Block:
    """A decoded block: its ply, sorted keys and packed values (``np.uint64`` and ``np.uint16`` arrays)."""

    __slots__ = ("ply", "keys", "values", "first", "last", "end", "_keys", "_values")

    def __init__(self, ply: int, keys: np.ndarray, values: np.ndarray, end: int | None = None):
        self.ply = ply
        self.keys = keys = np.ascontiguousarray(keys, dtype=np.uint64)
        self.values = values = np.ascontiguousarray(values, dtype=np.uint16)
        self.first = int(keys[0])
        self.last = int(keys[-1])
        #: The largest key the block answers for (its last key unless told more): a key from
        #: ``first`` to ``end`` that the block does not hold is in no block of the ply.
        self.end = self.last if end is None else end
        # the same memory seen as sequences of Python ints, for bisect
        self._keys = keys.data.cast("B").cast("Q")
        self._values = values.data.cast("B").cast("H")

    @property
    def nbytes(self) -> int:
        return int(self.keys.nbytes + self.values.nbytes)

    def find(self, key: int) -> int | None:
        """The packed value of ``key``, ``None`` if the block does not hold it."""
        keys = self._keys
        at = bisect.bisect_left(keys, key)
        if at < len(keys) and keys[at] == key:
            return self._values[at]
        return None


class BlockCache:
    """Decoded blocks of one variant, least recently used dropped beyond ``limit`` bytes.

    Per ply it keeps the first keys of the cached blocks in order, so a key
    inside a cached block's range is answered without reading the file.
    """

    def __init__(self, limit: int = CACHE_BYTES):
        self.limit = limit
        self.size = 0
        self._order: OrderedDict[Block, None] = OrderedDict()
        self._plies: dict[int, tuple[list[int], list[Block]]] = {}
        self._lock = threading.Lock()

    def covering(self, ply: int, key: int) -> Block | None:
        """The cached block of ``ply`` whose range (``first`` to ``end``) holds ``key``."""
        with self._lock:
            cached = self._plies.get(ply)
            if cached is None:
                return None
            firsts, blocks = cached
            at = bisect.bisect_right(firsts, key) - 1
            if at < 0:
                return None
            block = blocks[at]
            if key > block.end:
                return None
            self._order.move_to_end(block)
            return block

    def add(self, block: Block) -> None:
        with self._lock:
            firsts, blocks = self._plies.setdefault(block.ply, ([], []))
            at = bisect.bisect_left(firsts, block.first)
            if at < len(firsts) and firsts[at] == block.first:
                return
            firsts.insert(at, block.first)
            blocks.insert(at, block)
            self._order[block] = None
            self.size += block.nbytes
            while self.size > self.limit and len(self._order) > 1:
                old, _ = self._order.popitem(last=False)
                firsts, blocks = self._plies[old.ply]
                at = bisect.bisect_left(firsts, old.first)
                del firsts[at], blocks[at]
                self.size -= old.nbytes

    def clear(self) -> None:
        with self._lock:
            self._order.clear()
            self._plies.clear()
            self.size = 0


def supports(game: Game) -> bool:
    """Whether ``game``'s states fit the key coding (bitboards, or the ``np.uint64`` states of
    array kernels) and its rules list the moves into a position (predecessors come from them)."""
    from tablebase.games.base import BitboardGame

    return game.has_unmoves and (isinstance(game, BitboardGame) or game.vector is not None)


class PackedReader:
    """Lookups of one packed variant through a read connection (see :class:`BlockCache`)."""

    def __init__(self, game: Game, variant_id: int, cache_bytes: int = CACHE_BYTES):
        self.game = game
        self.variant_id = variant_id
        self.cache = BlockCache(cache_bytes)
        self._plies: list[int] | None = None

    def ply_numbers(self, conn: sqlite3.Connection) -> list[int]:
        """The plies that have blocks, in order."""
        if self._plies is None:
            self._plies = [
                r[0]
                for r in conn.execute(
                    "SELECT DISTINCT ply FROM blocks WHERE variant_id = ? ORDER BY ply", (self.variant_id,)
                )
            ]
        return self._plies

    def _candidate_plies(self, conn: sqlite3.Connection, states: Sequence[int]) -> list[list[int]]:
        """The plies each state can lie in: the one the rules tell (:meth:`Game.plies_played`), else every ply."""
        plies_played = self.game.plies_played
        found = []
        for state in states:
            ply = plies_played(state)
            found.append(self.ply_numbers(conn) if ply is None else [ply])
        return found

    def block(self, conn: sqlite3.Connection, ply: int, key: int) -> Block | None:
        """The decoded part of a block of ``ply`` whose range would hold ``key`` (``None`` below the first block)."""
        block = self.cache.covering(ply, key)
        if block is not None:
            return block
        row = conn.execute(
            "SELECT first_state, count, data, (SELECT first_state FROM blocks WHERE variant_id = ?1 AND ply = ?2"
            " AND first_state > ?3 ORDER BY first_state LIMIT 1)"
            " FROM blocks WHERE variant_id = ?1 AND ply = ?2 AND first_state <= ?3 ORDER BY first_state DESC LIMIT 1",
            (self.variant_id, ply, key),
        ).fetchone()
        if row is None:
            return None
        first, count, data, following = row
        block = self.decode(ply, first, count, data, key, MAX_STATE if following is None else following - 1)
        self.cache.add(block)
        return block

    def decode(
        self, ply: int, first: int, count: int, data: bytes, key: int | None = None, end: int | None = None
    ) -> Block:
        """A block row decoded (with ``key``, only the part whose range would hold it), answering for
        keys up to ``end`` (the key before the next block's first); raises :class:`CorruptBlockError`
        naming the variant and the block."""
        try:
            if key is None:
                keys, values = decode_block(data, ply, first, count)
            else:
                keys, values, next_part = decode_part(data, ply, first, count, key)
                if next_part is not None:
                    end = next_part - 1
        except CorruptBlockError as exc:
            raise CorruptBlockError(
                f"{self.game.name}: the block of ply {ply} from {self.game.format_position(first)!r} is corrupt"
                f" ({exc}); rebuild the variant"
            ) from exc
        return Block(ply, keys, values, end)

    def _find(self, conn: sqlite3.Connection, state: int, plies: list[int]) -> tuple[int, int] | None:
        if not 0 <= state <= MAX_STATE:
            return None
        for ply in plies:
            block = self.block(conn, ply, state)
            value = block.find(state) if block is not None else None
            if value is not None:
                return ply, value
        return None

    def values(self, conn: sqlite3.Connection, states: Sequence[int]) -> list[int | None]:
        """The packed value of each canonical state, ``None`` where it is not stored."""
        plies_played = self.game.plies_played
        covering = self.cache.covering
        found: list[int | None] = []
        for state in states:
            ply = plies_played(state)
            if ply is None or not 0 <= state <= MAX_STATE:
                hit = self._find(conn, state, self.ply_numbers(conn) if ply is None else [ply])
                found.append(None if hit is None else hit[1])
                continue
            block = covering(ply, state) or self.block(conn, ply, state)
            found.append(None if block is None else block.find(state))
        return found

    def locate(self, conn: sqlite3.Connection, state: int) -> tuple[int, int] | None:
        """``(ply, packed value)`` of a canonical state, ``None`` if it is not stored."""
        return self._find(conn, state, self._candidate_plies(conn, [state])[0])

    def blocks_by_ply(self, conn: sqlite3.Connection) -> Iterator[tuple[int, Iterator[Block]]]:
        """Every ply with its blocks in key order, decoded one at a time."""
        for ply in self.ply_numbers(conn):
            yield ply, self._blocks_of(conn, ply)

    def _blocks_of(self, conn: sqlite3.Connection, ply: int) -> Iterator[Block]:
        rows = conn.execute(
            "SELECT first_state, count, data FROM blocks WHERE variant_id = ? AND ply = ? ORDER BY first_state",
            (self.variant_id, ply),
        )
        for first, count, data in rows:
            yield self.decode(ply, first, count, data)

    def layer(
        self, conn: sqlite3.Connection, ply: int, on_error: Callable[[str], None] | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(sorted states, packed values)`` of one ply; with ``on_error``, blocks that do not
        decode are passed to it and left out instead of raising."""
        keys, values = [], []
        rows = conn.execute(
            "SELECT first_state, count, data FROM blocks WHERE variant_id = ? AND ply = ? ORDER BY first_state",
            (self.variant_id, ply),
        )
        for first, count, data in rows:
            try:
                block = self.decode(ply, first, count, data)
            except CorruptBlockError as exc:
                if on_error is None:
                    raise
                on_error(str(exc))
                continue
            keys.append(block.keys)
            values.append(block.values)
        if not keys:
            return np.empty(0, dtype=np.uint64), np.empty(0, dtype=np.uint16)
        return np.concatenate(keys), np.concatenate(values)

    def sample(self, conn: sqlite3.Connection, count: int, seed: int) -> list[tuple[int, int]]:
        """``count`` stored ``(state, packed value)`` pairs drawn at random (repeatably for one ``seed``)."""
        import random

        rows = conn.execute(
            "SELECT ply, first_state, count FROM blocks WHERE variant_id = ? ORDER BY ply, first_state",
            (self.variant_id,),
        ).fetchall()
        if not rows:
            return []
        ends = np.cumsum([r[2] for r in rows])
        rng = random.Random(seed)
        picked = []
        for _ in range(count):
            at = rng.randrange(int(ends[-1]))
            i = int(np.searchsorted(ends, at, side="right"))
            ply, first, size = rows[i]
            data = conn.execute(
                "SELECT data FROM blocks WHERE variant_id = ? AND ply = ? AND first_state = ?",
                (self.variant_id, ply, first),
            ).fetchone()[0]
            block = self.decode(ply, first, size, data)
            j = at - (int(ends[i - 1]) if i else 0)
            picked.append((int(block.keys[j]), int(block.values[j])))
        return picked


def _sorted_layer(game: Game, states: np.ndarray, *columns: np.ndarray) -> tuple[np.ndarray, ...]:
    """The layer's arrays in key order (the out-of-core layers already are)."""
    states = np.asarray(states)
    if states.size and not np.all(states[1:] > states[:-1]):
        order = np.argsort(states, kind="stable")
        states = states[order]
        columns = tuple(np.asarray(c)[order] for c in columns)
        if np.any(states[1:] == states[:-1]):
            raise ValueError(f"{game.name}: a state is stored twice")
    return (states, *columns)


def layer_blocks(
    game: Game, ply: int, states: np.ndarray, outcome: np.ndarray, distance: np.ndarray, block: int = BLOCK
) -> Iterator[tuple[int, int, int, np.ndarray, np.ndarray]]:
    """``(ply, first state, count, keys, values)`` of each block of one layer, in key order."""
    states, outcome, distance = _sorted_layer(game, np.asarray(states, dtype=np.uint64), outcome, distance)
    if states.size and int(states[-1]) > MAX_STATE:
        raise ValueError(f"{game.name}: a state does not fit in 63 bits; packed storage cannot hold it")
    for lo in range(0, states.size, block):
        keys = np.array(states[lo : lo + block])
        values = pack_values(outcome[lo : lo + block], distance[lo : lo + block])
        yield ply, int(keys[0]), int(keys.size), keys, values


def block_rows(
    layers: Layers, variant_id: int, progress: Progress | None = None, block: int = BLOCK, threads: int | None = None
) -> Iterator[tuple[int, int, int, str, int, bytes]]:
    """``blocks`` rows of every layer, compressed by ``threads`` threads (zlib releases the interpreter lock)."""
    import os

    game = layers.game
    total = sum(len(layers.states(d)) for d in layers.depths)
    workers = threads or os.cpu_count() or 1
    done = 0

    def encode(item: tuple[int, int, int, np.ndarray, np.ndarray]) -> tuple[int, int, int, str, int, bytes]:
        ply, first, count, keys, values = item
        return (variant_id, ply, first, game.format_position(first), count, encode_block(keys, values, ply))

    with ThreadPoolExecutor(workers) as pool:
        for d in layers.depths:
            items = layer_blocks(game, d, layers.states(d), layers.outcome(d), layers.distance(d), block)
            for row in pool.map(encode, items):
                done += row[4]
                yield row
            if progress is not None:
                progress("pack", done, total)


def ply_tally(layers: Layers) -> PlyTally:
    """The per-ply counts of ``layers``: from the out-of-core build's manifest when it has one, else from the rules."""
    from tablebase.store.writer import OUTCOME_LABELS, PlyTally, class_columns

    tally = PlyTally(layers.symmetry)
    game = layers.game
    kernels = game.vector
    known = {info.depth: info for info in getattr(getattr(layers, "manifest", None), "layers", [])}
    for d in layers.depths:
        outcome = np.asarray(layers.outcome(d))
        labels = np.bincount(outcome, minlength=len(OUTCOME_LABELS))
        info = known.get(d)
        if info is not None and info.outcomes is not None:
            tally.sums[d] = np.array(
                [info.positions, info.classes, labels[1], labels[2], labels[3], info.terminal, *info.outcomes],
                dtype=np.int64,
            )
            continue
        states = np.asarray(layers.states(d), dtype=np.uint64)
        if kernels is not None:
            terminal = kernels.outcome(states) != 0
        else:
            terminal = np.array([game.outcome(int(s)) is not None for s in states], dtype=bool)
        orbit, representative = class_columns(game, states, layers.symmetry)
        tally.add(np.full(states.size, d), orbit, representative, outcome, terminal)
    return tally


def fill_packed(
    cur: sqlite3.Cursor, layers: Layers, variant_id: int, progress: Progress | None = None, block: int = BLOCK
) -> PlyTally:
    """Insert the ``blocks`` rows of ``layers``; returns their per-ply counts."""
    batch: list[tuple[Any, ...]] = []
    for row in block_rows(layers, variant_id, progress, block):
        batch.append(row)
        if len(batch) >= 256:
            cur.executemany(_INSERT, batch)
            batch.clear()
    if batch:
        cur.executemany(_INSERT, batch)
    return ply_tally(layers)


_INSERT = "INSERT INTO blocks (variant_id, ply, first_state, first_key, count, data) VALUES (?, ?, ?, ?, ?, ?)"


def write_packed(
    path: str | os.PathLike[str], layers: Layers, build_seconds: float, progress: Progress | None = None
) -> None:
    """Store ``layers`` in the SQLite file ``path`` with ``storage = 'packed'``, replacing an earlier build."""
    from tablebase.store.states import replace_variant_data, summary

    replace_variant_data(
        Path(path),
        summary(layers),
        "packed",
        build_seconds,
        lambda cur, vid: fill_packed(cur, layers, vid, progress),
        progress,
        page_size=PAGE_SIZE,
    )
