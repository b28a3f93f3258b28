"""Dense storage of Connect Four boards: the index, builds against the packed storage and
Tromp's table, verify catching damage, the planner's choice, and positions no game reaches."""

from __future__ import annotations

import random
import sqlite3
import struct
import zlib
from pathlib import Path

import numpy as np
import pytest
from dense_support import build_both, change_a_stored_value, check_dense_is_packed
from tablebase.games.playouts import playout

import tablebase
from tablebase import build
from tablebase.errors import BuildError, MalformedPositionError
from tablebase.games import get
from tablebase.games.connect4 import Connect4Game, has_four, to_bitboards
from tablebase.games.connect4.index import Connect4Index
from tablebase.store import block_codec, dense
from tablebase.store.dense import BLOCK, BYTES_FLAG, PART, _runs, decode_block, encode_block

pytest.importorskip("numba")

from pons_scorer import PonsScorer  # noqa: E402

#: Legal positions per board and the start's value for x: John Tromp's tables, "John's Connect
#: Four Playground" (https://tromp.github.io/c4/c4.html); 6x4 is a second-player win whose last
#: disc is the 24th (the results table of github.com/ChristopheSteininger/c4 agrees).
TROMP = {
    "connect4-4-4": (161_029, "draw"),
    "connect4-4-5": (1_706_255, "draw"),
    "connect4-6-4": (94_910_577, "loss"),
    "connect4-5-5": (69_763_700, "draw"),
}


@pytest.mark.parametrize(
    "name", ["connect4-4-4", "connect4-6-5", "connect4-7-4", pytest.param("connect4", marks=pytest.mark.slow)]
)
def test_slot_and_state_are_inverse_on_random_games(name: str) -> None:
    game = get(name)
    assert isinstance(game, Connect4Game)
    index = Connect4Index(game.columns, game.rows)
    sizes = index.ply_sizes()
    rng = random.Random(5)
    seen: dict[tuple[int, int], int] = {}
    for _ in range(30):
        for state in playout(game, rng):
            ply, slot = index.slot(state)
            assert ply == game.plies_played(state)
            assert 0 <= slot < sizes[ply]
            assert index.state(ply, slot) == game.canonical(state)[0]
            assert seen.setdefault((ply, slot), game.canonical(state)[0]) == game.canonical(state)[0]


def test_every_slot_of_the_first_plies_is_a_distinct_state() -> None:
    index = Connect4Index(4, 4)
    for ply in range(7):
        states = [index.state(ply, slot) for slot in range(index.ply_sizes()[ply])]
        assert len(set(states)) == len(states)
        game = get("connect4-4-4")
        for slot, state in enumerate(states):
            if game.canonical(state)[0] == state:
                assert index.slot(state) == (ply, slot)


def test_derived_values_are_the_rules() -> None:
    game = get("connect4-4-4")
    assert isinstance(game, Connect4Game)
    index = Connect4Index(4, 4)
    rng = random.Random(2)
    for _ in range(50):
        for state in playout(game, rng):
            value = index.derived(state)
            children = game.children(state)
            if game.outcome(state) is not None:
                assert value == (2 | 1 << 2 if game.outcome(state) == "loss" else 3 | 1 << 2)
            elif any(game.outcome(child) == "loss" for _, child in children):
                assert value == 1 | 2 << 2
            else:
                assert value is None


@pytest.mark.slow
@pytest.mark.parametrize("name", ["connect4-4-4", "connect4-4-5"])
def test_dense_stores_what_packed_stores(tmp_path: Path, name: str) -> None:
    dense, packed = build_both(tmp_path, [name])
    check_dense_is_packed(dense.variant(name), packed.variant(name), games=20)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["connect4-6-4", "connect4-5-5"])
def test_dense_builds_agree_with_tromp(tmp_path: Path, name: str) -> None:
    positions, start = TROMP[name]
    with tablebase.open(tmp_path / "c4.db") as tb:
        tb.build(name)
        table = tb.variant(name)
        assert table.info.storage == "dense"
        assert table.stats().positions == positions
        probe = table.probe()
        assert probe.outcome == start
        if name == "connect4-6-4":
            assert probe.distance == 24
        report = tb.verify(name)
        assert report.ok and report.states == table.stats().classes
        # every column's value against an independent search (alpha-beta over Pons' scores)
        game = table.game
        assert isinstance(game, Connect4Game)
        solver = PonsScorer(game.columns, game.rows, 1 << 20)
        rng = random.Random(11)
        checked = 0
        for _ in range(12):
            for state in playout(game, rng)[8:-1]:
                probe = table.probe(game.format_position(state))
                assert (probe.outcome, probe.distance) == solver.label(state)
                for move in probe.moves:
                    # a move's value is its mover's: the child's value turned round, one ply longer
                    child = game.parse_position(move.position)
                    over = game.outcome(child)
                    outcome, distance = (over, 0) if over is not None else solver.label(child)
                    expected = {"win": "loss", "loss": "win", "draw": "draw"}[outcome], distance + 1
                    assert (move.outcome, move.distance) == expected, move
                checked += 1
        assert checked > 100


