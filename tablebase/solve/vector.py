"""Forward enumeration on arrays: the state graph of a game with vector kernels.

The walk is breadth first, one layer (all states first reached after ``d``
moves) at a time. Each layer is a sorted array of unique ``np.uint64``
states; its non-terminal states are expanded in chunks of at most
:data:`CHUNK` parents (children, then canonical forms when symmetry
reduction is on), and the next layer is the sorted set of their children
minus what was seen before (one sort per layer, which also links every edge
to its child). State indices are positions in the concatenation of the
layers, so state 0 is the start and the edges come out sorted by their
source.

For :attr:`~tablebase.games.common.kernels.VectorKernels.layered` games (placement
games) every child of layer ``d`` lies in layer ``d + 1``: nothing before
the next layer needs to be looked up, so memory holds only the layers being
linked. Other games keep one sorted index of every state seen so far.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterator

import numpy as np

from tablebase.games.common.kernels import UNKNOWN_CODE, VectorKernels
from tablebase.solve.retrograde import sorted_unique

if TYPE_CHECKING:
    from tablebase.progress import Progress

#: Parents expanded at once; bounds the temporary arrays of one expansion step.
CHUNK = 1 << 13


@dataclass
class Layer:
    """One breadth-first layer: its states and the edges leaving them.

    ``src`` indexes into ``states``; ``dst`` is a global state index (the
    position in the concatenation of all layers) once the layer is linked.
    """

    depth: int
    offset: int
    states: np.ndarray
    terminal: np.ndarray
    src: np.ndarray
    move: np.ndarray
    dst: np.ndarray


def _index_dtype(limit: int) -> type[np.signedinteger]:
    return np.int32 if limit < np.iinfo(np.int32).max else np.int64


class _SeenIndex:
    """Every state met so far, sorted, with its global index (for games that are not layered)."""

    def __init__(self, states: np.ndarray):
        self.keys = states.copy()
        self.index = np.arange(len(states), dtype=np.int64)

    def find(self, states: np.ndarray) -> np.ndarray:
        """Global index of each state, ``-1`` where it was not seen."""
        pos = np.searchsorted(self.keys, states)
        pos[pos == len(self.keys)] = 0
        hit = self.keys[pos] == states
        return np.where(hit, self.index[pos], -1)

    def add(self, states: np.ndarray, first: int) -> None:
        """Record ``states`` (sorted, unseen) with indices ``first, first + 1, ...``."""
        keys = np.concatenate([self.keys, states])
        index = np.concatenate([self.index, np.arange(first, first + len(states), dtype=np.int64)])
        order = np.argsort(keys, kind="stable")
        self.keys, self.index = keys[order], index[order]


def unique_inverse(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(distinct values sorted, index of each value among them)``, by one argsort."""
    order = np.argsort(values)
    ordered = values[order]
    first = np.empty(ordered.size, dtype=bool)
    first[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    inverse = np.empty(values.size, dtype=np.int64)
    inverse[order] = np.cumsum(first) - 1
    return ordered[first], inverse


def _expand(
    kernels: VectorKernels, states: np.ndarray, live: np.ndarray, symmetry: bool, chunk: int
) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """``(parent, move, child)`` per chunk of the ``live`` states, children canonical when ``symmetry``."""
    for lo in range(0, live.size, chunk):
        parents = live[lo : lo + chunk]
        parent, move, child = kernels.children(states[parents])
        if symmetry:
            child = kernels.canonical(child)
        yield parents[parent], move, child


def layers(
    kernels: VectorKernels,
    start: int,
    symmetry: bool,
    edges: bool = True,
    chunk: int = CHUNK,
) -> Iterator[Layer]:
    """The breadth-first layers of the game from ``start``, each linked to the next.

    With ``edges=False`` only states and terminal codes are produced (a
    counting pass, which keeps no edges); ``src``, ``move`` and ``dst`` are
    then empty.
    """
    current = np.array([start], dtype=np.uint64)
    if symmetry:
        current = kernels.canonical(current)
    seen = None if kernels.layered else _SeenIndex(current)
    offset, depth = 0, 0
    empty = np.empty(0, dtype=np.uint64)
    while current.size:
        terminal = kernels.outcome(current)
        live = np.flatnonzero(terminal == UNKNOWN_CODE)
        following = offset + current.size
        src: np.ndarray = np.empty(0, dtype=np.int64)
        move: np.ndarray = np.empty(0, dtype=np.int16)
        dst: np.ndarray = np.empty(0, dtype=np.int64)
        if not edges:
            found = [sorted_unique(child) for _, _, child in _expand(kernels, current, live, symmetry, chunk)]
            reached = sorted_unique(np.concatenate(found)) if found else empty
            del found
            if seen is not None:
                reached = reached[seen.find(reached) < 0]
                seen.add(reached, following)
            upcoming = reached
        else:
            parts = list(_expand(kernels, current, live, symmetry, chunk))
            if parts:
                src = np.concatenate([p for p, _, _ in parts])
                move = np.concatenate([m for _, m, _ in parts])
                kids = np.concatenate([c for _, _, c in parts])
                del parts
                reached, inverse = unique_inverse(kids)
                if seen is None:
                    upcoming = reached
                    dst = inverse + following
                else:
                    upcoming = reached[seen.find(reached) < 0]
                    seen.add(upcoming, following)
                    dst = seen.find(reached)[inverse]
                del kids, inverse, reached
            else:
                upcoming = empty
        index_type = _index_dtype(following + upcoming.size)
        yield Layer(depth, offset, current, terminal, src.astype(index_type), move, dst.astype(index_type))
        offset = following
        current = upcoming
        depth += 1


def enumerate_vector(
    game_kernels: VectorKernels, start: int, symmetry: bool, progress: Progress | None = None, chunk: int = CHUNK
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every reachable state with its edges: ``(states, ply, terminal, src, move, dst)``.

    ``src`` and ``dst`` are global state indices, sorted by ``src``.
    """
    states, ply, terminal, src, move, dst = [], [], [], [], [], []
    total = 0
    for layer in layers(game_kernels, start, symmetry, edges=True, chunk=chunk):
        states.append(layer.states)
        ply.append(np.full(layer.states.size, layer.depth, dtype=np.int32))
        terminal.append(layer.terminal)
        src.append(layer.src + np.asarray(layer.offset, dtype=layer.src.dtype))
        move.append(layer.move)
        dst.append(layer.dst)
        total += layer.states.size
        if progress is not None:
            progress("enumerate", total, None)
    index_type = _index_dtype(total)
    return (
        np.concatenate(states),
        np.concatenate(ply),
        np.concatenate(terminal),
        np.concatenate(src).astype(index_type, copy=False),
        np.concatenate(move),
        np.concatenate(dst).astype(index_type, copy=False),
    )


@dataclass(frozen=True)
class LayerCount:
    """Counts of one layer: states stored, positions they stand for, terminal states."""

    depth: int
    states: int
    positions: int
    classes: int
    terminal: int


def count_layers(
    kernels: VectorKernels, start: int, symmetry: bool, progress: Progress | None = None, chunk: int = CHUNK
) -> list[LayerCount]:
    """Per-layer counts of positions and symmetry classes, without edges or labels.

    With symmetry reduction the layer holds one state per class and the
    positions are the sum of the orbit sizes; without, it holds every
    position and the classes are the states that are their own canonical form.
    """
    out = []
    total = 0
    for layer in layers(kernels, start, symmetry, edges=False, chunk=chunk):
        n = int(layer.states.size)
        if symmetry:
            positions = sum(int(kernels.orbit_sizes(layer.states[lo : lo + chunk]).sum()) for lo in range(0, n, chunk))
            classes = n
        else:
            positions = n
            classes = sum(
                int(np.count_nonzero(kernels.canonical(part) == part))
                for part in (layer.states[lo : lo + chunk] for lo in range(0, n, chunk))
            )
        out.append(LayerCount(layer.depth, n, positions, classes, int(np.count_nonzero(layer.terminal != UNKNOWN_CODE))))
        total += n
        if progress is not None:
            progress("count", total, None)
    return out
