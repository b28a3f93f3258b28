"""The build tier by tier (``tablebase build VARIANT --stones K``): every tier stored as the tier solver
finds it in memory, a stopped build gone on with, the units a task each on local processes and on a
Dask cluster, the audit of every class, a file of the older format refused, and the errors of builds
that cannot be made so."""

from __future__ import annotations

import os
import signal
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

import tablebase
from cli.main import app
from tablebase import games
from tablebase.errors import BuildError
from tablebase.games.morris.tier_index import fold
from tablebase.games.morris.tier_table import tier_number
from tablebase.games.morris.tiers import MorrisTiers
from tablebase.solve.tiers import solve_tiers
from tablebase.store.tiers import PAGE_SIZE, open_tiered, read_values, stored_tiers, widen_pages

#: One worker compiles these tests' kernels for all of them (pytest-xdist, ``--dist loadgroup``).
pytestmark = pytest.mark.xdist_group("morris-tiers")

runner = CliRunner()


def assert_stored_as_in_memory(path: Path, name: str, stones: int) -> None:
    """Every tier of at most ``stones`` a side in ``path`` holds what the in-memory tier solver finds:
    each state of its tiers (either side to move) has its solver's value in its folded tier's slot,
    and every used slot is met."""
    game = games.get(name)
    tiering = game.tiering(stones)
    assert tiering is not None
    variant_id = open_tiered(path, game)
    numbers = {n for unit in tiering.units() for n in unit.tiers}
    assert stored_tiers(path, variant_id) == numbers
    stored = {n: read_values(path, variant_id, n, tiering.size(n)) for n in numbers}
    met = {n: np.zeros(len(v), dtype=bool) for n, v in stored.items()}
    for solved in solve_tiers(MorrisTiers(game, stones), game.vector):
        for where, state, outcome, distance in zip(
            tiering.locate(solved.states.tolist()), solved.states.tolist(), solved.outcome, solved.distance
        ):
            assert where is not None, game.format_position(state)
            number, slot = where
            value = int(stored[number][slot])
            assert (value & 3, -1 if value & 3 == 3 else value >> 2) == (outcome, distance), game.format_position(state)
            met[number][slot] = True
    for n, values in stored.items():
        assert np.array_equal(met[n], values != 0xFFFF), n


