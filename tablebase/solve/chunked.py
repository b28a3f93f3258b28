"""Chunked, out-of-core solving of layered games (placement games: one layer per mark count).

Every move of a :attr:`~tablebase.games.kernels.VectorKernels.layered` game
adds one to the layer, so the children of layer ``d`` all lie in layer
``d + 1``. The build uses that twice:

* **forward**: layer ``d + 1`` is the set of canonical children of the live
  states of layer ``d``. Parents are expanded in chunks; each chunk's
  children are canonicalised, sorted, deduplicated and cut by value ranges
  (splitters sampled from the layer) into bucket files. Each bucket is then
  deduplicated in memory and appended to the layer file, so the layer comes
  out sorted without ever holding all of its children at once.
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
the same directory resumes after the last finished layer. Chunks can be
spread over worker processes (``workers``); the results do not depend on the
chunk size or the number of workers.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

import numpy as np

from tablebase.games.kernels import DRAW, LOSS, UNKNOWN, WIN, VectorKernels
from tablebase.solve.retrograde import OUTCOME_NAMES, sorted_unique

if TYPE_CHECKING:
    from tablebase.games.base import Game
    from tablebase.solve import Progress

#: Parents per chunk by default (about 10 children each: a few hundred MB of temporaries).
CHUNK = 1 << 20
#: Largest bucket merged in memory, in children (before deduplication across chunks).
BUCKET = 1 << 26
FORMAT = 1

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


@dataclass
class Manifest:
    """What the build directory holds, and how far the build got."""

    game: str
    symmetry: bool
    layers: list[LayerInfo] = field(default_factory=list)
    forward_done: bool = False
    labelled: list[int] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)
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
            format=data.get("format", 0),
        )


class BuildDir:
    """The files of one chunked build."""

    def __init__(self, path: str | os.PathLike[str]):
        self.path = Path(path)

    def states_path(self, depth: int) -> Path:
        return self.path / f"states-{depth}.u64"

    def outcome_path(self, depth: int) -> Path:
        return self.path / f"outcome-{depth}.i8"

    def distance_path(self, depth: int) -> Path:
        return self.path / f"distance-{depth}.i16"

    @property
    def manifest_path(self) -> Path:
        return self.path / "manifest.json"

    def load_manifest(self) -> Manifest | None:
        if not self.manifest_path.exists():
            return None
        return Manifest.from_json(json.loads(self.manifest_path.read_text()))

    def save_manifest(self, manifest: Manifest) -> None:
        tmp = self.manifest_path.with_suffix(".tmp")
        tmp.write_text(json.dumps(manifest.to_json(), indent=1))
        os.replace(tmp, self.manifest_path)

    def states(self, depth: int) -> np.ndarray:
        """The sorted states of a finished layer (memory-mapped)."""
        return _map(self.states_path(depth), np.uint64)

    def outcome(self, depth: int) -> np.ndarray:
        return _map(self.outcome_path(depth), np.int8)

    def distance(self, depth: int) -> np.ndarray:
        return _map(self.distance_path(depth), np.int16)


def _map(path: Path, dtype: Any) -> np.ndarray:
    if path.stat().st_size == 0:
        return np.empty(0, dtype=dtype)
    return np.memmap(path, dtype=dtype, mode="r")


def _save(path: Path, values: np.ndarray) -> None:
    """Write ``values`` raw, atomically (a temporary file renamed into place)."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as f:
        np.ascontiguousarray(values).tofile(f)
    os.replace(tmp, path)


# -- per-chunk work (runs in worker processes) ----------------------------------

_KERNELS: VectorKernels | None = None
_SYMMETRY = True
_DIR: BuildDir | None = None


def _init(kernels: VectorKernels, symmetry: bool, build_dir: str) -> None:
    global _KERNELS, _SYMMETRY, _DIR
    _KERNELS, _SYMMETRY, _DIR = kernels, symmetry, BuildDir(build_dir)


def _canon(kernels: VectorKernels, states: np.ndarray, symmetry: bool) -> np.ndarray:
    return kernels.canonical(states) if symmetry else np.asarray(states, dtype=np.uint64)


def expand_chunk(kernels: VectorKernels, parents: np.ndarray, symmetry: bool) -> np.ndarray:
    """The sorted distinct canonical children of the live states among ``parents``."""
    parents = np.asarray(parents, dtype=np.uint64)
    live = parents[kernels.outcome(parents) == UNKNOWN]
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
    live = np.flatnonzero(terminal == UNKNOWN)
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
    score_sorted = np.where(code == LOSS, _WIN_BASE - d, np.where(code == DRAW, _DRAW_BASE + d, d))
    del pos, code, d
    score = np.empty_like(score_sorted)
    score[order] = score_sorted
    del order, score_sorted
    starts = np.flatnonzero(np.r_[True, parent[1:] != parent[:-1]])
    best = np.maximum.reduceat(score, starts)
    won = best > _WIN_BASE - _DRAW_BASE
    drawn = ~won & (best >= _DRAW_BASE)
    lost = ~won & ~drawn
    out_live = np.where(won, WIN, np.where(drawn, DRAW, LOSS)).astype(np.int8)
    d_live = np.where(won, _WIN_BASE - best, np.where(drawn, best - _DRAW_BASE, best)) + 1
    del lost
    outcome[live] = out_live
    distance[live] = d_live.astype(np.int16)
    return outcome, distance


