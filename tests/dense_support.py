"""Checks shared by the dense tests of every family: a dense build against a packed one of the
same variant, and a stored value changed behind the library's back."""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from tablebase.games.playouts import playout

import tablebase
from tablebase.store.dense import decode_block, encode_block


def build_both(path: Path, names: list[str]) -> tuple[tablebase.Tablebase, tablebase.Tablebase]:
    """``names`` built dense into ``path/dense.db`` and packed into ``path/packed.db``."""
    dense, packed = tablebase.open(path / "dense.db"), tablebase.open(path / "packed.db")
    for name in names:
        dense.build(name, storage="dense")
        packed.build(name, storage="packed")
    return dense, packed


def check_dense_is_packed(a: tablebase.VariantTable, b: tablebase.VariantTable, games: int, seed: int = 7) -> None:
    """The dense table ``a`` holds what the packed table ``b`` holds: the same sorted layers and
    stats, and the same probes, predecessors and line along ``games`` random games."""
    assert a.info.storage == "dense" and b.info.storage == "packed"
    with a.snapshot() as ca, b.snapshot() as cb:
        layers_a = {p: arrays for p, *arrays in a.storage.sorted_layers(ca, pytest.fail)}
        layers_b = {p: arrays for p, *arrays in b.storage.sorted_layers(cb, pytest.fail)}
    assert layers_a.keys() == layers_b.keys()
    for ply in layers_a:
        for x, y in zip(layers_a[ply], layers_b[ply]):
            assert np.array_equal(x, y), (a.info.name, ply)
    assert a.stats().to_dict() == b.stats().to_dict()
    assert a.info.outcome == b.info.outcome and a.info.distance == b.info.distance
    rng = random.Random(seed)
    for _ in range(games):
        for state in playout(a.game, rng):
            position = a.game.format_position(state)
            assert a.probe(position).to_dict() == b.probe(position).to_dict()
            assert a.predecessors(position).to_dict() == b.predecessors(position).to_dict()
    assert a.line().to_dict() == b.line().to_dict()


def change_a_stored_value(path: Path, ply: int, stored: Callable[[int], bool]) -> int:
    """Give a slot of the first block of ``ply`` that holds a value and passes ``stored`` (the
    slot's number within the ply) another value (a win in 30) behind the library's back; its
    slot within the ply."""
    conn = sqlite3.connect(path)
    first, count, data = conn.execute(
        "SELECT first_state, count, data FROM blocks WHERE ply = ? ORDER BY first_state LIMIT 1", (ply,)
    ).fetchone()
    values = decode_block(data, ply, first, count).copy()
    offset = next(s for s in range(count) if values[s] and stored(first + s))
    values[offset] = 1 | 30 << 2
    conn.execute(
        "UPDATE blocks SET data = ? WHERE ply = ? AND first_state = ?", (encode_block(values, ply, first), ply, first)
    )
    conn.commit()
    conn.close()
    return first + offset
