"""The tables of the compiled searches of Ultimate tic-tac-toe (:mod:`.search`): open addressing in
numpy arrays, keyed by the three words of a state (:func:`.fields.words`), compiled with numba.

A table is a cache of proved bounds (or, for the proof-number search, of proof and disproof
numbers): an entry may be overwritten when its slots are taken, never made wrong.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types

from tablebase.games.common.compiled import kernel
from tablebase.games.common.intrinsics import prefetch
from tablebase.games.ultimate.fields import INT, words

#: A free slot of a table (zeroed memory: the pages are only touched when used) and the tag
#: of a used one, set on the third word (whose bits 58 up are free).
EMPTY = 0
USED = 1 << 62
PROBES = 16

#: The types of a table's keys and of its values (the outcome table's in int8, the others' in
#: int64): a kernel called with several (literal arguments, values of either width) is compiled
#: for the signatures it declares alone, once each.
KEYS = types.int64[:, ::1]
VALS = (types.int8[:, ::1], types.int64[:, ::1])


@njit(cache=True, inline="always")
def _slot(w0: int, w1: int, w2: int, mask: int) -> int:
    """The home slot of a state: the shifts and xors of its words keep a position's slot near its
    parent's and children's; the low 8 bits from a product of the words spread the states those
    collide within that neighbourhood."""
    h = w0 ^ ((w1 << 3) & 0x7FFFFFFFFFFFFFFF) ^ ((w2 << 5) & 0x7FFFFFFFFFFFFFFF) ^ (w0 >> 31) ^ (w1 >> 29) ^ (w2 >> 23)
    h ^= h >> 29
    mixed = w0 * -7046029254386353131 + w1 * -4417276706812531889 + w2 * 1609587929392839161
    return (h ^ ((mixed >> 56) & 255)) & mask


@njit(cache=True, inline="always")
def _fetch(keys: np.ndarray, vals: np.ndarray, w0: int, w1: int, w2: int) -> None:
    """Bring the slot of a state, key and value, into the cache ahead of a lookup."""
    i = _slot(w0, w1, w2, keys.shape[0] - 1)
    prefetch(keys, i)
    prefetch(vals, i)


@kernel((KEYS, INT, INT, INT))
def _find(keys: np.ndarray, w0: int, w1: int, w2: int) -> int:
    mask = keys.shape[0] - 1
    i = _slot(w0, w1, w2, mask)
    for _ in range(PROBES):
        if keys[i, 2] == EMPTY:
            return -1
        if keys[i, 2] == (w2 | USED) and keys[i, 0] == w0 and keys[i, 1] == w1:
            return i
        i = (i + 1) & mask
    return -1


@kernel((KEYS, VALS[0], INT, INT, INT))
def _get(keys: np.ndarray, vals: np.ndarray, w0: int, w1: int, w2: int) -> int:
    """The entry of a state packed in one int (-1 if absent): ``(lo + 1) * 1024 + (hi + 1) * 256 + best + 1``."""
    at = _find(keys, w0, w1, w2)
    if at < 0:
        return -1
    return int((vals[at, 0] + 1) * 1024 + (vals[at, 1] + 1) * 256 + vals[at, 2] + 1)


@njit(cache=True, inline="always")
def _put(
    keys: np.ndarray, vals: np.ndarray, w0: int, w1: int, w2: int, a: int, b: int, c: int, least_work: bool
) -> None:
    """Write the entry ``(a, b, c)`` of a state: in its slot, else in the first free slot it probes;
    when every probed slot is taken, over the first one's entry (``least_work``: over the one of
    least work, ``vals[:, 2]``)."""
    mask = keys.shape[0] - 1
    i = _slot(w0, w1, w2, mask)
    victim = i
    least = vals[i, 2]
    for _ in range(PROBES):
        if keys[i, 2] == EMPTY or (keys[i, 2] == (w2 | USED) and keys[i, 0] == w0 and keys[i, 1] == w1):
            break
        if least_work and vals[i, 2] < least:
            least = vals[i, 2]
            victim = i
        i = (i + 1) & mask
    else:
        i = victim
    keys[i, 0] = w0
    keys[i, 1] = w1
    keys[i, 2] = w2 | USED
    vals[i, 0] = a
    vals[i, 1] = b
    vals[i, 2] = c


@kernel(*[types.void(KEYS, vals, *[INT] * 6) for vals in VALS])
def _store(keys: np.ndarray, vals: np.ndarray, w0: int, w1: int, w2: int, lo: int, hi: int, best: int) -> None:
    """Store the bounds of a state (when all probed slots are taken, over the first one's entry)."""
    _put(keys, vals, w0, w1, w2, lo, hi, best, False)


@kernel((KEYS, VALS[1], INT, INT, INT))
def _dget(keys: np.ndarray, vals: np.ndarray, w0: int, w1: int, w2: int) -> tuple[bool, int, int, int]:
    at = _find(keys, w0, w1, w2)
    if at < 0:
        return False, 0, 0, -1
    return True, vals[at, 0], vals[at, 1], vals[at, 2]


@kernel(types.void(KEYS, VALS[1], *[INT] * 6), python=False)
def _pstore(keys: np.ndarray, vals: np.ndarray, w0: int, w1: int, w2: int, pn: int, dn: int, work: int) -> None:
    """Store proof and disproof numbers; when all probed slots are taken, replace the entry of least work."""
    _put(keys, vals, w0, w1, w2, pn, dn, work, True)


@kernel(types.void(KEYS, VALS[0], *[INT] * 6), python=False)
def _bound(keys: np.ndarray, vals: np.ndarray, w0: int, w1: int, w2: int, lo: int, hi: int, best: int) -> None:
    """Narrow the outcome table's entry of a state to ``lo..hi`` (``best``: the move that proves ``lo``)."""
    at = _find(keys, w0, w1, w2)
    old_lo, old_hi, old_best = -1, 1, -1
    if at >= 0:
        old_lo, old_hi, old_best = int(vals[at, 0]), int(vals[at, 1]), int(vals[at, 2])
    if lo > old_lo:
        old_lo = lo
        old_best = best
    if hi < old_hi:
        old_hi = hi
    _store(keys, vals, w0, w1, w2, old_lo, old_hi, old_best)


@kernel(*[types.void(KEYS, vals, KEYS, vals) for vals in VALS])
def _rehash(keys: np.ndarray, vals: np.ndarray, new_keys: np.ndarray, new_vals: np.ndarray) -> None:
    for i in range(keys.shape[0]):
        if keys[i, 2] != EMPTY:
            _store(
                new_keys, new_vals, keys[i, 0], keys[i, 1], keys[i, 2] ^ USED, int(vals[i, 0]), int(vals[i, 1]), int(vals[i, 2])
            )


@kernel(types.void(KEYS, VALS[0], KEYS, VALS[0]))
def _merge(keys: np.ndarray, vals: np.ndarray, other_keys: np.ndarray, other_vals: np.ndarray) -> None:
    for i in range(other_keys.shape[0]):
        _bound(
            keys, vals, other_keys[i, 0], other_keys[i, 1], other_keys[i, 2] ^ USED,
            other_vals[i, 0], other_vals[i, 1], other_vals[i, 2],
        )


#: Slots of a new table (as a power of two); it grows fourfold when half full, up to its limit.
START_BITS = 16


class _Table:
    """A table of bounds ``{state: (lo, hi, best move index)}`` that grows as it fills."""

    def __init__(self, max_bits: int, dtype: type):
        self.bits = min(START_BITS, max_bits)
        self.max_bits = max_bits
        self.keys: np.ndarray = np.zeros((1 << self.bits, 3), dtype=np.int64)
        self.vals: np.ndarray = np.zeros((1 << self.bits, 3), dtype=dtype)
        self.work = 0

    def get(self, state: int) -> tuple[int, int, int] | None:
        found, lo, hi, best = _dget(self.keys, self.vals, *words(state))
        return (int(lo), int(hi), int(best)) if found else None

    def __setitem__(self, state: int, entry: tuple[int, int, int]) -> None:
        _store(self.keys, self.vals, *words(state), *entry)

    def __len__(self) -> int:
        return int(np.count_nonzero(self.keys[:, 2]))

    def note(self, nodes: int) -> None:
        """Count ``nodes`` of search; grow the table when they may have filled half of it."""
        self.work += nodes
        if self.bits < self.max_bits and self.work > (1 << self.bits) // 4:
            self.work = 0
            self.grow(0)

    def grow(self, extra: int) -> None:
        """Grow the table (fourfold at a time, up to its limit) until ``extra`` more entries would
        leave it at most half full."""
        used = len(self)
        bits = self.bits
        while bits < self.max_bits and used + extra > (1 << bits) // 2:
            bits = min(bits + 2, self.max_bits)
        if bits > self.bits:
            keys = np.zeros((1 << bits, 3), dtype=np.int64)
            vals = np.zeros((1 << bits, 3), dtype=self.vals.dtype)
            _rehash(self.keys, self.vals, keys, vals)
            self.bits, self.keys, self.vals = bits, keys, vals


class DistanceTable(_Table):
    """The distance bounds of :meth:`OutcomeTable.distance_search`."""

    def __init__(self, max_bits: int):
        super().__init__(max_bits, np.int64)


class ProofTable(_Table):
    """The proof and disproof numbers of :meth:`OutcomeTable.dfpn` (with the nodes searched below each)."""

    def __init__(self, max_bits: int):
        super().__init__(max_bits, np.int64)