def _expand_task(task: tuple[int, int, int]) -> np.ndarray:
    depth, lo, hi = task
    assert _KERNELS is not None and _DIR is not None
    return expand_chunk(_KERNELS, np.array(_DIR.states(depth)[lo:hi]), _SYMMETRY)


_NEXT: tuple[int, np.ndarray, np.ndarray, np.ndarray] | None = None


def _label_task(task: tuple[int, int, int]) -> tuple[int, np.ndarray, np.ndarray]:
    global _NEXT
    depth, lo, hi = task
    assert _KERNELS is not None and _DIR is not None
    if _NEXT is None or _NEXT[0] != depth + 1:
        _NEXT = None
        nxt = depth + 1
        _NEXT = (nxt, _DIR.states(nxt), np.array(_DIR.outcome(nxt)), np.array(_DIR.distance(nxt)))
    _, states, outcome, distance = _NEXT
    out, dist = label_chunk(_KERNELS, np.array(_DIR.states(depth)[lo:hi]), _SYMMETRY, states, outcome, distance)
    return lo, out, dist


# -- the build -------------------------------------------------------------------


class _Runner:
    """Maps chunk tasks over worker processes (or in this process when ``workers`` is 1)."""

    def __init__(self, kernels: VectorKernels, symmetry: bool, build_dir: BuildDir, workers: int):
        self.args = (kernels, symmetry, str(build_dir.path))
        self.pool = None
        if workers > 1:
            self.pool = get_context("fork").Pool(workers, initializer=_init, initargs=self.args)
        _init(*self.args)

    def map(self, fn: Any, tasks: list[Any]) -> Iterator[Any]:
        global _NEXT
        _NEXT = None
        if self.pool is None:
            return map(fn, tasks)
        return self.pool.imap(fn, tasks)

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()
            self.pool.join()


def _chunks(n: int, chunk: int) -> list[tuple[int, int]]:
    return [(lo, min(n, lo + chunk)) for lo in range(0, n, chunk)]


def _counts(kernels: VectorKernels, depth: int, states: np.ndarray, symmetry: bool, chunk: int) -> LayerInfo:
    positions = classes = terminal = 0
    for lo, hi in _chunks(states.size, chunk):
        part = np.array(states[lo:hi])
        terminal += int(np.count_nonzero(kernels.outcome(part) != UNKNOWN))
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


