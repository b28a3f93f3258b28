"""Export of a packed variant (or some of its plies) as ordinary rows, for SQL browsers.

:class:`PackedLayers` reads the blocks of a packed variant ply by ply as the
arrays the writers take; :func:`export_variant` writes them into another
tablebase file with ``storage = 'states'`` (the ``states`` table) or
``'moves'`` (``states`` and ``moves``, the moves derived from the rules).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from tablebase.errors import BuildError, DatabaseError

if TYPE_CHECKING:
    from tablebase.reader import StoredVariant
    from tablebase.progress import Progress
    from tablebase.solve import Solution


def _raise(message: str) -> None:
    raise DatabaseError(message)


class PackedLayers:
    """The plies ``plies`` (inclusive; ``None``: all) of a packed variant as per-ply arrays."""

    def __init__(self, table: StoredVariant, plies: tuple[int, int] | None = None):
        self.game = table.game
        self._layers: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        with table.snapshot() as conn:
            # the row and the storage as this one snapshot has them
            self.info = table.info
            self.symmetry = self.info.symmetry
            layers = table.storage.sorted_layers(conn, _raise, plies)
            if layers is None:
                raise BuildError(
                    f"{table.name} is stored as {self.info.storage!r} rows already; export reads packed variants"
                )
            for ply, states, outcome, distance in layers:
                self._layers[ply] = (states, outcome, distance)

    @property
    def depths(self) -> list[int]:
        return sorted(self._layers)

    def states(self, depth: int) -> np.ndarray:
        return self._layers[depth][0]

    def outcome(self, depth: int) -> np.ndarray:
        return self._layers[depth][1]

    def distance(self, depth: int) -> np.ndarray:
        return self._layers[depth][2]

    def result(self) -> tuple[str, int | None]:
        return self.info.outcome or "draw", self.info.distance

    def solution(self) -> Solution:
        """The layers with their moves (derived from the rules, kept where both ends are exported)."""
        from tablebase.solve import Solution

        game = self.game
        depths = self.depths
        states = np.concatenate([self.states(d) for d in depths]) if depths else np.empty(0, dtype=np.uint64)
        ply = np.concatenate([np.full(self.states(d).size, d, dtype=np.int32) for d in depths]) if depths else states
        outcome = np.concatenate([self.outcome(d) for d in depths]) if depths else states
        distance = np.concatenate([self.distance(d) for d in depths]) if depths else states
        order = np.argsort(states, kind="stable")
        kernels = game.vector
        if kernels is not None:
            terminal = kernels.outcome(states) != 0
            parent, move, child = kernels.children(states[~terminal])
            parent = np.flatnonzero(~terminal)[parent]
            if self.symmetry:
                child = kernels.canonical(child)
        else:
            terminal = np.array([game.outcome(int(s)) is not None for s in states], dtype=bool)
            edges = [
                (i, m, game.canonical(c)[0] if self.symmetry else c)
                for i, s in enumerate(states.tolist())
                if not terminal[i]
                for m, c in game.children(s)
            ]
            parent = np.array([e[0] for e in edges], dtype=np.int64)
            move = np.array([e[1] for e in edges], dtype=np.int64)
            child = np.array([e[2] for e in edges], dtype=np.uint64)
        at = np.minimum(np.searchsorted(states[order], child), max(states.size - 1, 0))
        found = states[order][at] == child if states.size else np.zeros(child.size, dtype=bool)
        return Solution(
            game=game,
            symmetry=self.symmetry,
            states=states,
            ply=ply,
            terminal=terminal,
            src=parent[found],
            move=move[found],
            dst=order[at[found]],
            outcome=outcome,
            distance=distance.astype(np.int32),
        )


def export_variant(
    table: StoredVariant,
    to: str | os.PathLike[str],
    storage: str,
    plies: tuple[int, int] | None,
    progress: Progress | None,
) -> None:
    """Write the packed variant of ``table`` (or the plies ``plies``) into the file ``to`` as rows
    (what :meth:`tablebase.Tablebase.export` does)."""
    from tablebase.store.engine import make_engine, upgrade
    from tablebase.store.states import write_states
    from tablebase.store.writer import write_solution

    if storage not in ("states", "moves"):
        raise BuildError(f"cannot export to storage {storage!r}: use 'states' or 'moves'")
    target = Path(to)
    if target.exists() and target.resolve() == table.tablebase.path.resolve():
        raise BuildError(f"cannot export {table.name} into the file it is read from: {str(target)!r}")
    layers = PackedLayers(table, plies)
    if not layers.depths:
        raise BuildError(f"{table.name} has no states in plies {plies[0]}-{plies[1]}" if plies else f"{table.name} is empty")
    if storage == "states":
        write_states(target, layers, layers.info.build_seconds, progress=progress)
        return
    engine = make_engine(target)
    try:
        upgrade(engine)
        write_solution(engine, layers.solution(), layers.info.build_seconds, progress=progress)
        game = table.game
        root = game.canonical(game.initial_state())[0] if layers.symmetry else game.initial_state()
        with engine.begin() as conn:
            conn.exec_driver_sql(
                "UPDATE variants SET root_key = ?, outcome = ?, distance = ? WHERE name = ?",
                (game.format_position(root), layers.info.outcome, layers.info.distance, table.name),
            )
    finally:
        engine.dispose()
