"""Counter-based retrograde labelling over a state graph in CSR form.

Correct on graphs with cycles: a state is only ever labelled from children
whose labels are final, and what is never labelled is a draw.

* terminal states carry their outcome, distance 0;
* a state with a child lost for the side to move there is won,
  distance 1 + the smallest such child distance;
* a state all of whose children are won (for the opponent) is lost,
  distance 1 + the largest child distance;
* the rest are draws. A draw's distance is 1 + the longest distance among its
  drawn children (0 for a terminal draw); a draw that can go on for ever
  (a cycle of draws) has no distance.

Labels are processed level by level in order of distance, which gives the
winner the fastest win and the loser the slowest loss.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from tablebase.games.common.kernels import DRAW_CODE, LOSS_CODE, UNKNOWN_CODE, WIN_CODE
from tablebase.outcome import CODES as OUTCOME_CODES
from tablebase.outcome import NAMES as OUTCOME_NAMES
from tablebase.outcome import NO_DISTANCE

__all__ = [
    "DRAW_CODE",
    "LOSS_CODE",
    "NO_DISTANCE",
    "OUTCOME_CODES",
    "OUTCOME_NAMES",
    "UNKNOWN_CODE",
    "WIN_CODE",
    "ReverseIndex",
    "label",
    "label_layered",
    "sorted_unique",
]


def _as_index(values: np.ndarray) -> np.ndarray:
    values = np.asarray(values)
    if values.dtype in (np.int32, np.int64):
        return values
    return values.astype(np.int64)


class ReverseIndex:
    """Parents of each state: ``parents[ptr[s]:ptr[s + 1]]`` (with multiplicity)."""

    def __init__(self, n: int, src: np.ndarray, dst: np.ndarray):
        src, dst = _as_index(src), _as_index(dst)
        if n <= 1 << 32:
            # one sort of (dst, src) packed in 64 bits: no index array, no gather
            keys = dst.astype(np.uint64) << np.uint64(32)
            keys |= src.astype(np.uint64)
            keys.sort()
            keys &= np.uint64(0xFFFFFFFF)
            self.parents = keys.astype(src.dtype)
            del keys
        else:
            self.parents = src[np.argsort(dst)]
        self.ptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(dst, minlength=n), out=self.ptr[1:])

    def gather(self, nodes: np.ndarray) -> np.ndarray:
        """The parents of every node in ``nodes``, one entry per edge."""
        return self.gather_pairs(nodes)[0]

    def gather_pairs(self, nodes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(parent, child)`` for every edge into ``nodes``."""
        if nodes.size == 0:
            return np.empty(0, dtype=self.parents.dtype), nodes
        starts = self.ptr[nodes]
        lengths = self.ptr[nodes + 1] - starts
        total = int(lengths.sum())
        if total == 0:
            return np.empty(0, dtype=self.parents.dtype), nodes[:0]
        offsets = np.repeat(starts - np.cumsum(lengths) + lengths, lengths)
        offsets += np.arange(total)
        return self.parents[offsets], np.repeat(nodes, lengths)


