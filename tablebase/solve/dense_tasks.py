"""The dense build as tasks over ranges of a ply's slots, run by local processes or a Dask cluster.

The passes of :mod:`tablebase.games.common.dense_kernels` over a whole ply
hold two plies in memory; here every ply is cut into ranges of ``task``
slots (a multiple of :data:`~tablebase.store.dense.BLOCK`, so that a range
holds whole blocks), and every pass over a range is a task that reads and
writes its own files in the build directory (:class:`~tablebase.solve.build_dir.BuildDir`:
a folder or an fsspec URL) and returns counts and slot ranges only:

* **reach** ``(ply, range)``: the marks the previous ply's tasks left on the
  range, ORed into its reachable slots (``reach-P/T.bits``, one bit a slot);
  then the children of its reachable positions whose game goes on, marked in
  the ranges of the next ply that hold them (the index's
  :meth:`~tablebase.games.common.dense_index.DenseIndex.child_windows`), written as
  bits (``marks-P+1/T.bits``). The client hands each task of the next ply
  the pieces of those files that fall on its range.
* **label** ``(ply, range)``: its reachable slots labelled from their
  children's values, read from the next ply's ranges that hold them
  (``values-P+1/T.u8``); its values written (``values-P/T.u8``), then the
  slots not worth storing cleared and its blocks encoded
  (``blocks-P/T.blk``), with the ply's counts.

Plies are barriers: every reach task of a ply before those of the next,
every label task of a ply after those of the next. The client records each
finished ply in ``manifest.json``; a build started again on the same
directory goes on from the first ply not finished. A task's memory is its
range, its child ranges and their marks or values: it does not grow with the
board. The blocks are the ones the one-process build writes, byte for byte.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Iterator

import numpy as np

from tablebase.errors import BuildError
from tablebase.solve.build_dir import BuildDir
from tablebase.solve.executor import Executor

if TYPE_CHECKING:
    from tablebase.games.base import Game
    from tablebase.games.common.dense_index import PlyCounts
    from tablebase.games.common.dense_passes import CompiledPasses
    from tablebase.progress import Progress

#: Slots per task by default (256 blocks): a task holds a few bytes a slot of its range and of its child ranges.
TASK_SLOTS = 1 << 22
FORMAT = 1
MANIFEST = "manifest.json"
_COUNTS = 9


@dataclass(frozen=True)
class DenseJob:
    """What every task of one build needs: the variant, where the files are, the slots of a task,
    and the compiled passes' threads in a worker."""

    game: str
    location: str
    task: int
    threads: int = 1

    def index(self) -> CompiledPasses:
        """The variant's dense index (made once per process)."""
        found = _INDEXES.get(self.game)
        if found is None:
            from tablebase import games

            found = _INDEXES[self.game] = compiled_index(games.get(self.game))
        return found

    def ranges(self, size: int) -> list[tuple[int, int]]:
        """The tasks' slot ranges of a ply of ``size`` slots."""
        return [(lo, min(size, lo + self.task)) for lo in range(0, size, self.task)]


_INDEXES: dict[str, CompiledPasses] = {}


def compiled_index(game: Game) -> CompiledPasses:
    """The game's dense index, which must run the compiled passes; raises :class:`BuildError` if not."""
    from tablebase.games.common.dense_passes import CompiledPasses

    index = game.dense_index()
    if not isinstance(index, CompiledPasses):
        raise BuildError(f"variant {game.name!r} has no dense index with compiled passes to build in tasks")
    return index


@dataclass
class TaskFigures:
    """What the tasks of one pass did: slots, task-seconds, bytes read and written."""

    slots: int = 0
    seconds: float = 0.0
    read: int = 0
    written: int = 0
    tasks: int = 0

    def add(self, slots: int, seconds: float, read: int, written: int) -> None:
        self.slots += slots
        self.seconds += seconds
        self.read += read
        self.written += written
        self.tasks += 1


