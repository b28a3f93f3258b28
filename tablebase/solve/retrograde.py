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

UNKNOWN, WIN, LOSS, DRAW = 0, 1, 2, 3
OUTCOME_CODES = {"win": WIN, "loss": LOSS, "draw": DRAW}
OUTCOME_NAMES = {WIN: "win", LOSS: "loss", DRAW: "draw"}
NO_DISTANCE = -1


class ReverseIndex:
    """Parents of each state: ``parents[ptr[s]:ptr[s + 1]]`` (with multiplicity)."""

    def __init__(self, n: int, src: np.ndarray, dst: np.ndarray):
        order = np.argsort(dst, kind="stable")
        self.parents = src[order]
        counts = np.bincount(dst, minlength=n)
        self.ptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(counts, out=self.ptr[1:])

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
        return self.parents[offsets + np.arange(total)]


def _decrement(counter: np.ndarray, hits: np.ndarray) -> np.ndarray:
    """Subtract one from ``counter`` per occurrence in ``hits``; the nodes that reach zero."""
    if hits.size == 0:
        return hits
    nodes, counts = np.unique(hits, return_counts=True)
    counter[nodes] -= counts
    return nodes[counter[nodes] == 0]


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
    """
    src = np.asarray(src, dtype=np.int64)
    dst = np.asarray(dst, dtype=np.int64)
    terminal = np.asarray(terminal, dtype=np.int8)
    outdeg = np.bincount(src, minlength=n).astype(np.int64)
    stuck = np.flatnonzero((outdeg == 0) & (terminal == UNKNOWN))
    if stuck.size:
        raise ValueError(f"state {int(stuck[0])} has no moves but is not terminal")

    reverse = ReverseIndex(n, src, dst)
    outcome = np.zeros(n, dtype=np.int8)
    distance = np.full(n, NO_DISTANCE, dtype=np.int32)
    decided = (terminal == WIN) | (terminal == LOSS)
    outcome[decided] = terminal[decided]
    distance[decided] = 0
    remaining = outdeg.copy()

    frontier = np.flatnonzero(decided)
    level = 0
    while frontier.size:
        lost = frontier[outcome[frontier] == LOSS]
        won = frontier[outcome[frontier] == WIN]
        winners = reverse.gather(lost)
        winners = np.unique(winners[outcome[winners] == UNKNOWN])
        outcome[winners] = WIN
        distance[winners] = level + 1
        hits = reverse.gather(won)
        losers = _decrement(remaining, hits[outcome[hits] == UNKNOWN])
        outcome[losers] = LOSS
        distance[losers] = level + 1
        frontier = np.concatenate([winners, losers])
        level += 1
        if progress is not None:
            progress(int(frontier.size))

    drawn = outcome == UNKNOWN
    outcome[drawn] = DRAW
    # longest drawn line: Kahn's algorithm on the subgraph of drawn states
    draw_edges = drawn[src] & drawn[dst]
    pending = np.bincount(src[draw_edges], minlength=n).astype(np.int64)
    draw_reverse = ReverseIndex(n, src[draw_edges], dst[draw_edges])
    frontier = np.flatnonzero(terminal == DRAW)
    distance[frontier] = 0
    level = 0
    while frontier.size:
        ready = _decrement(pending, draw_reverse.gather(frontier))
        distance[ready] = level + 1
        frontier = ready
        level += 1
    return outcome, distance
