"""Compiled kernels of the colour-folded movement-phase tiers: the class index and the retrograde passes.

A folded tier ``T(m, n)`` holds the movement positions seen from the side to
move: the mover's ``m`` stones and the other side's ``n`` (bitmasks of the
board's points). Its slots (:func:`rank`, :func:`unrank`) number the
symmetry classes: ``rep * C(cells - n, m) + r``, where ``rep`` numbers the
class of the other side's stones among the ``n``-subsets that are the least
of their images, and ``r`` is the colex rank of the mover's stones (mapped
by the symmetry that takes the other side's to ``rep``, then the least of
their images under the symmetries that keep ``rep``) among the points
``rep`` leaves free. A slot whose mover stones are not that least image
holds no class (:data:`UNUSED`).

A value is a ``uint16``: the outcome code in the low two bits (of
:class:`tablebase.outcome.Code`) and the distance in plies above them; a
draw has distance 0 there (it has none). While a unit is solved an unknown
value holds the largest distance of its won children below the unit and,
in :data:`DRAWN`, whether one of them is drawn.

Every compiled function the passes call is in this module but the removal
rule, which is the game's own (:func:`~tablebase.games.morris.kernels.removable_stones`);
numba's cache of a compiled function does not follow calls into other
modules, so a change to that rule wants the cached passes cleared.
"""

from __future__ import annotations

from typing import Any, Callable, cast

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from tablebase.games.common.intrinsics import prefetch as _prefetch
from tablebase.games.common.kernels import DRAW_CODE, LOSS_CODE, UNKNOWN_CODE, WIN_CODE
from tablebase.games.morris.kernels import removable_stones

#: The value of a slot that holds no class.
UNUSED = 0xFFFF
#: The flag of an unknown value with a drawn child below the unit.
DRAWN = 1 << 15
#: The distance field, after the shift by two.
DISTANCE_MASK = 0x1FFF
#: Slots a block of :func:`pending_levels` holds.
BLOCK = 4096
#: The pending distance of a block with none.
NONE = 1 << 30
#: The most children or parents one position has on a board of up to 24 points.
_MOST = 128


def _ctpop(typingctx: Any, x: Any) -> Any:
    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.ctpop(args[0])

    return types.int64(types.int64), codegen


def _cttz(typingctx: Any, x: Any) -> Any:
    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 1))

    return types.int64(types.int64), codegen


#: The set bits of an ``int64``, in compiled code.
_popcount = cast(Callable[[int], int], intrinsic(_ctpop))
#: The index of the lowest set bit of a nonzero ``int64``, in compiled code.
_low = cast(Callable[[int], int], intrinsic(_cttz))


@numba.njit(cache=True, inline="always")
def _image(x: int, g: int, perm: np.ndarray) -> int:
    out = 0
    for b in range(perm.shape[1]):
        out |= perm[g, b, (x >> (8 * b)) & 255]
    return out


@numba.njit(cache=True)
def build_classes(cells: int, perm: np.ndarray, binom: np.ndarray) -> tuple[Any, Any, Any, Any, Any]:
    """``(rep_of, sym_of, sub_start, reps, rep_start)`` of every subset of ``cells`` points.

    The subsets of size ``k`` lie at ``sub_start[k]`` on, in colex order;
    ``rep_of`` gives a subset's class among the representatives of its size
    (the least masks of their classes, numbered in increasing order),
    ``sym_of`` a symmetry taking it there; ``reps[rep_start[k]:rep_start[k + 1]]``
    are the representatives of size ``k``.
    """
    size = 1 << cells
    rep_of = np.empty(size, dtype=np.int32)
    sym_of = np.empty(size, dtype=np.int8)
    sub_start = np.zeros(cells + 2, dtype=np.int64)
    for k in range(cells + 1):
        sub_start[k + 1] = sub_start[k] + binom[cells, k]
    counts = np.zeros(cells + 1, dtype=np.int64)
    for mask in range(size):
        best = mask
        best_g = 0
        for g in range(1, perm.shape[0]):
            im = _image(mask, g, perm)
            if im < best:
                best = im
                best_g = g
        k = _popcount(mask)
        at = sub_start[k] + _colex(mask, 0, binom)
        sym_of[at] = best_g
        if best_g == 0:
            rep_of[at] = counts[k]
            counts[k] += 1
        else:
            rep_of[at] = rep_of[sub_start[k] + _colex(best, 0, binom)]
    rep_start = np.zeros(cells + 2, dtype=np.int64)
    for k in range(cells + 1):
        rep_start[k + 1] = rep_start[k] + counts[k]
    reps = np.empty(rep_start[cells + 1], dtype=np.int64)
    cursor = rep_start[: cells + 1].copy()
    for mask in range(size):
        k = _popcount(mask)
        if sym_of[sub_start[k] + _colex(mask, 0, binom)] == 0:
            reps[cursor[k]] = mask
            cursor[k] += 1
    return rep_of, sym_of, sub_start, reps, rep_start


