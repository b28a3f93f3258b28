"""Decoded blocks kept for lookups: a least-recently-used cache bounded in bytes, in key order per ply.

Both block storages keep what they decoded here (the packed storage's parts of
blocks, :class:`tablebase.store.packed.KeyBlock`; the dense storage's blocks,
:class:`tablebase.store.dense.SlotBlock`). A cached block answers for a range of
keys (``first`` to ``end``), so a key inside it, stored or not, is answered
without reading the file. One cache serves the threads of a process.
"""

from __future__ import annotations

import bisect
import threading
from collections import OrderedDict
from typing import Generic, Iterable, Protocol, TypeVar

#: Bytes of decoded blocks a reader keeps (one reader per build of a variant, shared by the threads of a process).
CACHE_BYTES = 64 << 20


class Cached(Protocol):
    """What the cache needs of a decoded block: where its range lies and what it holds."""

    @property
    def ply(self) -> int: ...

    @property
    def first(self) -> int:
        """The first key of the block's range."""
        ...

    @property
    def end(self) -> int:
        """The last key of the block's range."""
        ...

    @property
    def nbytes(self) -> int:
        """The bytes the block holds."""
        ...


_Block = TypeVar("_Block", bound=Cached)


class BlockCache(Generic[_Block]):
    """Decoded blocks of one variant, least recently used dropped beyond ``limit`` bytes.

    Per ply it keeps the first keys of the cached blocks in order, so a key
    inside a cached block's range is answered without reading the file.
    """

    def __init__(self, limit: int = CACHE_BYTES):
        self.limit = limit
        self.size = 0
        self._order: OrderedDict[_Block, None] = OrderedDict()
        self._plies: dict[int, tuple[list[int], list[_Block]]] = {}
        self._lock = threading.Lock()

    def covering(self, ply: int, key: int) -> _Block | None:
        """The cached block of ``ply`` whose range (``first`` to ``end``) holds ``key``."""
        with self._lock:
            return self._covering(ply, key)

    def covering_each(self, keys: Iterable[tuple[int, int]]) -> list[_Block | None]:
        """:meth:`covering` of each ``(ply, key)``, in order."""
        with self._lock:
            return [self._covering(ply, key) for ply, key in keys]

    def _covering(self, ply: int, key: int) -> _Block | None:
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

    def add(self, block: _Block) -> _Block:
        """Keep ``block``; the block kept (one another thread added first with the same start, if any)."""
        with self._lock:
            firsts, blocks = self._plies.setdefault(block.ply, ([], []))
            at = bisect.bisect_left(firsts, block.first)
            if at < len(firsts) and firsts[at] == block.first:
                return blocks[at]
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
            return block

    def clear(self) -> None:
        """Drop every block."""
        with self._lock:
            self._order.clear()
            self._plies.clear()
            self.size = 0