def test_tiers_are_stored_as_solved_and_answer_probes(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    with tablebase.open(path) as tb:
        info = tb.build("morris-6", tiers=3, workers=1)
        assert not info.complete and info.outcome is None
        stats = tb.variant("morris-6").stats()
        # the six-men board has 16 points: tier 2-3 (the mover's two stones against three) is
        # C(16,2) C(14,3) boards, each side to move (and lost); 3-3 is C(16,3) C(13,3) boards, each side to move
        assert [(p.tier, p.positions) for p in stats.plies] == [("2-3", 87360), ("3-3", 320320)]
        assert stats.plies[0].outcomes == {"win": 0, "draw": 0, "loss": 87360}
        assert info.states == stats.classes
        probe = tb.variant("morris-6").probe("xx.x.........ooo x 0 0")
        assert probe.outcome is not None
        for move in probe.moves:
            child = tb.variant("morris-6").probe(move.position)
            assert child.outcome == {"win": "loss", "loss": "win", "draw": "draw"}[move.outcome]
    assert_stored_as_in_memory(path, "morris-6", 3)


def test_blocks_of_any_size_are_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file whose tiers were cut into blocks of another size (an older build's 16,384 slots, here
    1,000 and a short last block) answers the same probes and passes verify."""
    from tablebase.store.tier_blocks import BLOCK

    positions = ["xx.x.........ooo x 0 0", "x.x.x..o.o.o.... o 0 0"]
    answers = []
    for block in (BLOCK, 1000):
        monkeypatch.setattr("tablebase.store.tiers.BLOCK", block)
        path = tmp_path / f"b{block}.db"
        with tablebase.open(path) as tb:
            tb.build("morris-6", tiers=3, workers=1)
            table = tb.variant("morris-6")
            answers.append([table.probe(p) for p in positions])
            assert tb.verify("morris-6").ok
        with sqlite3.connect(path) as conn:
            assert {c for (c,) in conn.execute("SELECT DISTINCT count FROM blocks")} >= {block}
    assert answers[0] == answers[1]


def test_blocks_read_alike_with_and_without_libdeflate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("deflate")
    import zlib

    from tablebase.store import block_codec, tier_blocks

    assert block_codec._inflate_exact is not None
    path = tmp_path / "t.db"
    with tablebase.open(path) as tb:
        tb.build("morris-6", tiers=3, workers=1)
    rows = sqlite3.connect(path).execute("SELECT ply, first_state, count, data FROM blocks").fetchall()
    with_lib = [tier_blocks.decode_block(data, ply, first, count).tolist() for ply, first, count, data in rows]
    monkeypatch.setattr(block_codec, "_inflate_exact", None)
    monkeypatch.setattr(tier_blocks, "fast_crc32", zlib.crc32)
    without = [tier_blocks.decode_block(data, ply, first, count).tolist() for ply, first, count, data in rows]
    assert without == with_lib and len(rows) > 1


def test_a_stopped_build_goes_on_from_the_tiers_stored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "t.db"
    calls: list[int] = []

    from tablebase.store import tiers as store_tiers

    write = store_tiers.write_unit

    def write_once(*args: object, **kwargs: object) -> None:
        if calls:
            raise KeyboardInterrupt
        calls.append(1)
        write(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(store_tiers, "write_unit", write_once)
    with tablebase.open(path) as tb, pytest.raises(KeyboardInterrupt):
        tb.build("morris-6", tiers=3, workers=1)
    monkeypatch.setattr(store_tiers, "write_unit", write)
    game = games.get("morris-6")
    assert len(stored_tiers(path, open_tiered(path, game))) == 1
    with tablebase.open(path) as tb:
        tb.build("morris-6", tiers=3, workers=1)
    assert_stored_as_in_memory(path, "morris-6", 3)


def built(path: Path, stones: int, workers: int = 1) -> set[int]:
    """Build morris-6's tiers of at most ``stones`` a side into ``path``; the numbers of the tiers it holds."""
    with tablebase.open(path) as tb:
        tb.build("morris-6", tiers=stones, workers=workers)
    return stored_tiers(path, open_tiered(path, games.get("morris-6")))


def test_more_stones_add_the_tiers_missing(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    assert built(path, 3) < built(path, 4)
    assert_stored_as_in_memory(path, "morris-6", 4)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["tictactoe", "--stones", "3"], "variant 'tictactoe' is not built tier by tier"),
        (["morris-6", "--stones", "9"], "9 stones a side"),
        (["morris-6", "--stones", "3", "--storage", "moves"], "a build tier by tier is stored 'tiers', not 'moves'"),
        (["morris-6", "--stones", "3", "--no-symmetry"], "keeps one position of each symmetry class"),
        (["morris-9"], "build its tiers with --stones K"),
    ],
)
def test_cli_errors(args: list[str], message: str, tmp_path: Path) -> None:
    result = runner.invoke(app, ["build", *args, "--db", str(tmp_path / "t.db"), "-q"])
    assert result.exit_code == 1
    assert message in result.output and len(result.output.strip().splitlines()) == 1


def pragma(path: Path, name: str) -> Any:
    """The value of ``PRAGMA name`` in the file at ``path``, read on a connection of its own."""
    with closing(sqlite3.connect(path)) as conn:
        return conn.execute(f"PRAGMA {name}").fetchone()[0]


def page_size(path: Path) -> int:
    return int(pragma(path, "page_size"))


