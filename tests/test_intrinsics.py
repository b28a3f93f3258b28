"""Processor instructions for compiled kernels (tablebase.games.common.intrinsics)."""

from __future__ import annotations

import numpy as np
from numba import njit

from tablebase.games.common.intrinsics import prefetch


@njit(cache=False)
def _fetched_sum(flat: np.ndarray, rows: np.ndarray) -> int:
    total = 0
    for i in range(flat.shape[0]):
        prefetch(flat, i)
        prefetch(rows, i)
        total += flat[i] + rows[i, 0] + rows[i, 2]
    return total


def test_a_prefetch_of_a_flat_array_or_of_a_row_changes_nothing_it_reads() -> None:
    flat = np.arange(100, dtype=np.int8)
    rows = np.arange(300, dtype=np.int64).reshape(100, 3)
    before = flat.copy(), rows.copy()
    assert _fetched_sum(flat, rows) == int(flat.sum()) + int(rows[:, 0].sum()) + int(rows[:, 2].sum())
    assert np.array_equal(flat, before[0]) and np.array_equal(rows, before[1])
