"""Chunked, out-of-core solving of layered games (placement games: one layer per mark count).

Every move of a :attr:`~tablebase.games.common.kernels.VectorKernels.layered` game
adds one to the layer, so the children of layer ``d`` all lie in layer
``d + 1``. The build uses that twice:

* **forward**: layer ``d + 1`` is the set of canonical children of the live
  states of layer ``d``. Parents are expanded in chunks; each chunk's
  children are canonicalised, sorted, deduplicated and cut by value ranges
  (splitters sampled from the layer) into one file per bucket. Each bucket is
  then deduplicated on its own into a part of the layer; the parts, in
  order, are the sorted layer, without ever holding all of its children at once.
* **backward**: the labels of layer ``d`` depend only on layer ``d + 1``.
  Children are recomputed (never stored), canonicalised and looked up with
  :func:`numpy.searchsorted` in the next layer's sorted keys (memory-mapped);
  each parent's label is a maximum over its children's scores
  (:func:`numpy.maximum.reduceat`). This is the rule of
  :func:`tablebase.solve.retrograde.label` on an acyclic layered graph:
  fastest win, slowest loss, longest drawn line.

Finished layers live in the build directory as raw little-endian files
(``states-D.u64``, ``outcome-D.i8``, ``distance-D.i16``) next to a
``manifest.json`` that records what is finished; a build started again on
the same directory resumes after the last finished layer. Expanding a chunk,
merging a bucket and labelling a chunk are tasks that read and write their
own files and return only counts, run by an executor
(:mod:`tablebase.solve.executor`): this process, local worker processes, or
the workers of a Dask cluster, given a build directory they all reach (a
shared folder, or an fsspec URL such as ``s3://bucket/dir``). The results do
not depend on the chunk size, the executor or the number of workers.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from tablebase.errors import BuildError
from tablebase.games.common.kernels import DRAW_CODE, LOSS_CODE, UNKNOWN_CODE, WIN_CODE, VectorKernels
from tablebase.progress import report_where
from tablebase.solve.build_dir import BuildDir
from tablebase.solve.executor import Executor, executor_for
from tablebase.solve.retrograde import OUTCOME_NAMES, sorted_unique

if TYPE_CHECKING:
    from tablebase.games.base import Game
    from tablebase.progress import Progress

#: Parents per chunk by default (about 10 children each: a few hundred MB of temporaries).
CHUNK = 1 << 20
#: Largest bucket merged in memory, in children (before deduplication across chunks).
BUCKET = 1 << 26
FORMAT = 1
MANIFEST = "manifest.json"

# Scores of a child for the parent's choice, distances below 2**15: a lost child at
# distance d scores _WIN_BASE - d, a drawn one _DRAW_BASE + d, a won one d.
_WIN_BASE = 1 << 30
_DRAW_BASE = 1 << 15


@dataclass
class LayerInfo:
    """Counts of one finished layer."""

    depth: int
    states: int
    positions: int
    classes: int
    terminal: int
    #: Positions won, lost and drawn for the side to move, once the layer is labelled.
    outcomes: list[int] | None = None


@dataclass
class Manifest:
    """What the build directory holds, and how far the build got."""

    game: str
    symmetry: bool
    layers: list[LayerInfo] = field(default_factory=list)
    forward_done: bool = False
    labelled: list[int] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)
    #: per layer, the children written to bucket files (each chunk's distinct children): the forward shuffle
    spilled: dict[int, int] = field(default_factory=dict)
    format: int = FORMAT

    def to_json(self) -> dict[str, Any]:
        return {
            "format": self.format,
            "game": self.game,
            "symmetry": self.symmetry,
            "layers": [vars(layer) for layer in self.layers],
            "forward_done": self.forward_done,
            "labelled": sorted(self.labelled),
            "seconds": self.seconds,
            "spilled": {str(depth): count for depth, count in self.spilled.items()},
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Manifest:
        return cls(
            game=data["game"],
            symmetry=data["symmetry"],
            layers=[LayerInfo(**layer) for layer in data["layers"]],
            forward_done=data["forward_done"],
            labelled=list(data["labelled"]),
            seconds=dict(data.get("seconds", {})),
            spilled={int(depth): count for depth, count in data.get("spilled", {}).items()},
            format=data.get("format", 0),
        )


class LayerDir(BuildDir):
    """The build directory of a chunked build: its manifest and the files of its finished layers."""

    def load_manifest(self) -> Manifest | None:
        if not self.exists(MANIFEST):
            return None
        return Manifest.from_json(json.loads(self.read(MANIFEST, np.uint8).tobytes().decode()))

    def save_manifest(self, manifest: Manifest) -> None:
        self.write(MANIFEST, np.frombuffer(json.dumps(manifest.to_json(), indent=1).encode(), dtype=np.uint8))

    def states(self, depth: int) -> np.ndarray:
        """The sorted states of a finished layer (memory-mapped)."""
        return self.map(_states(depth), np.uint64)

    def outcome(self, depth: int) -> np.ndarray:
        return self.map(_outcome(depth), np.int8)

    def distance(self, depth: int) -> np.ndarray:
        return self.map(_distance(depth), np.int16)


def _states(depth: int) -> str:
    return f"states-{depth}.u64"


def _outcome(depth: int) -> str:
    return f"outcome-{depth}.i8"


def _distance(depth: int) -> str:
    return f"distance-{depth}.i16"


def _canon(kernels: VectorKernels, states: np.ndarray, symmetry: bool) -> np.ndarray:
    return kernels.canonical(states) if symmetry else np.asarray(states, dtype=np.uint64)


def expand_chunk(kernels: VectorKernels, parents: np.ndarray, symmetry: bool) -> np.ndarray:
    """The sorted distinct canonical children of the live states among ``parents``."""
    parents = np.asarray(parents, dtype=np.uint64)
    live = parents[kernels.outcome(parents) == UNKNOWN_CODE]
    if live.size == 0:
        return np.empty(0, dtype=np.uint64)
    child = kernels.children(live)[2]
    return sorted_unique(_canon(kernels, child, symmetry), in_place=True)


def label_chunk(
    kernels: VectorKernels,
    parents: np.ndarray,
    symmetry: bool,
    next_states: np.ndarray,
    next_outcome: np.ndarray,
    next_distance: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Outcome codes and distances of ``parents`` from the labels of the next layer."""
    parents = np.asarray(parents, dtype=np.uint64)
    terminal = kernels.outcome(parents)
    outcome = terminal.astype(np.int8)
    distance = np.zeros(parents.size, dtype=np.int16)
    live = np.flatnonzero(terminal == UNKNOWN_CODE)
    if live.size == 0:
        return outcome, distance
    parent, _, child = kernels.children(parents[live])
    child = _canon(kernels, child, symmetry)
    order = np.argsort(child)
    ordered = child[order]
    del child
    pos = np.searchsorted(next_states, ordered)
    if pos.size and (pos.max() >= next_states.size or not np.array_equal(next_states[pos], ordered)):
        raise RuntimeError("a child is missing from the next layer: the build directory is inconsistent")
    del ordered
    code = next_outcome[pos]
    d = next_distance[pos].astype(np.int32)
    score_sorted = np.where(code == LOSS_CODE, _WIN_BASE - d, np.where(code == DRAW_CODE, _DRAW_BASE + d, d))
    del pos, code, d
    score = np.empty_like(score_sorted)
    score[order] = score_sorted
    del order, score_sorted
    starts = np.flatnonzero(np.r_[True, parent[1:] != parent[:-1]])
    best = np.maximum.reduceat(score, starts)
    won = best > _WIN_BASE - _DRAW_BASE
    drawn = ~won & (best >= _DRAW_BASE)
    lost = ~won & ~drawn
    out_live = np.where(won, WIN_CODE, np.where(drawn, DRAW_CODE, LOSS_CODE)).astype(np.int8)
    d_live = np.where(won, _WIN_BASE - best, np.where(drawn, best - _DRAW_BASE, best)) + 1
    del lost
    outcome[live] = out_live
    distance[live] = d_live.astype(np.int16)
    return outcome, distance


