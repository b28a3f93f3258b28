"""Bulk inserts with no Python object per row: a chunk of rows travels as one byte string per column.

Each column of a chunk is packed by numpy into fixed-width fields (decimal
digits for integers, bytes for texts) and bound as a single blob; one
``INSERT ... SELECT`` over a temporary table of row numbers cuts the fields
out with ``substr`` and converts them, so SQLite runs the whole chunk in C,
instead of binding every value of every row from Python as ``executemany``
does (``benchmarks/bulk_write.py`` compares the two).

Blobs, not texts, are bound: ``substr`` on a blob is a constant-time slice,
on a text it counts characters from the start.
"""

from __future__ import annotations

import sqlite3
import threading
from dataclasses import dataclass
from queue import Empty, Queue
from typing import Any, Iterator, Mapping, Sequence, TypeVar, Union

import numpy as np


@dataclass
class Ints:
    """An integer column; ``null`` marks the rows that are ``NULL``."""

    values: np.ndarray
    null: np.ndarray | None = None


@dataclass
class Texts:
    """A text column: ``str`` values, or a numpy ``S`` array of their UTF-8 bytes (no NUL bytes)."""

    values: Sequence[str] | np.ndarray


@dataclass
class Choice:
    """A column whose row ``i`` is ``labels[codes[i]]`` (texts or ``None``): outcomes, sides, moves."""

    codes: np.ndarray
    labels: Sequence[Any]


@dataclass
class Constant:
    """The same value in every row."""

    value: Any


Column = Union[Ints, Texts, Choice, Constant]
T = TypeVar("T")

#: The temporary table of row numbers that rows are generated from.
COUNTER = "temp.tablebase_bulk_rows"
#: Labels of a :class:`Choice` compared in a ``CASE``; a longer vocabulary is sent as texts.
_CASE_LABELS = 16