@pytest.mark.slow
def test_verify_finds_a_label_changed_in_the_file(tmp_path: Path) -> None:
    path = tmp_path / "c4.db"
    with tablebase.open(path) as tb:
        tb.build("connect4-4-4", storage="dense")
        assert tb.verify("connect4-4-4").ok
    ply = 8
    index = Connect4Index(4, 4)
    game = get("connect4-4-4")

    def stored(slot: int) -> bool:
        """A canonical position that can arise, whose value the rules do not give."""
        state = index.state(ply, slot)
        return game.canonical(state)[0] == state and game.can_arise(state) and index.derived(state) is None

    slot = change_a_stored_value(path, ply, stored)
    with tablebase.open(path) as tb:
        report = tb.verify("connect4-4-4")
        assert not report.ok
        assert any(game.format_position(index.state(ply, slot)) in e for e in report.errors)


@pytest.mark.slow
def test_a_corrupt_block_is_named(tmp_path: Path) -> None:
    path = tmp_path / "c4.db"
    with tablebase.open(path) as tb:
        tb.build("connect4-4-4", storage="dense")
    conn = sqlite3.connect(path)
    first, data = conn.execute("SELECT first_state, data FROM blocks WHERE ply = 6 LIMIT 1").fetchone()
    damaged = data[:12] + bytes([data[12] ^ 0xFF]) + data[13:]
    conn.execute("UPDATE blocks SET data = ? WHERE ply = 6 AND first_state = ?", (damaged, first))
    conn.commit()
    conn.close()
    with tablebase.open(path) as tb:
        report = tb.verify("connect4-4-4")
        assert not report.ok
        assert any("ply 6" in e and "corrupt" in e for e in report.errors)


def test_a_block_holds_block_slots() -> None:
    values = np.zeros(BLOCK, dtype=np.uint8)
    values[[3, 100, 5000]] = [9, 13, 22]
    decoded = decode_block(encode_block(values, 5, BLOCK), 5, BLOCK, BLOCK)
    # slots after a stored one repeat it; slots before the first stored one stay 0
    assert decoded[:3].tolist() == [0, 0, 0]
    assert decoded[3:100].tolist() == [9] * 97 and decoded[100] == 13 and decoded[4999] == 13 and decoded[-1] == 22


def test_parts_are_stored_as_bytes_or_as_runs() -> None:
    rng = np.random.default_rng(7)
    values = np.zeros(BLOCK, dtype=np.uint8)
    values[:PART] = rng.integers(1, 40, PART)  # short runs: the part's bytes compress best
    values[PART + 5] = 9  # one long run: its runs are a few bytes
    values[2 * PART :: 3] = 13
    data = encode_block(values, 4, 0)
    ends = struct.unpack_from("<4H", data, 8)
    assert ends[0] & BYTES_FLAG and not ends[1] & BYTES_FLAG
    decoded = decode_block(data, 4, 0, BLOCK)
    assert decoded[:PART].tolist() == values[:PART].tolist()
    assert decoded[PART : PART + 5].tolist() == [values[PART - 1]] * 5 and set(decoded[PART + 5 : 2 * PART].tolist()) == {9}
    assert decoded[2 * PART :: 3].tolist() == values[2 * PART :: 3].tolist()


def test_the_planner_picks_dense_for_large_gravity_boards() -> None:
    plan = build.plan("connect4-6-4", symmetry=True, storage=None, path_known=True)
    assert plan.storage is not None and plan.storage.name == "dense"
    assert build.plan("connect4-4-4", symmetry=True, storage=None, path_known=True).storage is None
    assert build.plan("connect4-6-4", symmetry=False, storage=None, path_known=True).storage is None
    with pytest.raises(BuildError, match="symmetry"):
        build.plan("connect4-6-4", symmetry=False, storage="dense", path_known=True)
    with pytest.raises(BuildError, match="cannot be stored dense"):
        build.plan("rota", symmetry=True, storage="dense", path_known=True)


def test_positions_no_game_reaches_are_refused() -> None:
    game = get("connect4-4-4")
    # column 1 holds x, x, o, o from the bottom: after x's first disc o must answer, and cannot there
    with pytest.raises(MalformedPositionError, match="no game reaches it"):
        game.parse_position("o.../o.../x.../x...")
    assert game.can_arise(game.parse_position("o.../x.../o.../x..."))


@pytest.mark.slow
def test_can_arise_agrees_with_a_walk_from_the_start() -> None:
    game = get("connect4-4-4")
    index = Connect4Index(4, 4)
    frontier = {game.initial_state()}
    for ply in range(17):
        reached = frontier
        for slot in range(index.ply_sizes()[ply]):
            state = index.state(ply, slot)
            x_bits, mask = to_bitboards(state, 4, 4)
            both = has_four(x_bits, 4) and has_four(mask ^ x_bits, 4)
            assert (state in reached) == (not both and game.can_arise(state)), game.format_position(state)
        frontier = {child for s in frontier for _, child in game.children(s)}