@numba.njit(cache=True)
def stabilisers(reps: np.ndarray, perm: np.ndarray) -> np.ndarray:
    """The symmetries keeping each representative, as a bitmask over the symmetries (bit 0 the identity)."""
    out = np.zeros(len(reps), dtype=np.int64)
    for i in range(len(reps)):
        for g in range(perm.shape[0]):
            if _image(reps[i], g, perm) == reps[i]:
                out[i] |= 1 << g
    return out


@numba.njit(cache=True, inline="always")
def _least(s: int, stab: int, perm: np.ndarray) -> int:
    best = s
    if stab != 1:
        for h in range(1, perm.shape[0]):
            if stab >> h & 1:
                im = _image(s, h, perm)
                if im < best:
                    best = im
    return best


@numba.njit(cache=True, inline="always")
def _colex(s: int, rep: int, binom: np.ndarray) -> int:
    r = 0
    j = 0
    while s:
        p = _low(s)
        s &= s - 1
        j += 1
        r += binom[p - _popcount(rep & ((1 << p) - 1)), j]
    return r


@numba.njit(cache=True, inline="always")
def _deposit(comp: int, rep: int, cells: int) -> int:
    out = 0
    free = ((1 << cells) - 1) & ~rep
    while comp:
        p = _low(free)
        free &= free - 1
        if comp & 1:
            out |= 1 << p
        comp >>= 1
    return out


@numba.njit(cache=True, inline="always")
def _colex_unrank(k: int, m: int, free: int, binom: np.ndarray) -> int:
    comp = 0
    c = free - 1
    for j in range(m, 0, -1):
        while binom[c, j] > k:
            c -= 1
        k -= binom[c, j]
        comp |= 1 << c
        c -= 1
    return comp


@numba.njit(cache=True, inline="always")
def _other_class(other: int, n: int, ix: Any) -> tuple[int, int]:
    """``(i, g)``: the number of the representative of the other side's ``n`` stones ``other`` and a
    symmetry taking them there (what every position with those stones shares of its slot)."""
    rep_of, sym_of, binom, sub_start = ix[1], ix[2], ix[6], ix[7]
    at = sub_start[n] + _colex(other, 0, binom)
    return rep_of[at], sym_of[at]


@numba.njit(cache=True, inline="always")
def _slot(mover: int, m: int, n: int, cells: int, ix: Any, i: int, g: int) -> int:
    """The slot in ``T(m, n)`` of ``mover`` against the other side's stones of class ``(i, g)`` (:func:`_other_class`)."""
    perm, reps, rep_start, stabs, binom = ix[0], ix[3], ix[4], ix[5], ix[6]
    j = rep_start[n] + i
    s = _image(mover, g, perm) if g else mover
    s = _least(s, stabs[j], perm)
    slot: int = i * binom[cells - n, m] + _colex(s, reps[j], binom)
    return slot


@numba.njit(cache=True)
def rank(mover: int, other: int, m: int, n: int, cells: int, ix: Any) -> int:
    """The slot of the class of ``(mover, other)`` in ``T(m, n)``."""
    i, g = _other_class(other, n, ix)
    return _slot(mover, m, n, cells, ix, i, g)


@numba.njit(cache=True)
def unrank(slot: int, m: int, n: int, cells: int, ix: Any) -> tuple[int, int]:
    """``(mover, other)``: the representative position of ``slot`` of ``T(m, n)``."""
    reps, rep_start, binom = ix[3], ix[4], ix[6]
    per = binom[cells - n, m]
    i = slot // per
    rep = reps[rep_start[n] + i]
    return _deposit(_colex_unrank(slot - i * per, m, cells - n, binom), rep, cells), rep