@dataclass
class DenseManifest:
    """What the build directory holds: the plies reached and labelled, and the figures of their tasks."""

    game: str
    task: int
    #: Plies whose reach tasks are done, from 0.
    reached: int = 0
    #: Per ply labelled: the counts of :class:`~tablebase.games.common.dense_index.PlyCounts` as 9 numbers, and its blocks.
    labelled: dict[int, list[int]] = field(default_factory=dict)
    #: The pieces of marks for the next ply to reach: ``[task, first, end, byte offset]`` each.
    marks: list[list[int]] = field(default_factory=list)
    #: Per pass (``reach``, ``label``): slots, task-seconds, bytes read and written, tasks.
    figures: dict[str, TaskFigures] = field(default_factory=dict)
    #: Wall seconds per pass.
    seconds: dict[str, float] = field(default_factory=dict)
    format: int = FORMAT

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> DenseManifest:
        """The manifest of :func:`dataclasses.asdict` read back from JSON (whose keys are strings)."""
        found = cls(**data)
        found.labelled = {int(p): c for p, c in found.labelled.items()}
        found.figures = {k: TaskFigures(**v) for k, v in data["figures"].items()}
        return found

    def figure(self, name: str) -> TaskFigures:
        return self.figures.setdefault(name, TaskFigures())


def _load(bdir: BuildDir) -> DenseManifest | None:
    if not bdir.exists(MANIFEST):
        return None
    try:
        return DenseManifest.from_json(json.loads(bdir.read(MANIFEST, np.uint8).tobytes().decode()))
    except (KeyError, ValueError, TypeError) as exc:
        raise BuildError(f"build directory {bdir.location[:80]!r} holds another kind of build ({exc})") from exc


def _save(bdir: BuildDir, manifest: DenseManifest) -> None:
    bdir.write(MANIFEST, np.frombuffer(json.dumps(asdict(manifest), indent=1).encode(), dtype=np.uint8))


def _folder(kind: str, ply: int) -> str:
    """The folder of one ply's files of one kind (``reach``, ``marks``, ``values``, ``blocks``)."""
    return f"{kind}-{ply}"


# -- tasks (run by the executor: here, in worker processes or on cluster workers) ----------


def _threads(job: DenseJob) -> None:
    import numba

    numba.set_num_threads(max(1, min(job.threads, int(getattr(numba.config, "NUMBA_NUM_THREADS", 1)))))


