"""Dense storage's block format: one value a slot of the game's dense index, in compressed blocks of the ``blocks`` table.

A game whose positions of each ply can be numbered densely (its *dense
index*, :class:`~tablebase.games.common.dense_index.DenseIndex`; Connect Four's is
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
(:meth:`~tablebase.games.common.dense_index.DenseIndex.derived`: the end of a game, a win with the next move).
Every other slot (not a position, or not stored) repeats the value before it
in its block, which makes long runs; so a slot's byte means something only
for a stored position.

The rest of the storage: the lookups in :mod:`tablebase.store.dense_reader`
(the rules asked first, then one block read and the part needed decoded,
blocks and their decoded parts kept in a
:class:`~tablebase.store.block_cache.BlockCache`), the writer in
:mod:`tablebase.store.dense_writer`, what it shares with the packed storage
(the value format, the checksum's seed, the rows of ``blocks`` and
``plies``) in :mod:`tablebase.store.block_codec`.
"""

from __future__ import annotations

import struct
import zlib

import numpy as np

from tablebase.store.block_codec import CorruptBlockError, checksum, fast_crc32, inflate

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
        if checksum(memoryview(data)[_HEADER.size :], ply, first, count, fast_crc32) != crc:
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
            raw = inflate(stream, size if as_bytes else None)
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