def _digits(values: np.ndarray) -> tuple[bytes, int]:
    """Non-negative integers as fixed-width ASCII decimal fields, and the width."""
    values = np.asarray(values, dtype=np.int64)
    top = int(values.max()) if values.size else 0
    width = len(str(top))
    powers = 10 ** np.arange(width - 1, -1, -1, dtype=np.int64)
    fields = (values[:, None] // powers) % 10 + ord("0")
    return fields.astype(np.uint8).tobytes(), width


def _field(param: str, width: int | str) -> str:
    return f"substr(:{param}, i * {width} + 1, {width})"


def _ints(name: str, values: np.ndarray, null: np.ndarray | None) -> tuple[str, dict[str, Any]]:
    values = np.asarray(values).astype(np.int64)
    if null is not None and np.any(null):
        null = np.asarray(null, dtype=bool)
        base = int(values[~null].min()) - 1 if not null.all() else -1
        shifted = values - base
        shifted[null] = 0
        blob, width = _digits(shifted)
        expr = f"NULLIF(CAST({_field(name, width)} AS INTEGER), 0)"
    else:
        base = int(values.min()) if values.size else 0
        blob, width = _digits(values - base)
        expr = f"CAST({_field(name, width)} AS INTEGER)"
    if base:
        expr = f"({expr} + {base})"
    return expr, {name: blob}


def _texts(name: str, values: Sequence[str] | np.ndarray) -> tuple[str, dict[str, Any]]:
    if isinstance(values, np.ndarray) and values.dtype.kind == "S":
        packed = values
    else:
        packed = np.array([str(v).encode() for v in values], dtype=bytes)
    width = max(1, packed.dtype.itemsize)
    packed = packed.astype(f"S{width}")
    lengths = np.char.str_len(packed)
    if packed.size == 0 or int(lengths.min()) == width:
        return f"CAST({_field(name, width)} AS TEXT)", {name: packed.tobytes()}
    blob, lw = _digits(lengths)
    length = f"CAST({_field(name + '_len', lw)} AS INTEGER)"
    return f"CAST(substr(:{name}, i * {width} + 1, {length}) AS TEXT)", {name: packed.tobytes(), name + "_len": blob}


def _choice(name: str, codes: np.ndarray, labels: Sequence[Any]) -> tuple[str, dict[str, Any]]:
    codes = np.asarray(codes)
    if len(labels) > _CASE_LABELS:
        table = np.array([b"" if label is None else str(label).encode() for label in labels], dtype=bytes)
        expr, text_params = _texts(name, table[codes])
        missing = [i for i, label in enumerate(labels) if label is None]
        if missing:
            null_expr, null_params = _ints(name + "_null", np.isin(codes, missing).astype(np.int64), None)
            return f"CASE {null_expr} WHEN 1 THEN NULL ELSE {expr} END", {**text_params, **null_params}
        return expr, text_params
    blob, width = _digits(codes)
    params: dict[str, Any] = {name: blob}
    arms = []
    for i, label in enumerate(labels):
        params[f"{name}_{i}"] = label
        arms.append(f"WHEN {i} THEN :{name}_{i}")
    return f"CASE CAST({_field(name, width)} AS INTEGER) {' '.join(arms)} END", params


def _encode(name: str, column: Column) -> tuple[str, dict[str, Any]]:
    if isinstance(column, Ints):
        return _ints(name, column.values, column.null)
    if isinstance(column, Texts):
        return _texts(name, column.values)
    if isinstance(column, Choice):
        return _choice(name, column.codes, column.labels)
    if isinstance(column, Constant):
        return f":{name}", {name: column.value}
    raise TypeError(f"not a bulk column: {column!r}")


def _length(column: Column) -> int | None:
    if isinstance(column, Ints):
        return len(column.values)
    if isinstance(column, Texts):
        return len(column.values)
    if isinstance(column, Choice):
        return len(column.codes)
    return None


def _counter(cur: sqlite3.Cursor, rows: int) -> None:
    """Make the temporary table of row numbers hold at least ``0 .. rows - 1``."""
    cur.execute(f"CREATE TEMP TABLE IF NOT EXISTS {COUNTER} (i INTEGER PRIMARY KEY)")
    have = cur.execute(f"SELECT COALESCE(MAX(i) + 1, 0) FROM {COUNTER}").fetchone()[0]
    if have < rows:
        cur.execute(
            f"WITH RECURSIVE r(i) AS (SELECT :have UNION ALL SELECT i + 1 FROM r WHERE i < :last)"
            f" INSERT INTO {COUNTER} (i) SELECT i FROM r",
            {"have": have, "last": rows - 1},
        )


def insert(cur: sqlite3.Cursor, table: str, columns: Mapping[str, Column], verb: str = "INSERT") -> int:
    """Insert one chunk of rows given column by column; returns the number of rows.

    ``verb`` may be ``"INSERT OR IGNORE"`` and the like. Every column but
    :class:`Constant` ones must hold the same number of rows. The row
    numbers come from a temporary table of the connection, which
    :func:`finish` drops.
    """
    lengths = {n for n in (_length(c) for c in columns.values()) if n is not None}
    if len(lengths) != 1:
        raise ValueError(f"bulk insert into {table}: columns of different lengths {sorted(lengths)}")
    rows = lengths.pop()
    if rows == 0:
        return 0
    _counter(cur, rows)
    exprs = []
    params: dict[str, Any] = {"rows": rows}
    for i, column in enumerate(columns.values()):
        expr, p = _encode(f"c{i}", column)
        exprs.append(expr)
        params.update(p)
    names = ", ".join(columns)
    cur.execute(
        f"{verb} INTO {table} ({names}) SELECT {', '.join(exprs)} FROM {COUNTER} WHERE i < :rows ORDER BY i",
        params,
    )
    return rows


def finish(cur: sqlite3.Cursor) -> None:
    """Drop the temporary table :func:`insert` uses."""
    cur.execute(f"DROP TABLE IF EXISTS {COUNTER}")


def prefetch(chunks: Iterator[T], depth: int = 2) -> Iterator[T]:
    """The chunks of ``chunks``, produced by a thread while the caller inserts the previous ones.

    SQLite releases the interpreter lock while it runs a statement, and the
    column builder spends most of its time in numpy, so the two overlap.
    """
    queue: Queue[Any] = Queue(maxsize=depth)
    done = object()
    stop = threading.Event()

    def produce() -> None:
        try:
            for item in chunks:
                if stop.is_set():
                    return
                queue.put(item)
            queue.put(done)
        except BaseException as exc:  # handed to the consumer
            queue.put(exc)

    thread = threading.Thread(target=produce, daemon=True)
    thread.start()
    try:
        while True:
            item = queue.get()
            if item is done:
                break
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()
        while thread.is_alive():
            try:
                queue.get_nowait()
            except Empty:
                thread.join(0.01)