def _forward_layer(
    kernels: VectorKernels,
    bdir: BuildDir,
    runner: _Runner,
    depth: int,
    symmetry: bool,
    chunk: int,
    bucket: int,
    progress: Progress | None,
) -> int:
    """Write layer ``depth + 1`` from layer ``depth``; returns its size."""
    states = bdir.states(depth)
    n = int(states.size)
    tasks = [(depth, lo, hi) for lo, hi in _chunks(n, chunk)]
    # the number of buckets from a sample's children per parent; splitters from its children
    step = max(1, n // 20_000)
    sample = np.array(states[::step])
    sample_children = expand_chunk(kernels, sample, symmetry)
    per_parent = (kernels.children(sample[kernels.outcome(sample) == UNKNOWN])[0].size + 1) / max(1, sample.size)
    estimate = int(per_parent * n) + 1
    buckets = max(1, -(-estimate // bucket))
    if buckets > 1 and sample_children.size:
        splitters = np.quantile(sample_children, np.linspace(0, 1, buckets + 1)[1:-1], method="nearest")
        splitters = np.unique(splitters.astype(np.uint64))
    else:
        splitters = np.empty(0, dtype=np.uint64)
    spill = bdir.path / f"spill-{depth + 1}"
    if spill.exists():
        shutil.rmtree(spill)
    out_path = bdir.states_path(depth + 1)
    phase = f"layer {depth + 1} enumerate"
    if splitters.size == 0:
        parts = []
        for i, found in enumerate(runner.map(_expand_task, tasks)):
            parts.append(found)
            if progress is not None:
                progress(phase, tasks[i][2], n)
        layer = sorted_unique(np.concatenate(parts), in_place=True) if parts else np.empty(0, dtype=np.uint64)
        del parts
        _save(out_path, layer)
        return int(layer.size)
    spill.mkdir(parents=True)
    files = [open(spill / f"bucket-{b}.u64", "wb") for b in range(splitters.size + 1)]
    try:
        for i, found in enumerate(runner.map(_expand_task, tasks)):
            cuts = np.searchsorted(found, splitters)
            for b, piece in enumerate(np.split(found, cuts)):
                if piece.size:
                    piece.tofile(files[b])
            if progress is not None:
                progress(phase, tasks[i][2], n)
    finally:
        for f in files:
            f.close()
    tmp = out_path.with_name(out_path.name + ".tmp")
    total = 0
    merge = f"layer {depth + 1} merge"
    with open(tmp, "wb") as out:
        for b in range(splitters.size + 1):
            path = spill / f"bucket-{b}.u64"
            values = sorted_unique(np.fromfile(path, dtype=np.uint64), in_place=True)
            values.tofile(out)
            total += int(values.size)
            del values
            path.unlink()
            if progress is not None:
                progress(merge, b + 1, splitters.size + 1)
    os.replace(tmp, out_path)
    shutil.rmtree(spill)
    return total


def _label_layer(
    kernels: VectorKernels, bdir: BuildDir, runner: _Runner, depth: int, last: bool, chunk: int, progress: Progress | None
) -> None:
    states = bdir.states(depth)
    n = int(states.size)
    outcome = np.empty(n, dtype=np.int8)
    distance = np.empty(n, dtype=np.int16)
    phase = f"layer {depth} label"
    if last:
        # nothing follows: every state is terminal
        for lo, hi in _chunks(n, chunk):
            codes = kernels.outcome(np.array(states[lo:hi]))
            if np.any(codes == UNKNOWN):
                raise RuntimeError(f"layer {depth} is the last but has states with moves")
            outcome[lo:hi] = codes
            distance[lo:hi] = 0
    else:
        done = 0
        for lo, out, dist in runner.map(_label_task, [(depth, lo, hi) for lo, hi in _chunks(n, chunk)]):
            outcome[lo : lo + out.size] = out
            distance[lo : lo + out.size] = dist
            done += out.size
            if progress is not None:
                progress(phase, done, n)
    _save(bdir.distance_path(depth), distance)
    _save(bdir.outcome_path(depth), outcome)


def build_layers(
    game: Game,
    build_dir: str | os.PathLike[str],
    symmetry: bool = True,
    progress: Progress | None = None,
    chunk: int = CHUNK,
    bucket: int = BUCKET,
    workers: int = 1,
) -> Manifest:
    """Enumerate and label every layer of ``game`` into ``build_dir``, resuming a finished part.

    ``chunk`` is the number of parents expanded at once, ``bucket`` the
    number of children merged at once in the forward pass; together they bound
    the memory of the build. Returns the manifest (per-layer counts, timings).
    """
    kernels = game.vector
    if kernels is None or not kernels.layered:
        raise ValueError(f"{game.name} is not a layered game with array kernels")
    bdir = BuildDir(build_dir)
    bdir.path.mkdir(parents=True, exist_ok=True)
    manifest = bdir.load_manifest()
    if manifest is not None and (
        manifest.format != FORMAT or manifest.game != game.name or manifest.symmetry != symmetry
    ):
        raise ValueError(f"build directory {str(bdir.path)!r} holds another build ({manifest.game})")
    if manifest is None:
        manifest = Manifest(game=game.name, symmetry=symmetry)
    runner = _Runner(kernels, symmetry, bdir, workers)
    try:
        t0 = time.perf_counter()
        if not manifest.layers:
            start = _canon(kernels, np.array([game.initial_state()], dtype=np.uint64), symmetry)
            _save(bdir.states_path(0), start)
            manifest.layers.append(_counts(kernels, 0, start, symmetry, chunk))
            bdir.save_manifest(manifest)
        while not manifest.forward_done:
            depth = manifest.layers[-1].depth
            size = _forward_layer(kernels, bdir, runner, depth, symmetry, chunk, bucket, progress)
            if size == 0:
                bdir.states_path(depth + 1).unlink()
                manifest.forward_done = True
            else:
                manifest.layers.append(_counts(kernels, depth + 1, bdir.states(depth + 1), symmetry, chunk))
            manifest.seconds["enumerate"] = manifest.seconds.get("enumerate", 0.0) + time.perf_counter() - t0
            t0 = time.perf_counter()
            bdir.save_manifest(manifest)
        last = manifest.layers[-1].depth
        for depth in range(last, -1, -1):
            if depth in manifest.labelled:
                continue
            _label_layer(kernels, bdir, runner, depth, depth == last, chunk, progress)
            manifest.labelled.append(depth)
            manifest.seconds["label"] = manifest.seconds.get("label", 0.0) + time.perf_counter() - t0
            t0 = time.perf_counter()
            bdir.save_manifest(manifest)
    finally:
        runner.close()
    return manifest


@dataclass
class LayeredSolution:
    """A finished chunked build: per-layer arrays on disk, counts in the manifest."""

    game: Game
    directory: BuildDir
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


def solve_chunked(
    game: Game,
    build_dir: str | os.PathLike[str],
    symmetry: bool = True,
    progress: Progress | None = None,
    chunk: int = CHUNK,
    bucket: int = BUCKET,
    workers: int = 1,
) -> LayeredSolution:
    """Solve ``game`` layer by layer on disk (see the module notes); resumes an interrupted build."""
    manifest = build_layers(game, build_dir, symmetry, progress, chunk=chunk, bucket=bucket, workers=workers)
    return LayeredSolution(game, BuildDir(build_dir), manifest)
