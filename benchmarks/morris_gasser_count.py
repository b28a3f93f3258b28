"""Nine Men's Morris: the movement-phase positions up to symmetry, and those their mills show cannot arise.

Gasser's 28 databases (3 to 9 stones a side, both hands empty) hold
7,673,759,269 positions up to the board's 16 symmetries; every colouring of
the board with the side to move's ``m`` stones and the other side's ``n``
(both 3..9), folded by the symmetries and the exchange of colours, is
8,904,593,601 (Burnside's count; the tiers ``tablebase build morris-9
--stones 9`` stores). This counts, tier by tier, the positions that no game
reaches because of their mills, and what is left.

The rule: a mill on the board was closed by a move, and every closing
removed one stone of the opponent; one move closes at most the two mills
through the point it fills. So a side's mills took at least ``h`` closings,
``h`` the fewest of its stones that meet every one of its mills (0 to 3 with
at most 9 stones), and the opponent, who started with 9, lost at least ``h``
stones. A position where the side to move's mills need more closings than
the other side has lost (``9 - n``), or the other side's more than the side
to move has lost (``9 - m``), cannot arise: with 9 stones against 9 no mill
can stand on the board at all. Counted by Burnside's lemma with the rule
applied to the colourings each symmetry fixes (the rule is invariant under
the symmetries); the identity's term by inclusion and exclusion over the
mills where one side may hold none.

    python benchmarks/morris_gasser_count.py          # about a minute, one core
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path

import numpy as np
from numba import njit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tablebase.games.morris.board import NINE  # noqa: E402
from tablebase.games.morris.kernels import _popcount  # noqa: E402

#: Gasser's total for his 28 databases (R. Gasser, "Solving Nine Men's Morris", Games of No Chance, 1996).
GASSER = 7_673_759_269
FULL = (1 << 24) - 1
STONES = range(3, 10)


@njit(cache=True)
def _inside(points: int, mills: np.ndarray) -> tuple[np.ndarray, int]:
    """The mills all of whose points are among ``points``: an array and how many of its first items they are."""
    inside = np.empty(16, np.int64)
    k = 0
    for i in range(mills.shape[0]):
        if points & mills[i] == mills[i]:
            inside[k] = mills[i]
            k += 1
    return inside, k


@njit(cache=True)
def _closable(stones: int, moves: int, mills: np.ndarray) -> bool:
    """Whether the mills among ``stones`` can have been closed by at most ``moves`` moves."""
    inside, k = _inside(stones, mills)
    if k == 0:
        return True
    if moves <= 0:
        return False
    if moves >= 3:
        return True
    for p in range(24):
        if stones >> p & 1 and _meets(inside, k, 1 << p):
            return True
    if moves == 1:
        return False
    for p in range(24):
        for q in range(p + 1, 24):
            if stones >> p & 1 and stones >> q & 1 and _meets(inside, k, 1 << p | 1 << q):
                return True
    return False


@njit(cache=True)
def _meets(mills: np.ndarray, k: int, points: int) -> bool:
    """Whether each of the first ``k`` mills holds one of ``points``."""
    for i in range(k):
        if not mills[i] & points:
            return False
    return True


@njit(cache=True)
def closings_needed(mills: np.ndarray) -> np.ndarray:
    """For every set of at most 9 of the 24 points, the fewest moves that closed its mills (0 to 3)."""
    out = np.zeros(1 << 24, np.uint8)
    for s in range(1 << 24):
        if _popcount(s) <= 9:
            for moves in range(4):
                if _closable(s, moves, mills):
                    out[s] = moves
                    break
    return out


@njit(cache=True)
def _sets(size: int, least: int, needed: np.ndarray) -> np.ndarray:
    """The sets of ``size`` points whose mills need at least ``least`` closings."""
    count = 0
    for s in range(1 << 24):
        if needed[s] >= least and _popcount(s) == size:
            count += 1
    out = np.empty(count, np.int64)
    j = 0
    for s in range(1 << 24):
        if needed[s] >= least and _popcount(s) == size:
            out[j] = s
            j += 1
    return out


@njit(cache=True)
def _with_mill(free: int, k: int, mills: np.ndarray, binom: np.ndarray) -> int:
    """The ``k``-subsets of the points of ``free`` that hold a mill (inclusion and exclusion over the mills in ``free``)."""
    inside, q = _inside(free, mills)
    size = _popcount(free)
    total = 0
    for code in range(1, 1 << q):
        union = 0
        for i in range(q):
            if code >> i & 1:
                union |= inside[i]
        c = _popcount(union)
        if c <= k:
            term = binom[size - c, k - c]
            total += term if _popcount(code) % 2 == 1 else -term
    return total


@njit(cache=True)
def _raw_unreachable(m: int, n: int, needed: np.ndarray, most: np.ndarray, mills: np.ndarray, binom: np.ndarray) -> int:
    """Disjoint (mover's ``m`` stones, other's ``n``), unfolded, that their mills rule out."""
    mine = _sets(m, 9 - n + 1, needed) if most[m] > 9 - n else np.empty(0, np.int64)
    theirs = _sets(n, 9 - m + 1, needed) if most[n] > 9 - m else np.empty(0, np.int64)
    total = mine.shape[0] * binom[24 - m, n] + theirs.shape[0] * binom[24 - n, m]
    both = 0
    if mine.shape[0] and theirs.shape[0]:
        if m == 9:  # the other side may hold no mill
            for a in mine:
                both += _with_mill(FULL & ~a, n, mills, binom)
        elif n == 9:
            for b in theirs:
                both += _with_mill(FULL & ~b, m, mills, binom)
        else:
            for a in mine:
                for b in theirs:
                    if not a & b:
                        both += 1
    return total - both


@njit(cache=True)
def _fixed(mine: np.ndarray, theirs: np.ndarray, m: int, n: int, needed: np.ndarray, ruled_out: bool) -> int:
    """Disjoint pairs of ``mine`` x ``theirs`` (unions of one symmetry's cycles), only those ruled out if ``ruled_out``."""
    total = 0
    for a in mine:
        for b in theirs:
            if not a & b and (not ruled_out or needed[b] > 9 - m or needed[a] > 9 - n):
                total += 1
    return total


def _cycle_unions(permutation: tuple[int, ...]) -> dict[int, np.ndarray]:
    """Every union of the permutation's cycles (as point masks), by its number of points."""
    seen: set[int] = set()
    cycles = []
    for i in range(24):
        mask, j = 0, i
        while j not in seen:
            seen.add(j)
            mask |= 1 << j
            j = permutation[j]
        if mask:
            cycles.append(mask)
    by_size: dict[int, list[int]] = {}
    for code in range(1 << len(cycles)):
        mask = 0
        for i, cycle in enumerate(cycles):
            if code >> i & 1:
                mask |= cycle
        by_size.setdefault(mask.bit_count(), []).append(mask)
    return {size: np.array(masks, np.int64) for size, masks in by_size.items()}


def main() -> None:
    mills = np.array(NINE.mills, np.int64)
    binom = np.array([[math.comb(a, b) for b in range(25)] for a in range(25)], np.int64)
    started = time.perf_counter()
    needed = closings_needed(mills)
    most = np.zeros(25, np.int64)
    for size in range(10):
        most[size] = int(needed[_sets(size, 0, needed)].max())
    others = [_cycle_unions(p) for p in NINE.symmetries if list(p) != list(range(24))]
    print(f"closings a set of stones needs, most by stones 0..9: {most[:10].tolist()} ({time.perf_counter() - started:.1f} s)")
    print(f"{'tier':>5} {'classes':>14} {'ruled out':>14} {'left':>14}")
    total = ruled = 0
    for m in STONES:
        for n in STONES:
            all_raw = math.comb(24, m) * math.comb(24 - m, n)
            out_raw = _raw_unreachable(m, n, needed, most, mills, binom)
            for unions in others:
                if m in unions and n in unions:
                    all_raw += _fixed(unions[m], unions[n], m, n, needed, False)
                    out_raw += _fixed(unions[m], unions[n], m, n, needed, True)
            assert all_raw % 16 == 0 and out_raw % 16 == 0
            classes, out = all_raw // 16, out_raw // 16
            total += classes
            ruled += out
            print(f"{m}-{n:<3} {classes:>14,} {out:>14,} {classes - out:>14,}", flush=True)
    left = total - ruled
    print(f"all {total:,}; ruled out by their mills {ruled:,}; left {left:,}")
    print(f"Gasser {GASSER:,}: {left - GASSER:,} ({(left - GASSER) / GASSER:.4%}) fewer than left ({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
