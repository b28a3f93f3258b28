"""The children audit of a layered game whose storage hands out sorted plies: each ply against the
next one, where all its children lie (two plies in memory)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

import numpy as np

from tablebase.outcome import NAMES as _NAMES
from tablebase.verify.checks import CHUNK, check_children_arrays, report_rows

if TYPE_CHECKING:
    from tablebase.games.common.kernels import VectorKernels
    from tablebase.progress import Progress
    from tablebase.reader import StoredVariant
    from tablebase.results import VerifyReport


def verify_layers_vector(
    table: StoredVariant,
    kernels: VectorKernels,
    layers: Iterator[tuple[int, np.ndarray, np.ndarray, np.ndarray]],
    report: VerifyReport,
    progress: Progress | None,
) -> None:
    """:func:`~tablebase.verify.children.verify_children` of every state of a layered game whose storage hands out sorted plies:
    each ply is checked against the next one, where all its children lie (two plies in memory)."""
    game = table.game
    total = table.info.states
    current = next(layers, None)
    if current is None:
        report.add("no states stored")
        return
    while current is not None:
        ply, states, outcome, distance = current
        following = next(layers, None)
        if following is not None:
            _, target, t_outcome, t_distance = following
        else:
            target, t_outcome, t_distance = states[:0], outcome[:0], distance[:0]

        def key(i: int, states: np.ndarray = states) -> str:
            return game.format_position(int(states[i]))

        n = states.size
        report.states += n
        report_rows(report, np.flatnonzero(states[1:] <= states[:-1]) + 1, lambda i: f"{key(i)}: stored twice or out of order")
        layer = kernels.layer(states) if n else states
        report_rows(report, np.flatnonzero(layer != ply), lambda i: f"{key(i)}: stored in ply {ply}, rules say {int(layer[i])}")
        for lo in range(0, n, CHUNK):
            part = states[lo : lo + CHUNK]
            result = kernels.outcome(part)
            ends = result != 0
            if table.info.symmetry:
                report_rows(
                    report,
                    lo + np.flatnonzero(kernels.canonical(part) != part),
                    lambda i: f"{key(i)}: stored key is not the canonical form of its class",
                )
            wrong = ends & ((outcome[lo : lo + CHUNK] != result) | (distance[lo : lo + CHUNK] != 0))
            report_rows(
                report,
                lo + np.flatnonzero(wrong),
                lambda i: f"{key(i)}: terminal {_NAMES.get(int(outcome[i]))}/{int(distance[i])},"
                f" rules say {_NAMES[int(result[i - lo])]}/0",
            )
            rows_at = lo + np.flatnonzero(~ends)
            check_children_arrays(
                kernels, table.info.symmetry, states, outcome, distance, rows_at, target, t_outcome, t_distance, key,
                report,
            )
            if progress is not None:
                progress("children", report.states - n + min(n, lo + CHUNK), total)
        current = following