@numba.njit(cache=True)
def rank_many(movers: np.ndarray, others: np.ndarray, m: int, n: int, cells: int, ix: Any) -> np.ndarray:
    """:func:`rank` of each ``(movers[i], others[i])``."""
    out = np.empty(len(movers), dtype=np.int64)
    for i in range(len(movers)):
        out[i] = rank(movers[i], others[i], m, n, cells, ix)
    return out


@numba.njit(cache=True)
def unrank_many(slots: np.ndarray, m: int, n: int, cells: int, ix: Any) -> tuple[Any, Any]:
    """:func:`unrank` of each slot: ``(movers, others)``."""
    movers = np.empty(len(slots), dtype=np.int64)
    others = np.empty(len(slots), dtype=np.int64)
    for i in range(len(slots)):
        movers[i], others[i] = unrank(slots[i], m, n, cells, ix)
    return movers, others


@numba.njit(cache=True)
def used_slots(m: int, n: int, cells: int, ix: Any) -> np.ndarray:
    """Whether each slot of ``T(m, n)`` holds a class."""
    perm, reps, rep_start, stabs, binom = ix[0], ix[3], ix[4], ix[5], ix[6]
    per = binom[cells - n, m]
    count = rep_start[n + 1] - rep_start[n]
    out = np.ones(count * per, dtype=np.bool_)
    for i in range(count):
        stab = stabs[rep_start[n] + i]
        if stab == 1:
            continue
        rep = reps[rep_start[n] + i]
        for k in range(per):
            s = _deposit(_colex_unrank(k, m, cells - n, binom), rep, cells)
            out[i * per + k] = _least(s, stab, perm) == s
    return out


@numba.njit(cache=True)
def count_used(m: int, n: int, cells: int, ix: Any) -> int:
    """How many slots of ``T(m, n)`` hold a class: its classes."""
    perm, reps, rep_start, stabs, binom = ix[0], ix[3], ix[4], ix[5], ix[6]
    per = binom[cells - n, m]
    total = 0
    for i in range(rep_start[n], rep_start[n + 1]):
        if stabs[i] == 1:
            total += per
            continue
        for k in range(per):
            s = _deposit(_colex_unrank(k, m, cells - n, binom), reps[i], cells)
            if _least(s, stabs[i], perm) == s:
                total += 1
    return total


@numba.njit(cache=True, inline="always")
def _in_mill(bits: int, point: int, mills_of: np.ndarray) -> bool:
    for mill in mills_of[point]:
        if mill and bits & mill == mill:
            return True
    return False


@numba.njit(cache=True, inline="always")
def _first(s: int, keys: np.ndarray, stamps: np.ndarray, stamp: int) -> bool:
    """Whether ``s`` is new among the keys stamped ``stamp`` (then it is added): a small open-addressed set."""
    h = (s * 0x9E3779B1) & (_MOST - 1)
    while stamps[h] == stamp:
        if keys[h] == s:
            return False
        h = (h + 1) & (_MOST - 1)
    stamps[h] = stamp
    keys[h] = s
    return True


