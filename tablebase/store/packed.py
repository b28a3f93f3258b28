"""Packed storage's block format: the sorted states of a ply and their values, in compressed blocks.

The states of each ply are sorted by their integer encoding and cut into
blocks of :data:`BLOCK` states. One row of ``blocks`` holds one block: the
variant, the ply, the first state (as the integer the lookups search and as
its position string, for SQL browsers), the number of states and the packed
data. A block is cut into parts of :data:`SUB_BLOCK` states; each part holds

* its keys after the first as differences from the previous key, each split
  into byte planes (all lowest bytes, then all second bytes, ...), as many
  planes as the part's largest difference needs;
* one packed value per state (:func:`~tablebase.store.block_codec.pack_values`),
  in one byte plane or two;

and the parts one after the other are one raw deflate stream behind a header
(format, part size, plane counts, each part's first key and the CRC-32 of
its data and of the row's ply, its first state and its count). A lookup
decodes the part whose range holds the state looked up (:func:`decode_part`:
the stream inflated up to that part's end, on average five eighths of the
block) and searches it (:class:`KeyBlock`). Files of format 1 (one part per
block, a zlib stream) are read as well.

The rest of the storage: the lookups in :mod:`tablebase.store.packed_reader`
(decoded parts kept in a :class:`~tablebase.store.block_cache.BlockCache`), the
writer in :mod:`tablebase.store.packed_writer`, what it shares with the dense
storage in :mod:`tablebase.store.block_codec`; the names the block format is
used with are importable from here.
"""

from __future__ import annotations

import bisect
import struct
import zlib
from typing import Callable, NamedTuple

import numpy as np

from tablebase.store.block_cache import BlockCache
from tablebase.store.block_codec import CorruptBlockError, checksum, pack_values, unpack_values

#: States per block.
BLOCK = 4096
#: zlib level of the blocks.
LEVEL = 6
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

Compress = Callable[[bytes], bytes]
Decompress = Callable[[bytes], bytes]

__all__ = [
    "BLOCK",
    "KeyBlock",
    "BlockCache",
    "CorruptBlockError",
    "FORMAT",
    "LEVEL",
    "MAX_STATE",
    "SUB_BLOCK",
    "decode_block",
    "decode_part",
    "encode_block",
    "pack_values",
    "unpack_values",
]


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
        crc = checksum(raw, ply, first, int(keys.size))
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
        crcs.append(checksum(section, ply, int(part_keys[0]), int(part_keys.size)))
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


class _BlockHeader(NamedTuple):
    """A block's header read: its format, value planes, where the compressed data starts, its parts."""

    version: int
    value_planes: int
    body: int
    parts: list[_Part]
    firsts: list[int]


def _read_header(data: bytes, ply: int, first: int, count: int) -> _BlockHeader:
    version = data[0] if data else 0
    if version == 1:
        _, key_planes, value_planes, crc = _HEADER.unpack_from(data)
        if key_planes > 8 or value_planes not in (1, 2):
            raise ValueError("unknown block format")
        end = (count - 1) * key_planes + count * value_planes
        return _BlockHeader(1, value_planes, _HEADER.size, [_Part(first, count, key_planes, 0, end, crc)], [first])
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
    return _BlockHeader(2, value_planes, at, parts, firsts)


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
    if len(raw) != part.end - part.start or checksum(raw, ply, part.first, part.size) != part.crc:
        raise CorruptBlockError("block fails its checksum")


def decode_block(
    data: bytes, ply: int, first: int, count: int, decompress: Decompress | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """``(keys, values)`` of a block; raises :class:`CorruptBlockError` if it does not check out."""
    try:
        header = _read_header(data, ply, first, count)
        body = memoryview(data)[header.body :]
        size = header.parts[-1].end
        if decompress is not None:
            raw = decompress(bytes(body))
        elif header.version == 1:
            raw = zlib.decompress(body, bufsize=max(size, 1))
        else:
            raw = zlib.decompress(body, -15, max(size, 1))
    except (struct.error, ValueError, zlib.error, TypeError, IndexError) as exc:
        raise CorruptBlockError(f"block does not decode ({exc})") from exc
    if len(raw) != size:
        raise CorruptBlockError("block fails its checksum")
    keys, values = [], []
    for part in header.parts:
        section = raw[part.start : part.end]
        _check(section, part, ply)
        part_keys, part_values = _decode_section(section, part.first, part.size, part.key_planes, header.value_planes)
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
    if len(raw) < end or checksum(section, ply, part_first, part_count) != crc:
        raise CorruptBlockError("block fails its checksum")
    return (*_decode_section(section, part_first, part_count, key_planes, value_planes), next_first)


class KeyBlock:
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