# -- tasks (run by the executor: here, in worker processes or on cluster workers) ----------


@dataclass(frozen=True)
class Job:
    """What every task of one build needs: the game's name, symmetry, where the files are,
    and a token naming the build (so that workers never reuse another build's cached layer)."""

    game: str
    symmetry: bool
    location: str
    token: str

    def kernels(self) -> VectorKernels:
        found = _KERNELS.get(self.game)
        if found is None:
            from tablebase import games

            vector = games.get(self.game).vector
            assert vector is not None
            found = _KERNELS[self.game] = vector
        return found


_KERNELS: dict[str, VectorKernels] = {}


def _remember(name: str, kernels: VectorKernels) -> None:
    _KERNELS[name] = kernels


def _spill(depth: int) -> str:
    return f"spill-{depth}"


def _labels(depth: int) -> str:
    return f"labels-{depth}"


def _expand_task(job: Job, depth: int, index: int, lo: int, hi: int) -> list[int]:
    """Expand parents ``lo:hi`` of layer ``depth`` into one file per bucket; the count per bucket."""
    bdir = LayerDir(job.location)
    found = expand_chunk(job.kernels(), bdir.read(_states(depth), np.uint64, lo, hi), job.symmetry)
    spill = _spill(depth + 1)
    splitters = bdir.read(f"{spill}/splitters.u64", np.uint64)
    counts = []
    for b, piece in enumerate(np.split(found, np.searchsorted(found, splitters))):
        if piece.size:
            bdir.write(f"{spill}/{index}-{b}.u64", piece)
        counts.append(int(piece.size))
    return counts


