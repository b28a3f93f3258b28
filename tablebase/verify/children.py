"""The audit of stored states against their children derived from the rules (no moves table needed):
every state on the array kernels, ply by ply where the storage hands out sorted plies, else state by
state or a random sample."""

from __future__ import annotations

import sqlite3
from itertools import islice
from typing import TYPE_CHECKING, Callable, Iterable, Iterator

import numpy as np

from tablebase.errors import TablebaseError
from tablebase.outcome import label_from_children
from tablebase.results import VerifyReport
from tablebase.verify.checks import CHUNK, check_children_arrays, check_states_vector, parse_chunk, report_rows
from tablebase.verify.layers import verify_layers_vector

if TYPE_CHECKING:
    from tablebase.games.common.kernels import VectorKernels
    from tablebase.progress import Progress
    from tablebase.reader import StoredVariant
    from tablebase.store.storage import Row


class _Refs:
    """The references of rows read chunk by chunk, kept as one range while they are consecutive."""

    def __init__(self) -> None:
        self.first: int | None = None
        self.count = 0
        self.parts: list[np.ndarray] | None = None

    def add(self, refs: np.ndarray) -> None:
        if not refs.size:
            return
        if self.parts is None:
            if self.first is None:
                self.first = int(refs[0])
            if int(refs[0]) == self.first + self.count and int(refs[-1]) - int(refs[0]) + 1 == refs.size:
                self.count += int(refs.size)
                return
            self.parts = [np.arange(self.first, self.first + self.count, dtype=np.int64)]
        self.parts.append(refs)

    def lookup(self) -> Callable[[int], int]:
        """The reference of the ``i``-th row added."""
        if self.parts is None:
            first = self.first or 0
            return lambda i: first + i
        refs = np.concatenate(self.parts)
        return lambda i: int(refs[i])


def verify_children(
    table: StoredVariant,
    sample: int | None = None,
    seed: int = 0,
    vector: bool | None = None,
    progress: Progress | None = None,
) -> VerifyReport:
    """Check stored states against their children derived from the rules (no moves table needed).

    Each checked state is parsed from its key; its terminal flag and outcome
    must match the rules, and its label must follow from the stored labels
    of its children (looked up by canonical key) by the rule of the builder.
    ``sample`` checks that many states drawn at random (with a fixed
    ``seed``); ``None`` checks every state, on the game's array kernels when
    it has them (``vector=False``: state by state). This is the check for
    states-only storage.
    """
    report = VerifyReport(table.name)
    with table.snapshot() as conn:
        count = table.info.states
        if not count:
            report.add("no states stored")
            return report
        kernels = table.game.vector
        if sample is None and kernels is not None and table.info.complete and vector is not False:
            layers = table.storage.sorted_layers(conn, report.add) if kernels.layered else None
            if layers is not None:
                verify_layers_vector(table, kernels, layers, report, progress)
            else:
                _verify_children_vector(conn, table, kernels, report, progress)
            return report
        rows: Iterable[Row]
        if sample is None:
            rows = table.storage.rows(conn)
        else:
            rows = table.storage.sample(conn, min(sample, count), seed)
        total = count if sample is None else min(sample, count)
        empty = True
        for chunk in _chunks(rows, 2_000):
            empty = False
            _check_children(conn, table, chunk, report)
            if progress is not None:
                progress("check", report.states, total)
        if empty:
            report.add("no states stored")
    return report


def _verify_children_vector(
    conn: sqlite3.Connection,
    table: StoredVariant,
    kernels: VectorKernels,
    report: VerifyReport,
    progress: Progress | None = None,
) -> None:
    """:func:`verify_children` of every state on the array kernels.

    One pass reads the rows a chunk at a time and checks each state alone
    (:func:`check_states_vector`), keeping the states and labels as arrays;
    these are sorted by state once, and then each chunk of parents has its
    children generated, found among the stored states by binary search, and
    its labels checked against theirs (:func:`check_labels`). Memory is
    about 25 bytes per stored state.
    """
    refs = _Refs()
    states, outcome, distance, live = [], [], [], []
    for rows in table.storage.state_chunks(conn, CHUNK):
        parsed, ok = parse_chunk(rows, kernels.parse_positions)
        valid, ends = check_states_vector(
            table, kernels, rows.keys.__getitem__, parsed, ok, rows.to_move, rows.terminal, rows.outcome,
            rows.distance, report,
        )
        report.states += len(rows.keys)
        if progress is not None:
            progress("read", report.states, table.info.states)
        refs.add(rows.refs)
        states.append(parsed)
        outcome.append(rows.outcome)
        distance.append(rows.distance.astype(np.int32))
        live.append(valid & ~ends)
    if not states:
        report.add("no states stored")
        return
    state = np.concatenate(states)
    del states
    order = np.argsort(state)
    state = state[order]
    label, dist, alive = (np.concatenate(parts)[order] for parts in (outcome, distance, live))
    del outcome, distance, live
    ref_of = refs.lookup()
    keys: dict[int, str] = {}

    def key(i: int) -> str:
        """The stored key of the ``i``-th state in sorted order."""
        if i not in keys:
            keys[i] = table.storage.key(conn, ref_of(int(order[i])))
        return keys[i]

    n = len(state)
    report_rows(report, np.flatnonzero(state[1:] == state[:-1]) + 1, lambda i: f"{key(i)}: stored twice")
    for lo in range(0, n, CHUNK):
        rows_at = lo + np.flatnonzero(alive[lo : lo + CHUNK])
        check_children_arrays(kernels, table.info.symmetry, state, label, dist, rows_at, state, label, dist, key, report)
        if progress is not None:
            progress("children", min(n, lo + CHUNK), n)


def _chunks(rows: Iterable[Row], size: int) -> Iterator[list[Row]]:
    it = iter(rows)
    while chunk := list(islice(it, size)):
        yield chunk


def _check_children(conn: sqlite3.Connection, table: StoredVariant, rows: list[Row], report: VerifyReport) -> None:
    game = table.game
    parsed = []
    for _, key, to_move, terminal, outcome, distance in rows:
        try:
            state = game.parse_position(key)
        except TablebaseError as exc:
            report.add(f"{key}: stored key does not parse: {exc}")
            continue
        report.states += 1
        result = game.outcome(state)
        if bool(terminal) != (result is not None):
            report.add(f"{key}: stored terminal={bool(terminal)}, rules say {result is not None}")
            continue
        if to_move != game.to_move(state):
            report.add(f"{key}: stored side to move {to_move!r}, rules say {game.to_move(state)!r}")
        if result is not None:
            if outcome != result or distance not in (0,):
                report.add(f"{key}: terminal {outcome}/{distance}, rules say {result}/0")
            continue
        parsed.append((key, outcome, distance, [child for _, child in game.children(state)]))
    children = [c for *_, kids in parsed for c in kids]
    report.moves += len(children)
    values = table.storage.values(conn, [table.canonical(c)[0] for c in children]) if children else []
    at = 0
    for key, outcome, distance, kids in parsed:
        mine = values[at : at + len(kids)]
        at += len(kids)
        if any(v is None for v in mine):
            report.add(f"{key}: a position after one of its moves is not stored")
            continue
        expected = label_from_children(v for v in mine if v is not None)
        if (outcome, distance) != expected:
            report.add(f"{key}: stored {outcome}/{distance}, children say {expected[0]}/{expected[1]}")
