"""Compiled passes over a solved folded tier: its counts, and the check of every class against its children.

:func:`tally` counts a tier ``T(m, n)``'s classes and positions (a class's
positions: its images under the board's symmetries, each with either side
to move, the colours exchanged) by outcome. :func:`check_tier` derives
every class's value anew from the rules and its children's stored values
(those in ``T(n, m)`` and, after a mill, in ``T(n - 1, m)``) and marks the
slots that disagree. Both run on numba's threads, the representatives of
the other side's stones shared out in blocks.

The values are derived by :func:`tablebase.games.morris.tier_kernels.derive_reps`,
the derivation a tier's solving starts from, given the children's values
this time; numba's cache does not follow calls into other modules, so a
change there (or to the game's removal rule) wants this module's cache
cleared too.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from tablebase.games.common.kernels import LOSS_CODE, WIN_CODE
from tablebase.games.morris.tier_kernels import UNUSED, _deposit, _image, _next_colex, derive_reps

#: Representatives a block of the parallel passes holds at most.
_BLOCKS = 1024


@numba.njit(cache=True)
def _tally_reps(first: int, last: int, m: int, n: int, cells: int, ix: Any, value: np.ndarray, out: np.ndarray) -> None:
    perm, stabs, reps, rep_start, binom = ix[0], ix[5], ix[3], ix[4], ix[6]
    per = binom[cells - n, m]
    syms = perm.shape[0]
    for i in range(first, last):
        other = reps[rep_start[n] + i]
        stab = stabs[rep_start[n] + i]
        comp = (1 << m) - 1
        for k in range(per):
            if k:
                comp = _next_colex(comp)
            v = value[i * per + k]
            if v == UNUSED:
                continue
            orbit = syms
            if stab != 1:
                mover = _deposit(comp, other, cells)
                kept = 0
                for h in range(syms):
                    if stab >> h & 1 and _image(mover, h, perm) == mover:
                        kept += 1
                orbit = syms // kept
            code = v & 3
            out[0] += 2 * orbit
            out[1] += 1
            if code == WIN_CODE:
                out[2] += 1
                out[6] += 2 * orbit
            elif code == LOSS_CODE:
                out[3] += 1
                out[7] += 2 * orbit
                if v >> 2 == 0:
                    out[5] += 1
            else:
                out[4] += 1
                out[8] += 2 * orbit


@numba.njit(cache=True, parallel=True)
def tally(m: int, n: int, cells: int, ix: Any, value: np.ndarray) -> np.ndarray:
    """``[positions, classes, won, lost, drawn, terminal, positions won, lost, drawn]`` of ``T(m, n)``
    holding ``value`` (positions with either side to move)."""
    total = ix[4][n + 1] - ix[4][n]
    blocks = max(1, min(total, _BLOCKS))
    parts = np.zeros((blocks, 9), dtype=np.int64)
    for b in numba.prange(blocks):
        _tally_reps(b * total // blocks, (b + 1) * total // blocks, m, n, cells, ix, value, parts[b])
    sums: np.ndarray = parts.sum(axis=0)
    return sums


@numba.njit(cache=True, parallel=True)
def check_tier(
    m: int, n: int, cells: int, flying: bool, neighbours: np.ndarray, mills: np.ndarray, mills_of: np.ndarray,
    ix: Any, value: np.ndarray, across: np.ndarray, lower: np.ndarray, lower_lost: bool,
) -> np.ndarray:
    """Whether each slot of ``T(m, n)`` holding ``value`` disagrees with the rules and its children:
    ``across`` the values of ``T(n, m)``, ``lower`` those of ``T(n - 1, m)`` (every position there lost
    at 0 when ``lower_lost``)."""
    total = ix[4][n + 1] - ix[4][n]
    bad = np.zeros(len(value), dtype=np.uint8)
    blocks = max(1, min(total, _BLOCKS))
    for b in numba.prange(blocks):
        derive_reps(
            b * total // blocks, (b + 1) * total // blocks, m, n, cells, flying, neighbours, mills, mills_of, ix,
            lower, lower_lost, across, True, value, bad,
        )
    return bad
