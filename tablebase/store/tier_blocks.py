"""The block format of the ``tiers`` storage: a tier's values, two bytes a slot, in blocks of slots.

Each block is one row of ``blocks``: the variant, the tier's number in the
ply column, the first slot (``first_state``), the position of that slot as
text, the number of slots, and the data: a 6-byte header (format
:data:`FORMAT` and the CRC-32 of the rest, seeded with the row's tier, first
slot and count) and the raw deflate stream of the values' low bytes, then
their high bytes. The writer is :mod:`tablebase.store.tiers`, the reader
:class:`~tablebase.store.storage.tiered.Tiered`.
"""

from __future__ import annotations

import sqlite3
import struct
import zlib
from typing import TYPE_CHECKING, Iterable

from tablebase.store.block_codec import CorruptBlockError, checksum, fast_crc32, inflate

if TYPE_CHECKING:
    import numpy as np

    from tablebase.games.base import Game

#: The storage a variant built tier by tier is kept in.
STORAGE = "tiers"
#: Slots a block the writer makes holds (the reader takes any: a row says where its block starts and
#: how many slots it holds). A probe decodes a block for the position and for each move's: 4,096
#: slots decode in about a quarter of the time 16,384 take, for about 5 % more bytes a slot.
BLOCK = 4096
#: The block format written.
FORMAT = 1
#: zlib level of the blocks.
LEVEL = 6
_HEADER = struct.Struct("<BxI")


def encode_block(values: np.ndarray, number: int, first: int) -> bytes:
    """A block's data: the header, then the low bytes and the high bytes of ``values`` deflated."""
    import numpy as np

    planes = np.ascontiguousarray(np.asarray(values, dtype="<u2").view(np.uint8).reshape(-1, 2).T).tobytes()
    packer = zlib.compressobj(LEVEL, zlib.DEFLATED, -15)
    stream = packer.compress(planes) + packer.flush()
    return _HEADER.pack(FORMAT, checksum(stream, number, first, len(values))) + stream


def decode_planes(data: bytes, number: int, first: int, count: int) -> bytes | bytearray:
    """The ``count`` values of a block as their two planes, the low bytes then the high bytes (the
    value of slot ``first + i`` is ``planes[i] | planes[count + i] << 8``); :class:`CorruptBlockError`
    when the block does not decode to them."""
    if len(data) < _HEADER.size:
        raise CorruptBlockError("the block is shorter than its header")
    version, crc = _HEADER.unpack_from(data)
    stream = memoryview(data)[_HEADER.size :]
    if version != FORMAT:
        raise CorruptBlockError(f"block format {version}, this version reads {FORMAT}")
    if checksum(stream, number, first, count, fast_crc32) != crc:
        raise CorruptBlockError("checksum mismatch")
    planes = inflate(stream, 2 * count)
    if len(planes) != 2 * count:
        raise CorruptBlockError(f"{len(planes) // 2} values, the row says {count}")
    return planes


def decode_block(data: bytes, number: int, first: int, count: int) -> np.ndarray:
    """The ``count`` values of a block; :class:`CorruptBlockError` when it does not decode to them."""
    import numpy as np

    raw = np.frombuffer(decode_planes(data, number, first, count), dtype=np.uint8).reshape(2, count)
    result: np.ndarray = raw[0].astype(np.uint16) | (raw[1].astype(np.uint16) << 8)
    return result


def tier_values(conn: sqlite3.Connection, variant_id: int, number: int, size: int) -> np.ndarray:
    """The values of the tier stored under ``number`` (``size`` slots), read through ``conn``."""
    import numpy as np

    out = np.empty(size, dtype=np.uint16)
    filled = 0
    rows = conn.execute(
        "SELECT first_state, count, data FROM blocks WHERE variant_id = ? AND ply = ? ORDER BY first_state",
        (variant_id, number),
    )
    for first, count, data in rows:
        if first != filled or first + count > size:
            raise CorruptBlockError(f"tier {number}: a block from slot {first} where slot {filled} was due")
        out[first : first + count] = decode_block(data, number, first, count)
        filled += count
    if filled != size:
        raise CorruptBlockError(f"tier {number}: {filled} slots stored of {size}")
    return out


def older_tiers(game: Game, storage: str, plies: Iterable[int]) -> str | None:
    """Why a variant row cannot be read as built: a build tier by tier of an older version (packed
    blocks of each tier's sorted states); ``None`` for any other."""
    plies = list(plies)
    if storage != "packed" or not plies or any(game.tier_name(p) is None for p in plies):
        return None
    return (
        f"variant {game.name!r} was built tier by tier by an older tablebase (packed blocks of sorted states),"
        f" which this version does not read; rebuild it: tablebase drop {game.name}, then tablebase build"
        f" {game.name} --stones K"
    )
