"""Packed storage: the block codec, identical answers to the moves storage, corruption, export (killed builds: test_durability)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

import tablebase
from cli.main import app
from tablebase.errors import DatabaseError
from tablebase.store.packed import (
    KeyBlock,
    BlockCache,
    CorruptBlockError,
    decode_block,
    decode_part,
    encode_block,
    pack_values,
    unpack_values,
)

#: Every small variant of every family packed storage holds (bitboard games with unmoves).
SMALL = [
    "tictactoe",
    "tictactoe-misere",
    "mnk-3-3-2",
    "roman",
    "roman-adjacent",
    "roman-lines",
    "rota",
    "rota-circle",
    "wild",
    "wild-misere",
]
#: Variants that change a family's rules a little: their tables are compared in the slow set.
RULE_VARIANTS = {"roman-adjacent", "roman-lines", "rota-circle", "wild-misere"}
#: Lines (which probe every position along them) are compared on this many positions per variant.
LINES = 400
#: Without symmetry, probes and predecessors are compared on about this many positions spread over
#: the sorted keys (every ply); with symmetry on every stored position.
NOSYM_POSITIONS = 1500


# -- the codec -------------------------------------------------------------------


@pytest.mark.parametrize("version", [1, 2])
@pytest.mark.parametrize("count", [1, 2, 1000, 1025, 4096])
@pytest.mark.parametrize("spread", [3, 1 << 20, 1 << 62])
def test_block_round_trip(count: int, spread: int, version: int) -> None:
    rng = np.random.default_rng(count + spread.bit_length())
    keys = np.unique(rng.integers(0, spread, size=count * 2, dtype=np.uint64))[:count]
    outcome = rng.integers(1, 4, size=keys.size).astype(np.int8)
    distance = rng.integers(-1, 300, size=keys.size)
    values = pack_values(outcome, distance)
    data = encode_block(keys, values, 7, version=version)
    assert data[0] == version
    got_keys, got_values = decode_block(data, 7, int(keys[0]), int(keys.size))
    assert np.array_equal(got_keys, keys) and np.array_equal(got_values, values)
    got_outcome, got_distance = unpack_values(got_values)
    assert np.array_equal(got_outcome, outcome) and np.array_equal(got_distance, distance)
    for key in rng.choice(keys, size=min(50, keys.size)):
        part_keys, part_values, after = decode_part(data, 7, int(keys[0]), int(keys.size), int(key))
        at = int(np.searchsorted(part_keys, key))
        assert part_keys[at] == key and part_values[at] == values[np.searchsorted(keys, key)]
        assert part_keys.size == (keys.size if version == 1 else min(1024, part_keys.size))
        # the next part starts at the key after this part's last, and there is none after the block's last part
        following = int(np.searchsorted(keys, part_keys[-1])) + 1
        assert after == (int(keys[following]) if following < keys.size else None)


def test_block_is_small_for_dense_keys() -> None:
    keys = np.arange(0, 3 * 4096, 3, dtype=np.uint64)
    values = pack_values(np.full(keys.size, 3), np.full(keys.size, 9))
    assert len(encode_block(keys, values, 0)) < 200  # constant gaps and values compress to almost nothing


@pytest.mark.parametrize("version", [1, 2])
@pytest.mark.parametrize("tamper", ["byte", "ply", "first", "count", "truncate"])
def test_block_checks_its_row(tamper: str, version: int) -> None:
    keys = np.arange(10, 5000, 7, dtype=np.uint64)
    values = pack_values(np.full(keys.size, 1), np.arange(keys.size) % 20)
    data = bytearray(encode_block(keys, values, 4, version=version))
    ply, first, count = 4, int(keys[0]), int(keys.size)
    if tamper == "byte":
        data[len(data) // 2] ^= 0x40
    elif tamper == "ply":
        ply = 5
    elif tamper == "first":
        first += 1
    elif tamper == "count":
        count -= 1
    else:
        data = data[: len(data) // 2]
    with pytest.raises(CorruptBlockError):
        decode_block(bytes(data), ply, first, count)
    if tamper != "byte":
        with pytest.raises(CorruptBlockError):
            decode_part(bytes(data), ply, first, count, int(keys[-1]))


def test_each_part_checks_its_header() -> None:
    keys = np.arange(0, 4096 * 5, 5, dtype=np.uint64)
    values = pack_values(np.full(keys.size, 3), np.arange(keys.size) % 30)
    data = encode_block(keys, values, 2)
    assert data[1] == 10 and data[3] == 2  # parts of 1,024 states, offsets of two bytes
    offsets = 4 + 4  # after the fixed header and the four parts' numbers of key planes
    for part in range(4):
        key = int(keys[part * 1024 + 5])
        for at in [4 + part] + ([offsets + 2 * (part - 1)] if part else []):
            changed = bytearray(data)
            changed[at] ^= 1  # the part's number of key planes, its first key
            with pytest.raises(CorruptBlockError):
                decode_part(bytes(changed), 2, int(keys[0]), int(keys.size), key)
            with pytest.raises(CorruptBlockError):
                decode_block(bytes(changed), 2, int(keys[0]), int(keys.size))


def test_block_cache_is_bounded_and_finds_ranges() -> None:
    blocks = [KeyBlock(1, np.arange(i * 100, i * 100 + 50, dtype=np.uint64), np.zeros(50, dtype=np.uint16)) for i in range(10)]
    cache = BlockCache(limit=3 * blocks[0].nbytes)
    for b in blocks:
        cache.add(b)
    assert cache.size <= 3 * blocks[0].nbytes
    assert cache.covering(1, 910) is blocks[9] and cache.covering(1, 960) is None  # after the last key
    assert cache.covering(1, 10) is None  # evicted
    assert cache.covering(2, 910) is None  # another ply
    told = KeyBlock(1, np.arange(1000, 1050, dtype=np.uint64), np.zeros(50, dtype=np.uint16), end=1099)
    cache.add(told)
    assert cache.covering(1, 1080) is told and cache.covering(1, 1100) is None  # up to its end, not its last key


def test_states_not_stored_are_answered_from_decoded_blocks_the_second_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = np.random.default_rng(5)
    with tablebase.open(tmp_path / "packed.db") as tp:
        tp.build("wild", symmetry=False, storage="packed")
        table = tp.variant("wild")
        reader = table.storage.reader  # type: ignore[attr-defined]
        decoded: list[int] = []
        decode = reader.decode
        monkeypatch.setattr(reader, "decode", lambda *args, **kwargs: decoded.append(args[0]) or decode(*args, **kwargs))
        with table.snapshot() as conn:
            stored = {}
            for ply in reader.ply_numbers(conn):
                states, values = reader.layer(conn, ply)
                stored.update(zip(states.tolist(), values.tolist()))
            xs = rng.integers(0, 1 << 9, size=3000)
            # any boards of x and o, most of them not reachable (two lines, uneven counts) and so not stored
            states = [int(x | (o & ~x) << 9) for x, o in zip(xs, rng.integers(0, 1 << 9, size=3000))]
            assert 100 < sum(s not in stored for s in states) < len(states)
            reader.cache.clear()
            first = reader.values(conn, states)
            assert first == [stored.get(s) for s in states]
            assert decoded
            decoded.clear()
            assert reader.values(conn, states) == first and decoded == []


# -- the same answers as the moves storage ---------------------------------------------


def _answers(table: tablebase.VariantTable, keys: list[str], lines: set[str]) -> list[object]:
    out: list[object] = [table.stats().to_dict()]
    for key in keys:
        out.append(table.probe(key).to_dict())
        out.append([vars(p) for p in table.predecessors(key)])
        if key in lines:
            out.append(table.line(key).to_dict())
    return out


@pytest.mark.parametrize(
    "symmetry", [True, pytest.param(False, marks=pytest.mark.slow)], ids=["sym", "nosym"]
)
@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=pytest.mark.slow) if n in RULE_VARIANTS else n for n in SMALL]
)
def test_packed_answers_like_moves(tmp_path: Path, name: str, symmetry: bool) -> None:
    moves, packed = tmp_path / "moves.db", tmp_path / "packed.db"
    with tablebase.open(moves) as tm, tablebase.open(packed) as tp:
        tm.build(name, symmetry=symmetry)
        info = tp.build(name, symmetry=symmetry, storage="packed")
        a, b = tm.variant(name), tp.variant(name)
        assert info.storage == "packed" and info.moves == 0
        assert (info.states, info.outcome, info.distance) == (a.info.states, a.info.outcome, a.info.distance)
        keys = [row[1] for row in a.rows()]
        assert sorted(row[1:] for row in b.rows()) == sorted(row[1:] for row in a.rows())
        if not symmetry:
            keys = keys[:: max(1, len(keys) // NOSYM_POSITIONS)]
        lines = set(keys[:: max(1, len(keys) // LINES)])
        assert _answers(b, keys, lines) == _answers(a, keys, lines)
        assert tp.verify(name).ok and tp.verify(name, sample=200).ok


def test_packed_mnk_4_3_3_on_the_array_kernels(tmp_path: Path) -> None:
    moves, packed = tmp_path / "moves.db", tmp_path / "packed.db"
    with tablebase.open(moves) as tm, tablebase.open(packed) as tp:
        tm.build("mnk-4-3-3")
        tp.build("mnk-4-3-3", storage="packed")
        a, b = tm.variant("mnk-4-3-3"), tp.variant("mnk-4-3-3")
        keys = [row[1] for row in a.rows()][::7]
        assert _answers(b, keys, set(keys[::20])) == _answers(a, keys, set(keys[::20]))
        report = tp.verify("mnk-4-3-3")
        # 28,275 classes with 98,847 moves between them (the moves storage's own count)
        assert report.ok and (report.states, report.moves) == (28275, a.info.moves)


def test_large_builds_default_to_packed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import tablebase.build as build
    from tablebase.errors import BuildError
    from tablebase.store.storage import Dense

    def no_dense(game: object) -> None:
        raise BuildError("no numba")

    # where the dense storage cannot build (numba not installed), large m,n,k builds go out of core, packed
    monkeypatch.setattr(build, "LARGE_ABOVE", 1000)
    monkeypatch.setattr(Dense, "check_game", classmethod(lambda cls, game: no_dense(game)))
    with tablebase.open(tmp_path / "big.db") as tb:
        info = tb.build("mnk-4-3-3", workers=1)
        assert (info.storage, info.states, info.outcome, info.distance) == ("packed", 28275, "win", 7)
        assert tb.verify("mnk-4-3-3").ok


def test_ultimate_refuses_packed(tmp_path: Path) -> None:
    db = tmp_path / "u.db"
    result = CliRunner().invoke(app, ["build", "ultimate-strategy", "--storage", "packed", "--db", str(db)])
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "cannot be stored packed" in lines[0] and "use storage 'moves'" in lines[0]
    assert not db.exists()


def test_no_moves_is_storage_states(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    runner = CliRunner()
    assert runner.invoke(app, ["build", "tictactoe", "--no-moves", "-q", "--db", str(db)]).exit_code == 0
    with tablebase.open(db) as tb:
        assert tb.variant("tictactoe").info.storage == "states"
    result = runner.invoke(app, ["build", "tictactoe", "--no-moves", "--storage", "packed", "--db", str(db)])
    assert result.exit_code == 1 and "contradicts" in result.output


# -- blocks stay with their variant; corruption is found ------------------------------------


def test_blocks_of_another_variant_are_never_read(tmp_path: Path) -> None:
    # tic-tac-toe and its misere form have the same positions (the same keys) and different values
    db, ref = tmp_path / "two.db", tmp_path / "ref.db"
    with tablebase.open(db) as tb, tablebase.open(ref) as tr:
        for name in ("tictactoe", "tictactoe-misere"):
            tb.build(name, storage="packed")
            tr.build(name)
        for name in ("tictactoe", "tictactoe-misere"):
            keys = [row[1] for row in tr.variant(name).rows()]
            assert [tb.variant(name).probe(k).to_dict() for k in keys] == [tr.variant(name).probe(k).to_dict() for k in keys]
    conn = sqlite3.connect(db)
    conn.execute("DELETE FROM blocks WHERE variant_id = (SELECT id FROM variants WHERE name = 'tictactoe-misere')")
    conn.commit()
    conn.close()
    with tablebase.open(db) as tb:
        with pytest.raises(tablebase.UnreachablePositionError):
            tb.variant("tictactoe-misere").probe()
        assert tb.variant("tictactoe").probe().outcome == "draw"


def _corrupt_one_block(db: Path, name: str, ply: int) -> None:
    conn = sqlite3.connect(db)
    row_id, data = conn.execute(
        "SELECT b.id, b.data FROM blocks AS b JOIN variants AS v ON v.id = b.variant_id"
        " WHERE v.name = ? AND b.ply = ? ORDER BY b.first_state LIMIT 1",
        (name, ply),
    ).fetchone()
    data = bytearray(data)
    data[-3] ^= 0x10
    conn.execute("UPDATE blocks SET data = ? WHERE id = ?", (bytes(data), row_id))
    conn.commit()
    conn.close()


def test_corrupt_block_fails_verify_naming_the_variant(tmp_path: Path) -> None:
    db = tmp_path / "c.db"
    with tablebase.open(db) as tb:
        tb.build("tictactoe", storage="packed")
        tb.build("mnk-4-3-3", storage="packed")
    _corrupt_one_block(db, "mnk-4-3-3", 5)
    with tablebase.open(db) as tb:
        assert tb.verify("tictactoe").ok
        report = tb.verify("mnk-4-3-3")
        assert not report.ok
        assert any(e.startswith("mnk-4-3-3: the block of ply 5") and "corrupt" in e for e in report.errors)
        with pytest.raises(DatabaseError, match="mnk-4-3-3: the block of ply 5"):
            tb.verify("mnk-4-3-3", sample=2000)
    result = CliRunner().invoke(app, ["verify", "mnk-4-3-3", "--db", str(db)])
    assert result.exit_code == 1 and "mnk-4-3-3: the block of ply 5" in result.output


def test_corrupt_block_fails_probe(tmp_path: Path) -> None:
    db = tmp_path / "c.db"
    with tablebase.open(db) as tb:
        tb.build("tictactoe", storage="packed")
    _corrupt_one_block(db, "tictactoe", 0)
    with tablebase.open(db) as tb:
        with pytest.raises(DatabaseError, match="tictactoe: the block of ply 0 from '.../.../...' is corrupt"):
            tb.variant("tictactoe").probe()


# -- export ---------------------------------------------------------------------


def _state_rows(db: Path, plies: tuple[int, int] = (0, 99)) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(db)
    try:
        return conn.execute(
            "SELECT key, to_move, ply, terminal, outcome, distance, orbit, representative FROM states"
            " WHERE ply BETWEEN ? AND ? ORDER BY key",
            plies,
        ).fetchall()
    finally:
        conn.close()


@pytest.mark.parametrize("symmetry", [True, False], ids=["sym", "nosym"])
def test_export_to_states_equals_a_states_build(tmp_path: Path, symmetry: bool) -> None:
    packed, states, out = tmp_path / "p.db", tmp_path / "s.db", tmp_path / "out.db"
    with tablebase.open(packed) as tp, tablebase.open(states) as ts:
        tp.build("mnk-3-3-2", symmetry=symmetry, storage="packed")
        tp.build("roman", symmetry=symmetry, storage="packed")
        ts.build("mnk-3-3-2", symmetry=symmetry, storage="states")
        info = tp.export("mnk-3-3-2", out)
        assert (info.storage, info.states) == ("states", ts.variant("mnk-3-3-2").info.states)
        with tablebase.open(out) as to:
            assert to.variant("mnk-3-3-2").stats().to_dict() == ts.variant("mnk-3-3-2").stats().to_dict()
            assert to.verify("mnk-3-3-2").ok
    assert _state_rows(out) == _state_rows(states)
    part = tmp_path / "part.db"
    result = CliRunner().invoke(
        app, ["export", "mnk-3-3-2", "--plies", "2-4", "--to", str(part), "-q", "--db", str(packed)]
    )
    assert result.exit_code == 0, result.output
    assert _state_rows(part) == _state_rows(states, (2, 4)) and _state_rows(part)


def test_export_to_moves_equals_a_moves_build(tmp_path: Path) -> None:
    packed, moves, out = tmp_path / "p.db", tmp_path / "m.db", tmp_path / "out.db"
    with tablebase.open(packed) as tp, tablebase.open(moves) as tm:
        tp.build("roman", storage="packed")
        tm.build("roman")
        info = tp.export("roman", out, storage="moves")
        assert (info.storage, info.states, info.moves) == ("moves", 744, tm.variant("roman").info.moves)
        with tablebase.open(out) as to:
            assert to.verify("roman").ok
            assert to.variant("roman").info.outcome == "draw"
    query = (
        "SELECT f.key, m.move, t.key FROM moves AS m JOIN states AS f ON f.id = m.from_state"
        " JOIN states AS t ON t.id = m.to_state ORDER BY 1, 2"
    )
    conn_a, conn_b = sqlite3.connect(out), sqlite3.connect(moves)
    assert conn_a.execute(query).fetchall() == conn_b.execute(query).fetchall()
    conn_a.close()
    conn_b.close()
    assert _state_rows(out) == _state_rows(moves)


def test_export_refuses_row_storages_and_bad_plies(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    with tablebase.open(db) as tb:
        tb.build("tictactoe")
        with pytest.raises(tablebase.TablebaseError, match="rows already"):
            tb.export("tictactoe", tmp_path / "out.db")
    result = CliRunner().invoke(app, ["export", "tictactoe", "--plies", "5-2", "--to", "x.db", "--db", str(db)])
    assert result.exit_code == 1 and "invalid plies '5-2'" in result.output


@pytest.mark.slow
def test_http_answers_like_moves(tmp_path: Path) -> None:
    pytest.importorskip("fastapi", reason="the serve extra is not installed")
    from fastapi.testclient import TestClient

    from tablebase.serve import create_app

    moves, packed = tmp_path / "moves.db", tmp_path / "packed.db"
    with tablebase.open(moves) as tm, tablebase.open(packed) as tp:
        tm.build("mnk-3-3-2")
        tp.build("mnk-3-3-2", storage="packed")
        keys = [row[1] for row in tm.variant("mnk-3-3-2").rows()]
    with TestClient(create_app(moves)) as a, TestClient(create_app(packed)) as b:
        urls = ["/api/variants"] + [
            f"/api/mnk-3-3-2{tail}?position={key}" for key in keys for tail in ("", "/line", "/predecessors")
        ]
        for url in urls:
            ra, rb = a.get(url), b.get(url)
            assert (rb.status_code, rb.json()) == (ra.status_code, ra.json()) or url == "/api/variants"
        listed = {v["variant"]: v for v in b.get("/api/variants").json()}
        assert listed["mnk-3-3-2"]["storage"] == "packed"


def test_reader_sees_a_packed_rebuild(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    with tablebase.open(db) as writer:
        writer.build("mnk-3-3-2", storage="packed")
        writer.build("tictactoe", storage="packed")
    with tablebase.open(db) as reader:
        table = reader.variant("tictactoe")
        keys = [row[1] for row in table.rows()]
        before = [table.probe(k).to_dict() for k in keys]
        with tablebase.open(db) as writer:
            writer.build("tictactoe", symmetry=False, storage="packed")
        # the cached blocks of the symmetric build must not answer for the new one
        assert reader.variant("tictactoe").info.states == 5478
        assert [reader.variant("tictactoe").probe(k).to_dict() for k in keys] == before
        others = ["..x/.../...", "o.x/.../..x", "xo./.../..."]
        assert all(reader.variant("tictactoe").probe(k).position == k for k in others)
        assert reader.variant("tictactoe").stats().classes == 765