def _merge_task(job: Job, depth: int, bucket: int, chunks: list[int]) -> tuple[int, int, int, int]:
    """Merge the pieces of one bucket into a sorted part of layer ``depth``; its counts."""
    bdir = LayerDir(job.location)
    spill = _spill(depth)
    pieces = [bdir.read(f"{spill}/{i}-{bucket}.u64", np.uint64) for i in chunks]
    values = sorted_unique(np.concatenate(pieces), in_place=True) if pieces else np.empty(0, dtype=np.uint64)
    del pieces
    bdir.write(f"{spill}/part-{bucket}.u64", values)
    info = _counts(job.kernels(), depth, values, job.symmetry, CHUNK)
    return info.states, info.positions, info.classes, info.terminal


_NEXT: tuple[str, int, np.ndarray, np.ndarray, np.ndarray] | None = None


def _next_layer(job: Job, bdir: LayerDir, depth: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """States (mapped), outcome codes and distances of layer ``depth``, kept for the next task."""
    global _NEXT
    if _NEXT is None or _NEXT[:2] != (job.token, depth):
        if _NEXT is not None:
            for name in (_states(_NEXT[1]), _outcome(_NEXT[1]), _distance(_NEXT[1])):
                bdir.drop_copy(name)
        _NEXT = None
        _NEXT = (job.token, depth, bdir.states(depth), np.array(bdir.outcome(depth)), np.array(bdir.distance(depth)))
    return _NEXT[2], _NEXT[3], _NEXT[4]


def _label_task(job: Job, depth: int, index: int, lo: int, hi: int, last: bool) -> tuple[int, list[int]]:
    """Label parents ``lo:hi`` of layer ``depth`` from the labels of the next layer into two files;
    returns how many there were and the positions they stand for won, lost and drawn."""
    bdir = LayerDir(job.location)
    kernels = job.kernels()
    parents = bdir.read(_states(depth), np.uint64, lo, hi)
    if last:
        # nothing follows: every state is terminal
        outcome = kernels.outcome(parents).astype(np.int8)
        if np.any(outcome == UNKNOWN_CODE):
            raise RuntimeError(f"layer {depth} is the last but has states with moves")
        distance = np.zeros(parents.size, dtype=np.int16)
    else:
        outcome, distance = label_chunk(kernels, parents, job.symmetry, *_next_layer(job, bdir, depth + 1))
    folder = _labels(depth)
    bdir.write(f"{folder}/{index}.i8", outcome)
    bdir.write(f"{folder}/{index}.i16", distance)
    weights = kernels.orbit_sizes(parents) if job.symmetry else np.ones(parents.size)
    counts = np.bincount(outcome, weights=weights, minlength=DRAW_CODE + 1)
    return int(parents.size), [int(round(counts[code])) for code in (WIN_CODE, LOSS_CODE, DRAW_CODE)]


# -- the build -------------------------------------------------------------------


def _chunks(n: int, chunk: int) -> list[tuple[int, int]]:
    return [(lo, min(n, lo + chunk)) for lo in range(0, n, chunk)]


def _counts(kernels: VectorKernels, depth: int, states: np.ndarray, symmetry: bool, chunk: int) -> LayerInfo:
    positions = classes = terminal = 0
    for lo, hi in _chunks(states.size, chunk):
        part = np.array(states[lo:hi])
        terminal += int(np.count_nonzero(kernels.outcome(part) != UNKNOWN_CODE))
        if symmetry:
            positions += int(kernels.orbit_sizes(part).sum())
        else:
            classes += int(np.count_nonzero(kernels.canonical(part) == part))
    n = int(states.size)
    if symmetry:
        classes = n
    else:
        positions = n
    return LayerInfo(depth, n, positions, classes, terminal)


#: Parents sampled to choose the buckets of the next layer, in blocks spread over the layer.
SAMPLE = 1 << 14
SAMPLE_BLOCKS = 64


def _sample(bdir: LayerDir, depth: int, n: int) -> np.ndarray:
    if n <= SAMPLE:
        return bdir.read(_states(depth), np.uint64)
    width = SAMPLE // SAMPLE_BLOCKS
    starts = np.linspace(0, n - width, SAMPLE_BLOCKS).astype(np.int64)
    return np.concatenate([bdir.read(_states(depth), np.uint64, int(s), int(s) + width) for s in starts])


def _forward_layer(
    job: Job, bdir: LayerDir, executor: Executor, depth: int, chunk: int, bucket: int, progress: Progress | None
) -> tuple[LayerInfo | None, int]:
    """Write layer ``depth + 1`` from layer ``depth``; its counts (None when it is empty) and the
    number of children spilled to bucket files."""
    kernels = job.kernels()
    n = bdir.count(_states(depth), np.uint64)
    # the number of buckets from a sample's children per parent; splitters from its children
    sample = _sample(bdir, depth, n)
    sample_children = expand_chunk(kernels, sample, job.symmetry)
    per_parent = (kernels.children(sample[kernels.outcome(sample) == UNKNOWN_CODE])[0].size + 1) / max(1, sample.size)
    buckets = max(1, -(-(int(per_parent * n) + 1) // bucket))
    if buckets > 1 and sample_children.size:
        splitters = np.quantile(sample_children, np.linspace(0, 1, buckets + 1)[1:-1], method="nearest")
        splitters = np.unique(splitters.astype(np.uint64))
    else:
        splitters = np.empty(0, dtype=np.uint64)
    spill = _spill(depth + 1)
    bdir.remove(spill)
    bdir.makedirs(spill)
    bdir.write(f"{spill}/splitters.u64", splitters)
    tasks = [(job, depth, i, lo, hi) for i, (lo, hi) in enumerate(_chunks(n, chunk))]
    holders: list[list[int]] = [[] for _ in range(splitters.size + 1)]
    phase = f"layer {depth + 1} enumerate"
    done = spilled = 0
    if progress is not None:
        progress(phase, 0, n)
    for task, counts in zip(tasks, executor.map(_expand_task, tasks)):
        spilled += sum(counts)
        for b, found in enumerate(counts):
            if found:
                holders[b].append(task[2])
        done += task[4] - task[3]
        if progress is not None:
            progress(phase, done, n)
    merges = [(job, depth + 1, b, chunks) for b, chunks in enumerate(holders)]
    total = np.zeros(4, dtype=np.int64)
    merge = f"layer {depth + 1} merge"
    if progress is not None:
        progress(merge, 0, len(merges))
    for b, counts in enumerate(executor.map(_merge_task, merges)):
        total += counts
        if progress is not None:
            progress(merge, b + 1, len(merges))
    if total[0] == 0:
        bdir.remove(spill)
        return None, spilled
    bdir.concat([f"{spill}/part-{b}.u64" for b in range(len(merges))], _states(depth + 1))
    bdir.remove(spill)
    states, positions, classes, terminal = (int(t) for t in total)
    return LayerInfo(depth + 1, states, positions, classes, terminal), spilled


def _label_layer(
    job: Job, bdir: LayerDir, executor: Executor, depth: int, last: bool, chunk: int, progress: Progress | None
) -> list[int]:
    """Label layer ``depth``; the positions it holds won, lost and drawn for the side to move."""
    n = bdir.count(_states(depth), np.uint64)
    folder = _labels(depth)
    bdir.remove(folder)
    bdir.makedirs(folder)
    tasks = [(job, depth, i, lo, hi, last) for i, (lo, hi) in enumerate(_chunks(n, chunk))]
    phase = f"layer {depth} label"
    done = 0
    outcomes = np.zeros(3, dtype=np.int64)
    if progress is not None:
        progress(phase, 0, n)
    for labelled, counts in executor.map(_label_task, tasks):
        done += labelled
        outcomes += counts
        if progress is not None:
            progress(phase, done, n)
    bdir.concat([f"{folder}/{i}.i16" for i in range(len(tasks))], _distance(depth))
    bdir.concat([f"{folder}/{i}.i8" for i in range(len(tasks))], _outcome(depth))
    bdir.remove(folder)
    return [int(c) for c in outcomes]


def solve_chunked(
    game: Game,
    build_dir: str | os.PathLike[str],
    symmetry: bool = True,
    progress: Progress | None = None,
    chunk: int = CHUNK,
    bucket: int = BUCKET,
    workers: int = 1,
    scheduler: str | None = None,
    memory_limit: str | None = None,
) -> LayeredSolution:
    """Solve ``game`` layer by layer on disk (see the module notes): enumerate and label every
    layer into ``build_dir``, resuming an interrupted build from its finished part.

    ``chunk`` is the number of parents expanded at once, ``bucket`` the
    number of children merged at once in the forward pass; together they bound
    the memory of a task. The tasks run in ``workers`` local processes, or on
    the Dask cluster at ``scheduler`` (an address such as ``tcp://host:8786``,
    or ``local:N`` for ``N`` worker processes started here); cluster workers
    must all reach ``build_dir`` (a shared folder or an fsspec URL); ``memory_limit`` is that of
    each worker of ``local:N``.
    """
    kernels = game.vector
    if kernels is None or not kernels.layered:
        raise ValueError(f"{game.name} is not a layered game with array kernels")
    bdir = LayerDir(build_dir)
    with executor_for(scheduler, workers, _remember, (game.name, kernels), memory_limit) as executor:
        bdir.makedirs()
        manifest = bdir.load_manifest()
        if manifest is not None and (
            manifest.format != FORMAT or manifest.game != game.name or manifest.symmetry != symmetry
        ):
            raise BuildError(f"build directory {bdir.location[:80]!r} holds another build ({manifest.game})")
        if manifest is None:
            manifest = Manifest(game=game.name, symmetry=symmetry)
        job = Job(game.name, symmetry, bdir.location, os.urandom(8).hex())
        if scheduler:
            report_where(progress, executor.description)
        t0 = time.perf_counter()
        if not manifest.layers:
            start = _canon(kernels, np.array([game.initial_state()], dtype=np.uint64), symmetry)
            bdir.write(_states(0), start)
            manifest.layers.append(_counts(kernels, 0, start, symmetry, chunk))
            bdir.save_manifest(manifest)
        while not manifest.forward_done:
            info, spilled = _forward_layer(job, bdir, executor, manifest.layers[-1].depth, chunk, bucket, progress)
            if info is None:
                manifest.forward_done = True
            else:
                manifest.layers.append(info)
                manifest.spilled[info.depth] = spilled
            manifest.seconds["enumerate"] = manifest.seconds.get("enumerate", 0.0) + time.perf_counter() - t0
            t0 = time.perf_counter()
            bdir.save_manifest(manifest)
        last = manifest.layers[-1].depth
        for depth in range(last, -1, -1):
            if depth in manifest.labelled:
                continue
            outcomes = _label_layer(job, bdir, executor, depth, depth == last, chunk, progress)
            next(info for info in manifest.layers if info.depth == depth).outcomes = outcomes
            manifest.labelled.append(depth)
            manifest.seconds["label"] = manifest.seconds.get("label", 0.0) + time.perf_counter() - t0
            t0 = time.perf_counter()
            bdir.save_manifest(manifest)
    return LayeredSolution(game, bdir, manifest)


@dataclass
class LayeredSolution:
    """A finished chunked build: per-layer arrays on disk, counts in the manifest."""

    game: Game
    directory: LayerDir
    manifest: Manifest

    @property
    def symmetry(self) -> bool:
        return self.manifest.symmetry

    @property
    def num_states(self) -> int:
        return sum(layer.states for layer in self.manifest.layers)

    @property
    def depths(self) -> list[int]:
        return [layer.depth for layer in self.manifest.layers]

    def states(self, depth: int) -> np.ndarray:
        return self.directory.states(depth)

    def outcome(self, depth: int) -> np.ndarray:
        return self.directory.outcome(depth)

    def distance(self, depth: int) -> np.ndarray:
        return self.directory.distance(depth)

    def result(self) -> tuple[str, int]:
        """Outcome and distance of the start position."""
        return OUTCOME_NAMES[int(self.outcome(0)[0])], int(self.distance(0)[0])

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(states, ply, outcome, distance)`` of every layer concatenated (small builds and tests)."""
        depths = self.depths
        return (
            np.concatenate([np.array(self.states(d)) for d in depths]),
            np.concatenate([np.full(self.manifest.layers[i].states, d, dtype=np.int32) for i, d in enumerate(depths)]),
            np.concatenate([np.array(self.outcome(d)) for d in depths]),
            np.concatenate([np.array(self.distance(d)).astype(np.int32) for d in depths]),
        )
