"""States-only storage: every class with its outcome and distance, no moves table.

For variants whose moves table would be too large (``mnk-5-4-4`` has about
1.5 billion moves between 170 million classes), the ``states`` table alone is
written and the variant row says ``storage = 'states'``; the query layer then
derives moves from the rules and looks their children up by key.

Rows go in the order of their text key (the game's
:meth:`~tablebase.games.common.kernels.VectorKernels.key_order`, else a sort of the
formatted keys), so the unique index on ``(variant_id, key)`` grows at its
end instead of being updated at random; the index on ``(variant_id, ply)``
would be updated in the middle, so when the new rows outnumber the rest it
is dropped and rebuilt after the load (one sort). Outcomes come from a fixed
vocabulary, checked in numpy, so the per-row ``CHECK`` is skipped while
loading (``PRAGMA ignore_check_constraints``). A build into a file that holds no
other variant goes into a fresh temporary file with journalling off (nothing
to protect there) and is renamed over the target at the end: the old file
stays intact and readable until then. When the file holds other variants,
the rows are loaded in one transaction of the file itself, as the moves
writer does.
"""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator, NamedTuple, Protocol

import numpy as np

from tablebase.store import bulk
from tablebase.store.proved import insert_variant
from tablebase.store.writer import (
    PlyTally,
    drop_secondary_indexes,
    load_pragmas,
    load_transaction,
    rebuild_indexes,
    replace_variant,
    set_build_seconds,
    state_columns,
)

if TYPE_CHECKING:
    from tablebase.games.base import Game
    from tablebase.solve import Progress, Solution

#: Rows per bulk insert.
CHUNK = 200_000
#: Page cache while loading, in KiB.
LOAD_CACHE_KIB = 1 << 21


class Layers(Protocol):
    """What the writer reads: per-layer arrays of states, outcome codes and distances."""

    game: Game

    @property
    def symmetry(self) -> bool: ...

    @property
    def depths(self) -> list[int]: ...

    def states(self, depth: int) -> np.ndarray: ...

    def outcome(self, depth: int) -> np.ndarray: ...

    def distance(self, depth: int) -> np.ndarray: ...

    def result(self) -> tuple[str, int | None]: ...


class SolutionLayers:
    """An in-memory :class:`~tablebase.solve.Solution` seen as layers (one per ply)."""

    def __init__(self, solution: Solution):
        self.game = solution.game
        self.symmetry = solution.symmetry
        self.solution = solution
        ply = solution.ply
        states = np.asarray(solution.states, dtype=np.uint64)
        self._index = {int(d): np.flatnonzero(ply == d) for d in np.unique(ply)}
        self._states = states

    @property
    def depths(self) -> list[int]:
        return sorted(self._index)

    def states(self, depth: int) -> np.ndarray:
        return self._states[self._index[depth]]

    def outcome(self, depth: int) -> np.ndarray:
        return self.solution.outcome[self._index[depth]]

    def distance(self, depth: int) -> np.ndarray:
        return self.solution.distance[self._index[depth]]

    def result(self) -> tuple[str, int | None]:
        return self.solution.result()


