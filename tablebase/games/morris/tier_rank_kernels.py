"""The compiled loop of :class:`tablebase.games.morris.tier_rank.TierRanker`: the same slots, one
loop over the positions, for a process that ranks many times (loading it costs a fresh process
about half a second, numba's import included)."""

from __future__ import annotations

import numba
import numpy as np

from tablebase.games.morris.tier_kernels import _colex, _image


@numba.njit(cache=True)
def rank_each(
    movers: np.ndarray, others: np.ndarray, per: int, perm: np.ndarray, reps: np.ndarray, binom: np.ndarray
) -> np.ndarray:
    """The slot of each ``(movers[i], others[i])`` among ``per`` slots a representative of ``reps``."""
    out = np.empty(len(movers), dtype=np.int64)
    for i in range(len(movers)):
        other, mover = others[i], movers[i]
        rep = other
        for g in range(1, perm.shape[0]):
            rep = min(rep, _image(other, g, perm))
        least = -1
        for g in range(perm.shape[0]):
            if _image(other, g, perm) == rep:
                image = _image(mover, g, perm)
                if least < 0 or image < least:
                    least = image
        out[i] = np.searchsorted(reps, rep) * per + _colex(least, rep, binom)
    return out
