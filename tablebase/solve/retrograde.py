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

from tablebase.games.kernels import DRAW, LOSS, UNKNOWN, WIN

OUTCOME_CODES = {"win": WIN, "loss": LOSS, "draw": DRAW}
OUTCOME_NAMES = {WIN: "win", LOSS: "loss", DRAW: "draw"}
NO_DISTANCE = -1

__all__ = ["DRAW", "LOSS", "NO_DISTANCE", "OUTCOME_CODES", "OUTCOME_NAMES", "UNKNOWN", "WIN", "ReverseIndex", "label"]


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
        if nodes.size == 0:
            return np.empty(0, dtype=self.parents.dtype)
        starts = self.ptr[nodes]
        lengths = self.ptr[nodes + 1] - starts
        total = int(lengths.sum())
        if total == 0:
            return np.empty(0, dtype=self.parents.dtype)
        offsets = np.repeat(starts - np.cumsum(lengths) + lengths, lengths)
        offsets += np.arange(total)
        return self.parents[offsets]


def _unique(values: np.ndarray) -> np.ndarray:
    """The distinct values, sorted."""
    if values.size <= 1:
        return values
    values = np.sort(values)
    keep = np.empty(values.size, dtype=bool)
    keep[0] = True
    np.not_equal(values[1:], values[:-1], out=keep[1:])
    return values[keep]


def _decrement(counter: np.ndarray, hits: np.ndarray) -> np.ndarray:
    """Subtract one from ``counter`` (``np.intp``) per occurrence in ``hits``; the nodes that reach zero."""
    if hits.size == 0:
        return hits
    hits = hits.astype(np.intp, copy=False)
    np.subtract.at(counter, hits, 1)
    return _unique(hits[counter[hits] == 0])


def label(
    n: int,
    src: np.ndarray,
    dst: np.ndarray,
    terminal: np.ndarray,
    progress: Callable[[int], None] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Outcome codes (``WIN``/``LOSS``/``DRAW``) and distances (``-1`` = none) of ``n`` states.

    ``src``/``dst`` are the edges (one per legal move; parallel edges allowed),
    ``terminal`` the outcome code of each terminal state and ``UNKNOWN`` elsewhere.
    ``progress`` is called after each distance level with the number of
    states labelled so far.
    """
    src, dst = _as_index(src), _as_index(dst)
    terminal = np.asarray(terminal, dtype=np.int8)
    outdeg = np.bincount(src, minlength=n)
    stuck = np.flatnonzero((outdeg == 0) & (terminal == UNKNOWN))
    if stuck.size:
        raise ValueError(f"state {int(stuck[0])} has no moves but is not terminal")

    reverse = ReverseIndex(n, src, dst)
    outcome = np.zeros(n, dtype=np.int8)
    distance = np.full(n, NO_DISTANCE, dtype=np.int32)
    decided = (terminal == WIN) | (terminal == LOSS)
    outcome[decided] = terminal[decided]
    distance[decided] = 0
    # children not yet known to be won; for a draw at the end: its drawn children
    remaining = outdeg.astype(np.intp)
    del outdeg, decided

    frontier = np.flatnonzero(outcome != UNKNOWN)
    done = int(frontier.size)
    level = 0
    while frontier.size:
        codes = outcome[frontier]
        winners = reverse.gather(frontier[codes == LOSS])
        winners = _unique(winners[outcome[winners] == UNKNOWN])
        outcome[winners] = WIN
        distance[winners] = level + 1
        hits = reverse.gather(frontier[codes == WIN])
        losers = _decrement(remaining, hits[outcome[hits] == UNKNOWN])
        outcome[losers] = LOSS
        distance[losers] = level + 1
        frontier = np.concatenate([winners, losers])
        done += int(frontier.size)
        level += 1
        if progress is not None:
            progress(done)

    drawn = outcome == UNKNOWN
    outcome[drawn] = DRAW
    # longest drawn line: Kahn's algorithm on the drawn states, whose remaining
    # children are exactly their drawn children (a draw has no lost child)
    frontier = np.flatnonzero(terminal == DRAW)
    distance[frontier] = 0
    level = 0
    while frontier.size:
        parents = reverse.gather(frontier)
        ready = _decrement(remaining, parents[drawn[parents]])
        distance[ready] = level + 1
        frontier = ready
        level += 1
    if progress is not None:
        progress(n)
    return outcome, distance