@pytest.mark.slow
def test_export_reads_dense(tmp_path: Path) -> None:
    dense, packed = build_both(tmp_path, ["connect4-4-4"])
    dense.export("connect4-4-4", tmp_path / "a.db", plies=(0, 5))
    packed.export("connect4-4-4", tmp_path / "b.db", plies=(0, 5))
    rows = [
        sqlite3.connect(tmp_path / f).execute("SELECT key, outcome, distance FROM states ORDER BY key").fetchall()
        for f in ("a.db", "b.db")
    ]
    assert rows[0] == rows[1] and len(rows[0]) > 100


def _format_2(values: np.ndarray, ply: int, first: int) -> bytes:
    """A block as format 2 wrote it: one zlib stream of the whole block's runs, the CRC of the runs."""
    at = np.where(values != 0, np.arange(values.size), 0)
    filled = values[np.maximum.accumulate(at)]
    ends = np.append(np.flatnonzero(np.diff(filled)) + 1, filled.size)
    lengths = np.diff(ends, prepend=0).astype("<u2")
    raw = filled[ends - 1].tobytes() + np.ascontiguousarray(lengths.view(np.uint8).reshape(-1, 2).T).tobytes()
    crc = zlib.crc32(raw, zlib.crc32(struct.pack("<qqq", ply, first, values.size)))
    return struct.pack("<BBBxI", 2, 0, 1, crc) + zlib.compress(raw, 9)


@pytest.mark.slow
def test_blocks_read_alike_with_and_without_libdeflate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("deflate")
    assert block_codec._inflate_exact is not None
    path = tmp_path / "c4.db"
    with tablebase.open(path) as tb:
        tb.build("connect4-4-5", storage="dense")
    rows = sqlite3.connect(path).execute("SELECT ply, first_state, count, data FROM blocks").fetchall()
    assert any(struct.unpack_from("<H", data, 8)[0] & BYTES_FLAG for _, _, _, data in rows)
    with_lib = [decode_block(data, ply, first, count).tolist() for ply, first, count, data in rows]
    monkeypatch.setattr(block_codec, "_inflate_exact", None)
    monkeypatch.setattr(dense, "fast_crc32", zlib.crc32)
    assert [decode_block(data, ply, first, count).tolist() for ply, first, count, data in rows] == with_lib


def _format_3(values: np.ndarray, ply: int, first: int) -> bytes:
    """A block as format 3 wrote it: every part as its runs."""
    at = np.where(values != 0, np.arange(values.size), 0)
    filled = values[np.maximum.accumulate(at)]
    streams = []
    for lo in range(0, filled.size, PART):
        packer = zlib.compressobj(9, zlib.DEFLATED, -15)
        streams.append(packer.compress(_runs(filled[lo : lo + PART])) + packer.flush())
    body = np.cumsum([len(s) for s in streams]).astype("<u2").tobytes() + b"".join(streams)
    crc = zlib.crc32(body, zlib.crc32(struct.pack("<qqq", ply, first, values.size)))
    return struct.pack("<BBBxI", 3, len(streams), 0, crc) + body


@pytest.mark.slow
@pytest.mark.parametrize("version", [2, 3])
def test_blocks_of_earlier_formats_still_read(tmp_path: Path, version: int) -> None:
    path = tmp_path / "c4.db"
    positions = ["..../..../..../....", "..../..../.o../.xx.", "..../x.../o.o./xxox"]
    with tablebase.open(path) as tb:
        tb.build("connect4-4-4", storage="dense")
        before = [tb.variant("connect4-4-4").probe(p) for p in positions]
    conn = sqlite3.connect(path)
    rows = conn.execute("SELECT rowid, ply, first_state, count, data FROM blocks").fetchall()
    for rowid, ply, first, count, data in rows:
        old = (_format_2 if version == 2 else _format_3)(decode_block(data, ply, first, count), ply, first)
        conn.execute("UPDATE blocks SET data = ? WHERE rowid = ?", (old, rowid))
    conn.commit()
    assert {d[0] for (d,) in conn.execute("SELECT data FROM blocks")} == {version}
    conn.close()
    with tablebase.open(path) as tb:
        assert [tb.variant("connect4-4-4").probe(p) for p in positions] == before
        assert tb.verify("connect4-4-4").ok


@pytest.mark.parametrize("name", ["connect4-4-4", "connect4-7-4", "connect4-6-5"])
def test_children_agree_with_find(name: str) -> None:
    # each child's slot comes from the parent's colouring; find works it out from the child alone
    game = get(name)
    rng = random.Random(name)
    index = Connect4Index(game.columns, game.rows)
    checked = 0
    for _ in range(30):
        state = game.initial_state()
        while game.outcome(state) is None:
            for move, child, derived, ply, slot in index.children(state):
                assert child == game.apply(state, move)
                assert index.find(child) == (derived, ply, slot), game.format_position(child)
                checked += 1
            state = game.apply(state, rng.choice(game.legal_moves(state)))
    assert checked > 500