def _span_tables(index: CompiledPasses, ply: int, first: int, end: int) -> tuple[Any, ...]:
    """The ply's kernel tables with the units bounded to those holding slots ``first:end``."""
    tables = index.kernels().arguments(index, ply)
    units = tables[1] - tables[0]
    per = int(index.sizes[ply]) // units
    if per * units != int(index.sizes[ply]):
        raise BuildError(f"ply {ply} of the dense index is not cut into units of equal size; it cannot be built in ranges")
    return (tables[0] + first // per, tables[0] + (end - 1) // per + 1, *tables[2:])


def _window_table(windows: list[tuple[int, int]]) -> np.ndarray:
    """Rows ``(first, end, offset)`` of :func:`~tablebase.games.common.dense_kernels.in_window`."""
    table = np.zeros((max(1, len(windows)), 3), dtype=np.int64)
    at = 0
    for i, (lo, hi) in enumerate(windows):
        table[i] = (lo, hi, at)
        at += hi - lo
    if not windows:
        table[0] = (0, 1 << 62, 0)
    return table


def _reach_task(
    job: DenseJob, ply: int, t: int, first: int, end: int, pieces: list[list[int]]
) -> tuple[int, list[list[int]], list[float]]:
    """Reach slots ``first:end`` of ``ply`` from the ``pieces`` of marks ``[task, first, end, byte
    offset]`` the previous ply left; mark their children. Returns the reachable slots, the pieces of
    marks written for the next ply, and ``[seconds, bytes read, bytes written]``."""
    from tablebase.games.common import dense_kernels as dk

    began = time.perf_counter()
    _threads(job)
    bdir = BuildDir(job.location)
    index = job.index()
    reach = np.zeros(end - first, dtype=np.uint8)
    read = 0
    if ply == 0:
        reach[0] = 1
    for source, lo, hi, offset in pieces:
        a, b = max(lo, first), min(hi, end)
        skip = a - lo
        start = offset + skip // 8
        stop = offset + (b - lo + 7) // 8
        raw = bdir.read(f"{_folder('marks', ply)}/{source}.bits", np.uint8, start, stop)
        read += raw.size
        bits = np.unpackbits(raw, bitorder="little")[skip % 8 : skip % 8 + b - a]
        reach[a - first : b - first] |= bits
    packed = np.packbits(reach, bitorder="little")
    bdir.write(f"{_folder('reach', ply)}/{t}.bits", packed)
    written = packed.size
    count = int(np.count_nonzero(reach))
    out: list[list[int]] = []
    if count and ply + 1 < len(index.sizes):
        windows = index.child_windows(ply, first, end)
        table = _window_table(windows)
        marks = np.zeros(sum(hi - lo for lo, hi in windows), dtype=np.uint8)
        tables = _span_tables(index, ply, first, end)
        rows = np.zeros((tables[1] - tables[0], 1), dtype=np.int64)
        arrays = (reach, marks, dk.NO_BYTES, rows, dk.NO_STATES, dk.NO_VALUES)
        index.kernels().run(dk.REACH, ply, arrays, tables, (first, end, table))
        parts = []
        at = 0
        for (lo, hi), (_, _, offset) in zip(windows, table):
            bits = np.packbits(marks[offset : offset + hi - lo], bitorder="little")
            if bits.any():
                out.append([t, lo, hi, at])
                parts.append(bits)
                at += bits.size
        if parts:
            data = np.concatenate(parts)
            bdir.write(f"{_folder('marks', ply + 1)}/{t}.bits", data)
            written += data.size
    return count, out, [time.perf_counter() - began, read, written]


def _read_range(bdir: BuildDir, job: DenseJob, ply: int, size: int, lo: int, hi: int, out: np.ndarray) -> int:
    """Values of slots ``lo:hi`` of a labelled ``ply`` (of ``size`` slots) into ``out``; the bytes read."""
    read = 0
    for t in range(lo // job.task, (hi - 1) // job.task + 1):
        base = t * job.task
        a, b = max(lo, base), min(hi, base + job.task, size)
        part = bdir.read(f"{_folder('values', ply)}/{t}.u8", np.uint8, a - base, b - base)
        out[a - lo : b - lo] = part
        read += part.size
    return read


def _label_task(job: DenseJob, ply: int, t: int, first: int, end: int) -> tuple[list[int], list[float]]:
    """Label slots ``first:end`` of ``ply`` from the next ply's values; write their values and their
    blocks. Returns the counts of the range and ``[seconds, bytes read, bytes written]``."""
    from tablebase.games.common import dense_kernels as dk
    from tablebase.store.dense import BLOCK, encode_block

    began = time.perf_counter()
    _threads(job)
    bdir = BuildDir(job.location)
    index = job.index()
    sizes = [int(s) for s in index.sizes]
    raw = bdir.read(f"{_folder('reach', ply)}/{t}.bits", np.uint8)
    read = raw.size
    reach = np.unpackbits(raw, count=end - first, bitorder="little")
    windows = index.child_windows(ply, first, end) if reach.any() else []
    table = _window_table(windows)
    children = np.empty(sum(hi - lo for lo, hi in windows), dtype=np.uint8)
    for (lo, hi), (_, _, offset) in zip(windows, table):
        read += _read_range(bdir, job, ply + 1, sizes[ply + 1], lo, hi, children[offset : offset + hi - lo])
    values = np.empty(end - first, dtype=np.uint8)
    tables = _span_tables(index, ply, first, end)
    rows = np.zeros((tables[1] - tables[0], _COUNTS), dtype=np.int64)
    span = (first, end, table)
    kernels = index.kernels()
    kernels.run(dk.LABEL, ply, (reach, values, children, rows, dk.NO_STATES, dk.NO_VALUES), tables, span)
    del reach, children
    bdir.write(f"{_folder('values', ply)}/{t}.u8", values)
    written = values.size
    kernels.run(dk.KEEP, ply, (dk.NO_BYTES, values, dk.NO_BYTES, rows, dk.NO_STATES, dk.NO_VALUES), tables, span)
    blocks = [(lo, encode_block(values[lo - first : lo - first + BLOCK], ply, lo)) for lo in range(first, end, BLOCK)]
    data = _encode_blocks(blocks, end)
    bdir.write(f"{_folder('blocks', ply)}/{t}.blk", data)
    written += data.size
    return [int(c) for c in rows.sum(axis=0)], [time.perf_counter() - began, read, written]


def _encode_blocks(blocks: list[tuple[int, bytes]], end: int) -> np.ndarray:
    """A block file: the number of blocks, then ``(first slot, count, bytes)`` of each, then their data."""
    head = [len(blocks)]
    for i, (lo, data) in enumerate(blocks):
        following = blocks[i + 1][0] if i + 1 < len(blocks) else end
        head += [lo, following - lo, len(data)]
    return np.concatenate(
        [np.array(head, dtype="<i8").view(np.uint8), np.frombuffer(b"".join(d for _, d in blocks), dtype=np.uint8)]
    )


def read_blocks(data: np.ndarray) -> Iterator[tuple[int, int, bytes]]:
    """``(first slot, count, data)`` of every block of a block file."""
    n = int(data[:8].view("<i8")[0])
    head = data[8 : 8 + 24 * n].view("<i8").reshape(n, 3)
    at = 8 + 24 * n
    for lo, count, length in head.tolist():
        yield lo, count, data[at : at + length].tobytes()
        at += length


# -- the build -------------------------------------------------------------------


@dataclass
class DenseBuild:
    """A finished task build: its block files in the build directory, and its counts."""

    game: Game
    index: CompiledPasses
    directory: BuildDir
    manifest: DenseManifest

    @property
    def seconds(self) -> float:
        """The wall seconds of its passes (over every run that made it)."""
        return sum(self.manifest.seconds.values())

    def _job(self) -> DenseJob:
        return DenseJob(self.game.name, self.directory.location, self.manifest.task)

    def counts(self) -> dict[int, PlyCounts]:
        from tablebase.games.common.dense_index import PlyCounts

        return {
            p: PlyCounts(c[0], c[1], c[2], (c[3], c[4], c[5]), (c[6], c[7], c[8]))
            for p, c in sorted(self.manifest.labelled.items())
        }

    def blocks(self) -> Iterator[tuple[int, int, int, bytes]]:
        """``(ply, first slot, count, data)`` of every block, ply by ply from the last."""
        job = self._job()
        for ply in sorted(self.manifest.labelled, reverse=True):
            for t in range(len(job.ranges(int(self.index.sizes[ply])))):
                for lo, count, data in read_blocks(self.directory.read(f"{_folder('blocks', ply)}/{t}.blk", np.uint8)):
                    yield ply, lo, count, data

    def block(self, ply: int, slot: int) -> tuple[int, int, bytes]:
        """``(first slot, count, data)`` of the block holding a slot."""
        t = slot // self.manifest.task
        for lo, count, data in read_blocks(self.directory.read(f"{_folder('blocks', ply)}/{t}.blk", np.uint8)):
            if lo <= slot < lo + count:
                return lo, count, data
        raise BuildError(f"build directory {self.directory.location[:80]!r} lacks the block of slot {slot} of ply {ply}")


def _pieces_by_task(marks: list[list[int]], size: int, task: int) -> list[list[list[int]]]:
    """The pieces of marks that fall on each task's range of a ply of ``size`` slots."""
    found: list[list[list[int]]] = [[] for _ in range(-(-size // task))]
    for piece in marks:
        _, lo, hi, _ = piece
        for k in range(lo // task, (hi - 1) // task + 1):
            found[k].append(piece)
    return found


def build_dense(
    game: Game,
    build_dir: str | os.PathLike[str],
    executor: Executor,
    progress: Progress | None = None,
    task: int | None = None,
    threads: int = 1,
) -> DenseBuild:
    """Solve ``game`` over its dense index in tasks run by ``executor`` (see the module notes), their
    files in ``build_dir``, going on from an earlier build there that stopped; ``task`` slots a task
    (a multiple of the block size), ``threads`` threads for the compiled passes of a task."""
    from tablebase.store.dense import BLOCK

    index = compiled_index(game)
    bdir = BuildDir(build_dir)
    bdir.makedirs()
    manifest = _load(bdir)
    if manifest is not None and (manifest.format != FORMAT or manifest.game != game.name):
        raise BuildError(f"build directory {bdir.location[:80]!r} holds another build ({manifest.game})")
    if manifest is not None and task is not None and manifest.task != task:
        raise BuildError(
            f"build directory {bdir.location[:80]!r} holds a build in tasks of {manifest.task} slots, not {task}"
        )
    if manifest is None:
        size = task or TASK_SLOTS
        if size <= 0 or size % BLOCK:
            raise BuildError(f"task of {size} slots: give a positive multiple of {BLOCK}")
        manifest = DenseManifest(game.name, size)
        _save(bdir, manifest)
    job = DenseJob(game.name, bdir.location, manifest.task, threads)
    sizes = [int(s) for s in index.sizes]
    last = len(sizes) - 1
    total = sum(sizes)
    began = time.perf_counter()
    done = sum(sizes[:manifest.reached])
    while manifest.reached <= last:
        ply = manifest.reached
        ranges = job.ranges(sizes[ply])
        pieces = _pieces_by_task(manifest.marks, sizes[ply], job.task)
        tasks = [(job, ply, t, lo, hi, pieces[t]) for t, (lo, hi) in enumerate(ranges)]
        figures = manifest.figure("reach")
        bdir.remove(_folder("reach", ply))
        bdir.makedirs(_folder("reach", ply))
        if ply < last:
            bdir.remove(_folder("marks", ply + 1))
            bdir.makedirs(_folder("marks", ply + 1))
        marks: list[list[int]] = []
        for (_, _, t, lo, hi, _), (count, out, (seconds, read, written)) in zip(tasks, executor.map(_reach_task, tasks)):
            marks.extend(out)
            figures.add(hi - lo, seconds, int(read), int(written))
            done += hi - lo
            if progress is not None:
                progress("reach", done, total)
        manifest.marks = marks
        manifest.reached = ply + 1
        manifest.seconds["reach"] = manifest.seconds.get("reach", 0.0) + time.perf_counter() - began
        began = time.perf_counter()
        _save(bdir, manifest)
        bdir.remove(_folder("marks", ply))
    done = sum(sizes[p] for p in manifest.labelled)
    for ply in range(last, -1, -1):
        if ply in manifest.labelled:
            continue
        ranges = job.ranges(sizes[ply])
        label_tasks = [(job, ply, t, lo, hi) for t, (lo, hi) in enumerate(ranges)]
        figures = manifest.figure("label")
        for name in (_folder("values", ply), _folder("blocks", ply)):
            bdir.remove(name)
            bdir.makedirs(name)
        counts = np.zeros(_COUNTS, dtype=np.int64)
        for (_, _, _, lo, hi), (found, (seconds, read, written)) in zip(label_tasks, executor.map(_label_task, label_tasks)):
            counts += found
            figures.add(hi - lo, seconds, int(read), int(written))
            done += hi - lo
            if progress is not None:
                progress("label", done, total)
        manifest.labelled[ply] = [int(c) for c in counts]
        manifest.seconds["label"] = manifest.seconds.get("label", 0.0) + time.perf_counter() - began
        began = time.perf_counter()
        _save(bdir, manifest)
        bdir.remove(_folder("values", ply + 1))
        bdir.remove(_folder("reach", ply))
    bdir.remove(_folder("values", 0))
    return DenseBuild(game, index, bdir, manifest)


__all__ = ["TASK_SLOTS", "DenseBuild", "DenseJob", "DenseManifest", "TaskFigures", "build_dense", "compiled_index", "read_blocks"]