def test_a_tier_build_widens_the_pages_of_its_file_keeping_what_it_holds(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    with tablebase.open(path) as tb:
        tb.build("tictactoe")
        before = tb.variant("tictactoe").probe("x../.../...")
    assert page_size(path) == 4096
    with tablebase.open(path) as tb:
        tb.build("morris-6", tiers=3, workers=1)
        assert tb.variant("tictactoe").probe("x../.../...") == before
        assert tb.variant("morris-6").stats().classes > 0
    assert page_size(path) == PAGE_SIZE
    assert pragma(path, "journal_mode") == "wal"
    assert pragma(path, "integrity_check") == "ok"


def test_pages_are_left_as_they_are_while_another_connection_holds_the_file(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    with tablebase.open(path) as tb:
        tb.build("tictactoe")
    with closing(sqlite3.connect(path)) as holder:
        holder.execute("SELECT COUNT(*) FROM variants").fetchone()
        assert not widen_pages(path)
        with tablebase.open(path) as tb:
            tb.build("morris-6", tiers=3, workers=1)
            assert tb.variant("morris-6").stats().classes > 0
        assert page_size(path) == 4096
    assert widen_pages(path) and page_size(path) == PAGE_SIZE


def test_a_variant_built_whole_is_not_overwritten_by_tiers(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    with tablebase.open(path) as tb:
        tb.build("morris-6-3")
        before = tb.variant("morris-6-3").stats()
        with pytest.raises(BuildError, match="stored in .* by another build"):
            tb.build("morris-6-3", tiers=3)
        assert tb.variant("morris-6-3").stats() == before


def test_cli_build_and_stats_name_the_tiers(tmp_path: Path) -> None:
    db = str(tmp_path / "t.db")
    result = runner.invoke(app, ["build", "morris-6", "--stones", "3", "--workers", "1", "-q", "--db", db])
    assert result.exit_code == 0, result.output
    assert "start not stored" in result.output
    result = runner.invoke(app, ["stats", "morris-6", "--db", db])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].split()[0] == "tier" and [line.split()[0] for line in lines[2:4]] == ["2-3", "3-3"]


@pytest.mark.slow
def test_dask_workers_build_the_same_tiers_and_survive_a_killed_worker(tmp_path: Path) -> None:
    distributed = pytest.importorskip("dask.distributed")
    path = tmp_path / "t.db"
    with distributed.LocalCluster(
        n_workers=2, processes=True, threads_per_worker=1, dashboard_address=":0", silence_logs=40
    ) as cluster, distributed.Client(cluster) as client:
        before = set(client.run(os.getpid).values())
        killed: list[int] = []

        def kill(phase: str, done: int, total: int | None) -> None:
            # one worker ended while the units of the second wave (3-3) and after are under way
            if phase == "tiers" and done == 2 and not killed:
                pid = sorted(before)[0]
                killed.append(pid)
                os.kill(pid, signal.SIGKILL)

        with tablebase.open(path) as tb:
            tb.build("morris-6", tiers=4, scheduler=cluster.scheduler_address, progress=kill)
        assert killed
        client.wait_for_workers(2, timeout=300)
        assert set(client.run(os.getpid).values()) != before
    assert_stored_as_in_memory(path, "morris-6", 4)


def test_verify_checks_every_class_and_finds_a_changed_value(tmp_path: Path) -> None:
    from tablebase.store.tiers import write_unit

    path = tmp_path / "t.db"
    game = games.get("morris-6")
    built(path, 4)
    with tablebase.open(path) as tb:
        report = tb.verify("morris-6")
        assert report.ok, report.errors
        assert report.states == tb.variant("morris-6").info.states
    variant_id = open_tiered(path, game)
    tiering = game.tiering(4)
    assert tiering is not None
    number = tier_number(4, 4)
    values = read_values(path, variant_id, number, tiering.size(number))
    live = np.flatnonzero(((values & 3) == 1) & (values >> 2 > 1) & (values != 0xFFFF))
    changed = int(live[len(live) // 2])
    values[changed] += 2 << 2
    write_unit(path, game, tiering, variant_id, {number: values}, 0.0)
    with tablebase.open(path) as tb:
        report = tb.verify("morris-6")
    assert not report.ok
    state = int(tiering.states(number, np.array([changed]))[0])
    assert any(e.startswith(game.format_position(state)) for e in report.errors)


def test_a_file_of_the_older_tier_format_is_refused_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    built(path, 3)
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("UPDATE variants SET storage = 'packed' WHERE name = 'morris-6'")
    conn.close()
    for args in (["probe", "morris-6", "xx.x.........ooo x"], ["stats", "morris-6"], ["verify", "morris-6"]):
        result = runner.invoke(app, [*args, "--db", str(path)])
        assert result.exit_code == 1, result.output
        assert "built tier by tier by an older tablebase" in result.output
        assert len(result.output.strip().splitlines()) == 1, result.output
    result = runner.invoke(app, ["build", "morris-6", "--stones", "3", "--db", str(path), "-q"])
    assert result.exit_code == 1 and "older tablebase" in result.output


@pytest.mark.parametrize("fault", ["a changed byte", "a stream cut short"])
def test_a_corrupt_block_is_one_line_naming_its_tier(fault: str, tmp_path: Path) -> None:
    """A block whose bytes fail their checksum, or whose checksum holds over a stream that does not
    inflate, is refused when read, naming the tier and the rebuild, and the CLI says so in one line."""
    from tablebase.store.block_codec import checksum
    from tablebase.store.tier_blocks import _HEADER, FORMAT

    path = tmp_path / "t.db"
    built(path, 3)
    number = tier_number(3, 3)
    with sqlite3.connect(path) as conn:
        for first, count, data in conn.execute(
            "SELECT first_state, count, data FROM blocks WHERE ply = ?", (number,)
        ).fetchall():
            if fault == "a changed byte":
                bad = data[:-1] + bytes([data[-1] ^ 0x5A])
            else:
                stream = data[_HEADER.size : _HEADER.size + 3]
                bad = _HEADER.pack(FORMAT, checksum(stream, number, first, count)) + stream
            conn.execute("UPDATE blocks SET data = ? WHERE ply = ? AND first_state = ?", (bad, number, first))
    with tablebase.open(path) as tb, pytest.raises(tablebase.DatabaseError, match="block of tier 3-3 from slot .* is corrupt"):
        tb.variant("morris-6").probe("xx.x.........ooo x 0 0")
    result = runner.invoke(app, ["probe", "morris-6", "xx.x.........ooo x 0 0", "--db", str(path)])
    assert result.exit_code == 1 and "is corrupt" in result.output and "rebuild" in result.output, result.output
    assert len(result.output.strip().splitlines()) == 1, result.output


@pytest.mark.slow
def test_stored_values_agree_with_the_engine_on_nine_mens_morris(tmp_path: Path) -> None:
    """morris-9 to three a side through the command line on two local processes: the stored values
    are the tier engine's, a probe's moves agree with probes of their children, and ``verify``
    checks every class."""
    from tablebase.games.morris.board import NINE
    from tablebase.games.morris.tier_engine import TierEngine

    db = str(tmp_path / "t.db")
    result = runner.invoke(app, ["build", "morris-9", "--stones", "3", "--workers", "2", "-q", "--db", db])
    assert result.exit_code == 0, result.output
    game = games.get("morris-9")
    tiering = game.tiering(3)
    assert tiering is not None
    variant_id = open_tiered(Path(db), game)
    for tier in TierEngine(NINE, True).solve(3):
        number = tier_number(tier.m, tier.n)
        assert np.array_equal(read_values(Path(db), variant_id, number, tiering.size(number)), tier.values)
    with tablebase.open(db) as tb:
        table = tb.variant("morris-9")
        probe = table.probe("xx.x...........o......oo x")
        assert probe.moves
        for move in probe.moves:
            child = table.probe(move.position)
            assert child.outcome == {"win": "loss", "loss": "win", "draw": "draw"}[move.outcome]
        report = tb.verify("morris-9")
        assert report.ok and report.states == table.info.states


def test_the_cores_are_shared_among_the_tasks_running(tmp_path: Path) -> None:
    from tablebase.solve.tier_build import CoreShare

    cores = os.cpu_count() or 1
    share = CoreShare(str(tmp_path))
    with share.held() as first:
        assert first() == cores
        with share.held() as second:
            assert first() == second() == max(1, cores // 2)
        assert first() == cores
        (tmp_path / "999999999-gone").touch()
        assert first() == cores and not (tmp_path / "999999999-gone").exists()
    assert not list(tmp_path.iterdir())
    with CoreShare().held() as anywhere:
        assert anywhere() == cores