@numba.njit(cache=True, inline="always")
def _next_colex(comp: int) -> int:
    """The set of as many bits as ``comp`` that follows it in colex order."""
    low = comp & -comp
    ripple = comp + low
    return ripple | (((ripple ^ comp) // low) >> 2)


@numba.njit(cache=True, inline="always")
def _fold(w: int, win: int, won: int, drawn: bool, broken: bool) -> tuple[int, int, bool, bool]:
    """``(win, won, drawn, broken)`` of a class with one more child's value ``w``: the least distance
    of a win through a lost child, the largest of its won children, whether one is drawn, whether one
    holds no class."""
    code = w & 3
    d = (w >> 2) & DISTANCE_MASK
    if w == UNUSED:
        broken = True
    elif code == LOSS_CODE:
        win = min(win, d + 1)
    elif code == WIN_CODE:
        won = max(won, d)
    else:
        drawn = True
    return win, won, drawn, broken


@numba.njit(cache=True)
def derive_reps(
    first: int, last: int, m: int, n: int, cells: int, flying: bool, neighbours: np.ndarray, mills: np.ndarray,
    mills_of: np.ndarray, ix: Any, lower: np.ndarray, lower_lost: bool, across: np.ndarray, checking: bool,
    value: np.ndarray, marks: np.ndarray,
) -> int:
    """The value of each slot of the representatives ``first`` to ``last`` (excluded) of ``T(m, n)``
    from its moves.

    A move closing a mill leads to ``T(n - 1, m)``, read in ``lower`` (every
    position there lost at 0 when ``lower_lost``); any other to ``T(n, m)``,
    read in ``across`` when ``checking`` (the check of a solved tier: ``marks``
    gets whether ``value`` disagrees or a child holds no class, and 0 is
    returned). The positions below are fetched ahead and read once every move is made. Else
    (:func:`init_tier`, ``across`` not read) the value is stored in
    ``value``, unknown while such moves reach classes, holding then the
    largest distance of its won children and whether one is drawn
    (:data:`DRAWN`), and ``marks`` gets how many distinct classes it waits
    for; the largest distance set is returned. Two such children are one
    class only through a symmetry keeping the other side's stones, so where
    no symmetry but the identity keeps them, each move counts one class,
    ranked by none.
    """
    perm, stabs, reps, rep_start, binom = ix[0], ix[5], ix[3], ix[4], ix[6]
    per = binom[cells - n, m]
    full = (1 << cells) - 1
    keys = np.empty(_MOST, dtype=np.int64)
    stamps = np.zeros(_MOST, dtype=np.int64)
    # the positions below one class's moves reach: each stone to each empty point, each removal
    lows = np.empty(max(1, m * (cells - m - n) * n), dtype=np.int64)
    top = 0
    for i in range(first, last):
        other = reps[rep_start[n] + i]
        stab = stabs[rep_start[n] + i]
        removable = removable_stones(other, mills)
        comp = (1 << m) - 1
        for k in range(per):
            if k:
                comp = _next_colex(comp)
            slot = i * per + k
            mover = _deposit(comp, other, cells)
            v = UNUSED if stab != 1 and _least(mover, stab, perm) != mover else LOSS_CODE
            found = 0
            broken = False
            if v != UNUSED and m >= 3:
                empty = full & ~(mover | other)
                fly = flying and m == 3
                moves = 0
                removals = 0
                win = DISTANCE_MASK + 1
                won = 0
                drawn = False
                stones = mover
                while stones:
                    a = _low(stones)
                    stones &= stones - 1
                    targets = empty if fly else neighbours[a] & empty
                    rest = mover & ~(1 << a)
                    while targets:
                        b = _low(targets)
                        targets &= targets - 1
                        moves += 1
                        after = rest | 1 << b
                        if _in_mill(after, b, mills_of):
                            if lower_lost:
                                win = 1
                                continue
                            ai, ag = _other_class(after, m, ix)
                            taken = removable
                            while taken:
                                c = _low(taken)
                                taken &= taken - 1
                                below = _slot(other & ~(1 << c), n - 1, m, cells, ix, ai, ag)
                                _prefetch(lower, below)
                                lows[removals] = below
                                removals += 1
                        elif checking:
                            w = across[rank(other, after, n, m, cells, ix)]
                            win, won, drawn, broken = _fold(w, win, won, drawn, broken)
                        elif stab == 1 or _first(rank(other, after, n, m, cells, ix), keys, stamps, slot + 1):
                            found += 1
                for r in range(removals):
                    win, won, drawn, broken = _fold(lower[lows[r]], win, won, drawn, broken)
                if win <= DISTANCE_MASK:
                    v = WIN_CODE | win << 2
                    found = 0
                elif moves == 0:
                    v = LOSS_CODE
                elif found:
                    v = UNKNOWN_CODE | won << 2 | (DRAWN if drawn else 0)
                elif drawn:
                    v = DRAW_CODE
                else:
                    v = LOSS_CODE | (won + 1) << 2
            if not checking:
                value[slot] = v
                marks[slot] = found
                if v & 3 == WIN_CODE or v & 3 == LOSS_CODE:
                    top = max(top, (v >> 2) & DISTANCE_MASK)
            else:
                marks[slot] = broken or value[slot] != v
    return top


@numba.njit(cache=True)
def init_tier(
    first: int, last: int, m: int, n: int, cells: int, flying: bool, neighbours: np.ndarray, mills: np.ndarray,
    mills_of: np.ndarray, ix: Any, lower: np.ndarray, lower_lost: bool, value: np.ndarray, count: np.ndarray,
) -> int:
    """Fill ``value`` and ``count`` of the slots of ``T(m, n)``'s representatives ``first`` to ``last``
    (excluded) from their moves; returns the largest distance set.

    A move closing a mill leads to ``T(n - 1, m)``, read in ``lower`` (every
    position there lost at 0 when ``lower_lost``); any other move to
    ``T(n, m)``, in the unit, where ``count`` counts the distinct classes.
    """
    across = np.empty(0, dtype=np.uint16)
    return derive_reps(
        first, last, m, n, cells, flying, neighbours, mills, mills_of, ix, lower, lower_lost, across, False, value, count
    )


@numba.njit(cache=True, parallel=True)
def init_tier_parallel(
    first: int, last: int, m: int, n: int, cells: int, flying: bool, neighbours: np.ndarray, mills: np.ndarray,
    mills_of: np.ndarray, ix: Any, lower: np.ndarray, lower_lost: bool, value: np.ndarray, count: np.ndarray,
) -> int:
    """:func:`init_tier` on numba's threads, the representatives shared out in blocks."""
    total = last - first
    blocks = max(1, min(total, 1024))
    tops = np.zeros(blocks, dtype=np.int64)
    across = np.empty(0, dtype=np.uint16)
    for b in numba.prange(blocks):
        lo, hi = first + b * total // blocks, first + (b + 1) * total // blocks
        tops[b] = derive_reps(
            lo, hi, m, n, cells, flying, neighbours, mills, mills_of, ix, lower, lower_lost, across, False, value, count
        )
    return int(tops.max())


@numba.njit(cache=True)
def pending_levels(value: np.ndarray) -> np.ndarray:
    """The least distance of a won or lost value in each block of :data:`BLOCK` slots (:data:`NONE` for none)."""
    out = np.full((len(value) + BLOCK - 1) // BLOCK, NONE, dtype=np.int32)
    for slot in range(len(value)):
        v = value[slot]
        code = v & 3
        if code == WIN_CODE or code == LOSS_CODE:
            d = (v >> 2) & DISTANCE_MASK
            if d < out[slot // BLOCK]:
                out[slot // BLOCK] = d
    return out


def _atomic_sub_u8(typingctx: Any, array: Any, index: Any) -> Any:
    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [args[1]])  # type: ignore[no-untyped-call]
        return builder.atomic_rmw("sub", ptr, ir.Constant(ir.IntType(8), 1), "monotonic")

    return types.uint8(types.Array(types.uint8, 1, "C"), types.int64), codegen


def _atomic_min_i32(typingctx: Any, array: Any, index: Any, value: Any) -> Any:
    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [args[1]])  # type: ignore[no-untyped-call]
        return builder.atomic_rmw("min", ptr, args[2], "monotonic")

    return types.int32(types.Array(types.int32, 1, "C"), types.int64, types.int32), codegen


#: ``array[index] -= 1`` at once for every thread, in compiled code; returns the value before.
_decrement = cast(Callable[[np.ndarray, int], int], intrinsic(_atomic_sub_u8))
#: ``array[index] = min(array[index], value)`` at once for every thread, in compiled code.
_lower = cast(Callable[[np.ndarray, int, int], int], intrinsic(_atomic_min_i32))


@numba.njit(cache=True)
def _level_block(
    block: int, d: int, p: int, q: int, cells: int, flying: bool, neighbours: np.ndarray, mills_of: np.ndarray,
    ix: Any, src: np.ndarray, dst: np.ndarray, dst_count: np.ndarray, fresh: np.ndarray, shared: bool,
) -> tuple[int, int, int]:
    """The values of one block of ``T(p, q)`` final at ``d`` passed to their parents in ``T(q, p)``:
    ``(passed, largest distance set, least distance above d met in the block)``; each value set
    lowers its block's entry of ``fresh``. Each value's parents are found first, their values fetched
    ahead, then passed; ``shared``: other threads pass values to the same parents (the counts and
    ``fresh`` are lowered at once for every thread)."""
    full = (1 << cells) - 1
    keys = np.empty(_MOST, dtype=np.int64)
    stamps = np.zeros(_MOST, dtype=np.int64)
    parents = np.empty(_MOST, dtype=np.int64)
    top = 0
    passed = 0
    later = NONE
    for slot in range(block * BLOCK, min((block + 1) * BLOCK, len(src))):
        v = src[slot]
        code = v & 3
        if code != WIN_CODE and code != LOSS_CODE:
            continue
        at = (v >> 2) & DISTANCE_MASK
        if at != d:
            if d < at < later:
                later = at
            continue
        passed += 1
        mover, other = unrank(slot, p, q, cells, ix)
        pi, pg = _other_class(mover, p, ix)
        empty = full & ~(mover | other)
        fly = flying and q == 3
        stones = other
        found = 0
        while stones:
            b = _low(stones)
            stones &= stones - 1
            if _in_mill(other, b, mills_of):
                continue
            sources = empty if fly else neighbours[b] & empty
            rest = other & ~(1 << b)
            while sources:
                a = _low(sources)
                sources &= sources - 1
                s = _slot(rest | 1 << a, q, p, cells, ix, pi, pg)
                if _first(s, keys, stamps, slot + 1):
                    parents[found] = s
                    found += 1
                    _prefetch(dst, s)
                    if code == WIN_CODE:
                        _prefetch(dst_count, s)
        for k in range(found):
            s = parents[k]
            w = dst[s]
            held = w & 3
            reached = 0
            if code == LOSS_CODE:
                if held == UNKNOWN_CODE or (held == WIN_CODE and (w >> 2) & DISTANCE_MASK > d + 1):
                    reached = d + 1
                    dst[s] = WIN_CODE | reached << 2
            elif held == UNKNOWN_CODE:
                if shared:
                    left = _decrement(dst_count, s)
                else:
                    left = dst_count[s]
                    dst_count[s] = left - 1
                if left == 1 and not w & DRAWN:
                    reached = max(d, (w >> 2) & DISTANCE_MASK) + 1
                    dst[s] = LOSS_CODE | reached << 2
            if reached:
                top = max(top, reached)
                if shared:
                    _lower(fresh, s // BLOCK, reached)
                elif reached < fresh[s // BLOCK]:
                    fresh[s // BLOCK] = reached
    return passed, top, later


@numba.njit(cache=True)
def _merge_levels(blocks: np.ndarray, later: np.ndarray, src_pending: np.ndarray, fresh: np.ndarray,
                  dst_pending: np.ndarray) -> None:
    """The pending distances after a level: each block passed gets the least distance above the
    level met in it, then every block of the parents' tier the least distance set in it."""
    for i in range(len(blocks)):
        src_pending[blocks[i]] = later[i]
    for b in range(len(fresh)):
        if fresh[b] < dst_pending[b]:
            dst_pending[b] = fresh[b]


@numba.njit(cache=True, parallel=True)
def propagate(
    d: int, p: int, q: int, cells: int, flying: bool, neighbours: np.ndarray, mills_of: np.ndarray, ix: Any,
    src: np.ndarray, src_pending: np.ndarray, dst: np.ndarray, dst_count: np.ndarray, dst_pending: np.ndarray,
    shared: bool = True,
) -> tuple[int, int]:
    """Pass the values of ``T(p, q)`` final at distance ``d`` to their parents in ``T(q, p)``, on numba's threads.

    A parent moved a stone of the child's other side there from a neighbouring
    empty point (from any, flying with three), closing no mill. Only the
    blocks whose least pending distance (``src_pending``, of
    :func:`pending_levels`; ``dst_pending`` follows the values set) is ``d``
    are read, shared out among the threads; a parent's count of undecided
    children is lowered at once for every thread, and a level's values do not
    depend on the order its children are met in, so any number of threads
    gives the same values. Returns how many values were passed and the largest
    distance set.
    """
    blocks = np.flatnonzero(src_pending <= d)
    later = np.empty(len(blocks), dtype=np.int32)
    passed = np.zeros(len(blocks), dtype=np.int64)
    tops = np.zeros(len(blocks), dtype=np.int64)
    fresh = np.full(len(dst_pending), NONE, dtype=np.int32)
    for i in numba.prange(len(blocks)):
        passed[i], tops[i], later[i] = _level_block(
            blocks[i], d, p, q, cells, flying, neighbours, mills_of, ix, src, dst, dst_count, fresh, shared
        )
    _merge_levels(blocks, later, src_pending, fresh, dst_pending)
    return int(passed.sum()), int(tops.max()) if len(tops) else 0


@numba.njit(cache=True)
def finish(value: np.ndarray) -> None:
    """Every value still unknown is a draw."""
    for i in range(len(value)):
        if value[i] & 3 == UNKNOWN_CODE:
            value[i] = DRAW_CODE