def sorted_unique(values: np.ndarray, *, in_place: bool = False) -> np.ndarray:
    """The distinct values, sorted (a plain sort, faster than :func:`np.unique` on large arrays).

    ``in_place`` sorts ``values`` itself instead of a copy (the layered builds' large arrays).
    """
    if values.size <= 1:
        return values if in_place else values.copy()
    if in_place:
        values.sort()
        ordered = values
    else:
        ordered = np.sort(values)
    keep = np.empty(ordered.size, dtype=bool)
    keep[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    return ordered[keep]


def _decrement(counter: np.ndarray, hits: np.ndarray) -> np.ndarray:
    """Subtract one from ``counter`` (``np.intp``) per occurrence in ``hits``; the nodes that reach zero."""
    if hits.size == 0:
        return hits
    hits = hits.astype(np.intp, copy=False)
    np.subtract.at(counter, hits, 1)
    return sorted_unique(hits[counter[hits] == 0])


def label(
    n: int,
    src: np.ndarray,
    dst: np.ndarray,
    terminal: np.ndarray,
    progress: Callable[[int], None] | None = None,
    known_outcome: np.ndarray | None = None,
    known_distance: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Outcome codes (``WIN_CODE``/``LOSS_CODE``/``DRAW_CODE``) and distances (``-1`` = none) of ``n`` states.

    ``src``/``dst`` are the edges (one per legal move; parallel edges allowed),
    ``terminal`` the outcome code of each terminal state and ``UNKNOWN_CODE`` elsewhere.
    ``progress`` is called after each distance level with the number of
    states labelled so far.

    ``known_outcome``/``known_distance`` give the final labels of ``k`` more
    states, numbered ``n .. n + k - 1``, that edges may lead to but that are
    not labelled again (for a layered game: the next layer, labelled before).
    """
    src, dst = _as_index(src), _as_index(dst)
    k = 0 if known_outcome is None else len(known_outcome)
    total = n + k
    terminal = np.asarray(terminal, dtype=np.int8)
    outdeg = np.bincount(src, minlength=total)
    stuck = np.flatnonzero((outdeg[:n] == 0) & (terminal == UNKNOWN_CODE))
    if stuck.size:
        raise ValueError(f"state {int(stuck[0])} has no moves but is not terminal")

    reverse = ReverseIndex(total, src, dst)
    outcome = np.zeros(total, dtype=np.int8)
    distance = np.full(total, NO_DISTANCE, dtype=np.int32)
    decided = (terminal == WIN_CODE) | (terminal == LOSS_CODE)
    outcome[:n][decided] = terminal[decided]
    distance[:n][decided] = 0
    # known states decided as won or lost join the frontier at the level of their distance
    pending = np.empty(0, dtype=np.int64)
    if k:
        assert known_outcome is not None and known_distance is not None
        outcome[n:] = known_outcome
        distance[n:] = known_distance
        pending = n + np.flatnonzero((outcome[n:] == WIN_CODE) | (outcome[n:] == LOSS_CODE))
        pending = pending[np.argsort(distance[pending], kind="stable")]
    # children not yet known to be won; for a draw at the end: its drawn children
    remaining = outdeg.astype(np.intp)
    del outdeg, decided

    frontier = np.flatnonzero(outcome[:n] != UNKNOWN_CODE)
    done = int(frontier.size)
    level = 0
    while frontier.size or pending.size:
        joining = int(np.searchsorted(distance[pending], level, side="right"))
        if joining:
            frontier = np.concatenate([frontier, pending[:joining]])
            pending = pending[joining:]
        codes = outcome[frontier]
        winners = reverse.gather(frontier[codes == LOSS_CODE])
        winners = sorted_unique(winners[outcome[winners] == UNKNOWN_CODE])
        outcome[winners] = WIN_CODE
        distance[winners] = level + 1
        hits = reverse.gather(frontier[codes == WIN_CODE])
        losers = _decrement(remaining, hits[outcome[hits] == UNKNOWN_CODE])
        outcome[losers] = LOSS_CODE
        distance[losers] = level + 1
        frontier = np.concatenate([winners, losers])
        done += int(frontier.size)
        level += 1
        if progress is not None:
            progress(done)

    drawn = outcome == UNKNOWN_CODE
    outcome[drawn] = DRAW_CODE
    # longest drawn line: Kahn's algorithm on the drawn states, whose remaining
    # children are exactly their drawn children (a draw has no lost child); a
    # state is final once all its drawn children are, one longer than the longest
    ready = np.flatnonzero(terminal == DRAW_CODE)
    distance[ready] = 0
    if k:
        ends = n + np.flatnonzero((outcome[n:] == DRAW_CODE) & (distance[n:] != NO_DISTANCE))
        ready = np.concatenate([ready, ends])
    longest = np.full(total, -1, dtype=np.int32)
    while ready.size:
        parents, children = reverse.gather_pairs(ready)
        keep = drawn[parents]
        parents, children = parents[keep].astype(np.intp), children[keep]
        np.maximum.at(longest, parents, distance[children])
        ready = _decrement(remaining, parents)
        distance[ready] = longest[ready] + 1
    if progress is not None:
        progress(n)
    return outcome[:n], distance[:n]


def label_layered(
    ply: np.ndarray,
    src: np.ndarray,
    dst: np.ndarray,
    terminal: np.ndarray,
    progress: Callable[[int], None] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`label` one layer at a time, for games where every move goes from ply ``d`` to ply ``d + 1``.

    States must be sorted by ``ply`` and the edges by ``src``. The last
    layer is labelled first; each layer is then labelled with the next one as
    known states, so only two layers are ever in the labeller at once. The
    labels are those of one :func:`label` call on the whole graph.
    """
    n = len(ply)
    src, dst = _as_index(src), _as_index(dst)
    terminal = np.asarray(terminal, dtype=np.int8)
    outcome = np.zeros(n, dtype=np.int8)
    distance = np.full(n, NO_DISTANCE, dtype=np.int32)
    if n == 0:
        return outcome, distance
    starts = np.flatnonzero(np.diff(ply, prepend=ply[0] - 1)).tolist() + [n]
    bounds = np.searchsorted(src, np.array(starts, dtype=src.dtype)).tolist()
    lo, hi = starts[-2], starts[-1]
    if bounds[-2] != len(src):
        raise ValueError(f"a move leaves the last ply, {int(ply[lo])}")
    outcome[lo:hi], distance[lo:hi] = label(hi - lo, src[:0], dst[:0], terminal[lo:hi])
    done = hi - lo
    if progress is not None:
        progress(done)
    for i in reversed(range(len(starts) - 2)):
        lo, hi, after = starts[i : i + 3]
        first, last = bounds[i], bounds[i + 1]
        if np.any(dst[first:last] < hi) or np.any(dst[first:last] >= after):
            raise ValueError(f"a move from ply {int(ply[lo])} does not lead to the next ply")
        outcome[lo:hi], distance[lo:hi] = label(
            hi - lo,
            src[first:last] - lo,
            dst[first:last] - lo,
            terminal[lo:hi],
            known_outcome=outcome[hi:after],
            known_distance=distance[hi:after],
        )
        done += hi - lo
        if progress is not None:
            progress(done)
    return outcome, distance