def _insert_order(layers: Layers, progress: Progress | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(depth of each row, index within its layer, offsets)`` for all rows, in text-key order."""
    kernels = layers.game.vector
    depths = layers.depths
    sizes = [len(layers.states(d)) for d in depths]
    offsets = np.zeros(len(depths) + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    keys = []
    for d in depths:
        states = layers.states(d)
        part = []
        for lo in range(0, len(states), 1 << 22):
            chunk = np.array(states[lo : lo + (1 << 22)])
            order = kernels.key_order(chunk) if kernels is not None else None
            if order is None:
                texts = kernels.format_positions(chunk) if kernels is not None else [
                    layers.game.format_position(int(s)) for s in chunk
                ]
                part.append(np.array(texts))
            else:
                part.append(order)
        keys.append(np.concatenate(part) if part else np.empty(0, dtype=np.uint64))
        if progress is not None:
            progress("key order", int(offsets[len(keys)]), int(offsets[-1]))
    allkeys = np.concatenate(keys) if keys else np.empty(0, dtype=np.uint64)
    del keys
    order = np.argsort(allkeys, kind="stable")
    del allkeys
    layer_of = np.searchsorted(offsets, order, side="right") - 1
    return layer_of.astype(np.int16), order - offsets[layer_of], offsets


def _rows(layers: Layers, chunk: int, progress: Progress | None, tally: PlyTally) -> Iterator[dict[str, bulk.Column]]:
    """Columns of ``states`` rows (all but the variant id), a chunk at a time, in text-key order."""
    depths = layers.depths
    layer_of, index, _ = _insert_order(layers, progress)
    cache = {d: (np.asarray(layers.states(d)), np.asarray(layers.outcome(d)), np.asarray(layers.distance(d))) for d in depths}
    n = int(layer_of.size)
    for lo in range(0, n, chunk):
        which = layer_of[lo : lo + chunk]
        at = index[lo : lo + chunk]
        states = np.empty(at.size, dtype=np.uint64)
        outcome = np.empty(at.size, dtype=np.int8)
        distance = np.empty(at.size, dtype=np.int32)
        ply = np.empty(at.size, dtype=np.int64)
        for i, d in enumerate(depths):
            sel = which == i
            if sel.any():
                s, o, dd = cache[d]
                states[sel] = s[at[sel]]
                outcome[sel] = o[at[sel]]
                distance[sel] = dd[at[sel]]
                ply[sel] = d
        yield state_columns(layers.game, states, ply, outcome, distance, layers.symmetry, tally=tally)
        if progress is not None:
            progress("write", min(n, lo + chunk), n)


class Summary(NamedTuple):
    """What the ``variants`` row of a build records: the game, symmetry reduction, the start's value, the states stored."""

    game: Game
    symmetry: bool
    result: tuple[str, int | None]
    states: int


def summary(layers: Layers) -> Summary:
    """The :class:`Summary` of finished layers."""
    return Summary(layers.game, layers.symmetry, layers.result(), sum(len(layers.states(d)) for d in layers.depths))


def _load(
    cur: sqlite3.Cursor,
    built: Summary,
    variant_id: int,
    storage: str,
    build_seconds: float,
    fill: Callable[[sqlite3.Cursor, int], PlyTally],
) -> None:
    """Insert the variant's row, let ``fill`` write its data (returning the per-ply counts), record the time."""
    started = time.perf_counter()
    game = built.game
    outcome, distance = built.result
    root = game.initial_state()
    root_key = game.format_position(game.canonical(root)[0] if built.symmetry else root)
    insert_variant(
        cur, variant_id, game, root_key, symmetry=built.symmetry, storage=storage,
        outcome=outcome, distance=distance, states=built.states, build_seconds=build_seconds,
    )  # fmt: skip
    fill(cur, variant_id).write(cur, variant_id)
    set_build_seconds(cur, variant_id, build_seconds + time.perf_counter() - started)


def _fill_states(
    cur: sqlite3.Cursor, layers: Layers, variant_id: int, chunk: int, progress: Progress | None
) -> PlyTally:
    n = sum(len(layers.states(d)) for d in layers.depths)
    others = cur.execute("SELECT COALESCE(SUM(states_count), 0) FROM variants WHERE id != ?", (variant_id,)).fetchone()[0]
    rebuilt = drop_secondary_indexes(cur, "states") if others <= n else []
    tally = PlyTally(layers.symmetry)
    for columns in bulk.prefetch(_rows(layers, chunk, progress, tally)):
        bulk.insert(cur, "states", {"variant_id": bulk.Constant(int(variant_id)), **columns})
    if rebuilt and progress is not None:
        progress("index", 0, None)
    rebuild_indexes(cur, rebuilt)
    return tally


def _other_variants(path: Path, name: str) -> int:
    if not path.exists() or path.stat().st_size == 0:
        return 0
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if "variants" not in tables:
            return 0
        return int(conn.execute("SELECT COUNT(*) FROM variants WHERE name != ?", (name,)).fetchone()[0])
    finally:
        conn.close()


def write_states(
    path: str | os.PathLike[str],
    layers: Layers,
    build_seconds: float,
    progress: Progress | None = None,
    chunk: int = CHUNK,
) -> None:
    """Store ``layers`` in the SQLite file ``path`` with ``storage = 'states'``, replacing an earlier build."""
    replace_variant_data(
        Path(path), summary(layers), "states", build_seconds,
        lambda cur, vid: _fill_states(cur, layers, vid, chunk, progress), progress,
    )  # fmt: skip


def replace_variant_data(
    target: Path,
    built: Summary,
    storage: str,
    build_seconds: float,
    fill: Callable[[sqlite3.Cursor, int], PlyTally],
    progress: Progress | None = None,
    page_size: int | None = None,
) -> None:
    """Replace the variant ``built.game`` in ``target`` by a new one of storage ``storage``, whose data
    ``fill`` writes (see the module notes). A file made anew gets pages of ``page_size`` bytes
    (default SQLite's); a file that holds other variants keeps its own."""
    from tablebase.store.engine import make_engine, upgrade

    if _other_variants(target, built.game.name) == 0:
        fresh = target.with_name(target.name + ".building")
        for leftover in (fresh, Path(f"{fresh}-wal"), Path(f"{fresh}-shm")):
            leftover.unlink(missing_ok=True)
        if page_size is not None:
            conn = sqlite3.connect(fresh)
            try:
                conn.execute(f"PRAGMA page_size = {int(page_size)}")
                conn.execute("VACUUM")
            finally:
                conn.close()
        engine = make_engine(fresh)
        upgrade(engine)
        engine.dispose()
        conn = sqlite3.connect(fresh, isolation_level=None)
        try:
            cur = conn.cursor()
            # a private file until the rename below: no journal, no syncs until the end
            cur.execute("PRAGMA journal_mode = OFF")
            cur.execute("PRAGMA synchronous = OFF")
            cur.execute("PRAGMA locking_mode = EXCLUSIVE")
            load_pragmas(cur, LOAD_CACHE_KIB)
            cur.execute("BEGIN")
            _load(cur, built, 1, storage, build_seconds, fill)
            cur.execute("COMMIT")
            cur.execute("PRAGMA journal_mode = WAL")
            if progress is not None:
                progress("analyze", 0, None)
            cur.execute("ANALYZE")
        finally:
            conn.close()
        with open(fresh, "rb+") as f:
            os.fsync(f.fileno())
        for stale in (Path(f"{target}-wal"), Path(f"{target}-shm")):
            stale.unlink(missing_ok=True)
        os.replace(fresh, target)
        for leftover in (Path(f"{fresh}-wal"), Path(f"{fresh}-shm")):
            leftover.unlink(missing_ok=True)
        return
    engine = make_engine(target)
    upgrade(engine)
    try:
        with load_transaction(engine, LOAD_CACHE_KIB) as cur:
            _load(cur, built, replace_variant(cur, built.game.name), storage, build_seconds, fill)
    finally:
        engine.dispose()
