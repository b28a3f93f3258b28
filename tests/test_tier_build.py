"""The build tier by tier (``tablebase build VARIANT --stones K``): every tier stored as solved in memory,
a stopped build gone on with, the tiers a task each on local processes and on a Dask cluster, and
the errors of builds that cannot be made so."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

import tablebase
from cli.main import app
from tablebase import games
from tablebase.errors import BuildError
from tablebase.solve.tiers import solve_tiers
from tablebase.store.tiers import open_tiered, read_tier, stored_tiers

runner = CliRunner()


def assert_stored_as_in_memory(path: Path, name: str, stones: int) -> None:
    """Every tier of at most ``stones`` a side in ``path`` holds what the in-memory tier solver finds."""
    game = games.get(name)
    tiering = game.tiering(stones)
    assert tiering is not None
    variant_id = open_tiered(path, game)
    reference = list(solve_tiers(tiering, game.vector))
    assert stored_tiers(path, variant_id) == {tiering.number(r.tier) for r in reference}
    for solved in reference:
        states, outcome, distance = read_tier(path, game, variant_id, tiering.number(solved.tier))
        np.testing.assert_array_equal(states, solved.states)
        np.testing.assert_array_equal(outcome, solved.outcome)
        np.testing.assert_array_equal(distance, solved.distance)


def test_tiers_are_stored_as_solved_and_answer_probes(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    with tablebase.open(path) as tb:
        info = tb.build("morris-6", tiers=3, workers=2)
        assert not info.complete and info.outcome is None
        stats = tb.variant("morris-6").stats()
        # the six-men board has 16 points: tier 2-3 is C(16,2) C(14,3) boards, x to move (and lost);
        # 3-3 is C(16,3) C(13,3) boards, each side to move
        assert [(p.tier, p.positions) for p in stats.plies] == [("2-3", 43680), ("3-2", 43680), ("3-3", 320320)]
        assert stats.plies[0].outcomes == {"win": 0, "draw": 0, "loss": 43680}
        assert info.states == stats.classes
        probe = tb.variant("morris-6").probe("xx.x.........ooo x 0 0")
        assert probe.outcome is not None
        for move in probe.moves:
            child = tb.variant("morris-6").probe(move.position)
            assert child.outcome == {"win": "loss", "loss": "win", "draw": "draw"}[move.outcome]
    assert_stored_as_in_memory(path, "morris-6", 3)


def test_a_stopped_build_goes_on_from_the_tiers_stored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "t.db"
    calls: list[int] = []

    from tablebase.store import tiers as store_tiers

    write = store_tiers.write_tier

    def write_once(*args: object, **kwargs: object) -> None:
        if calls:
            raise KeyboardInterrupt
        calls.append(1)
        write(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(store_tiers, "write_tier", write_once)
    with tablebase.open(path) as tb, pytest.raises(KeyboardInterrupt):
        tb.build("morris-6", tiers=3, workers=1)
    monkeypatch.setattr(store_tiers, "write_tier", write)
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
    assert built(path, 3) < built(path, 4, workers=2)
    assert_stored_as_in_memory(path, "morris-6", 4)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["tictactoe", "--stones", "3"], "variant 'tictactoe' is not built tier by tier"),
        (["morris-6", "--stones", "9"], "9 stones a side"),
        (["morris-6", "--stones", "3", "--storage", "moves"], "a build tier by tier is stored 'packed', not 'moves'"),
        (["morris-6", "--stones", "3", "--no-symmetry"], "keeps one position of each symmetry class"),
        (["morris-9"], "build its tiers with --stones K"),
    ],
)
def test_cli_errors(args: list[str], message: str, tmp_path: Path) -> None:
    result = runner.invoke(app, ["build", *args, "--db", str(tmp_path / "t.db"), "-q"])
    assert result.exit_code == 1
    assert message in result.output and len(result.output.strip().splitlines()) == 1


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
    assert lines[0].split()[0] == "tier" and [line.split()[0] for line in lines[2:5]] == ["2-3", "3-2", "3-3"]


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
            # one worker ended while the second wave (the tiers 3-3) is under way
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


def test_verify_checks_every_tier_and_finds_a_changed_label(tmp_path: Path) -> None:
    from tablebase.store.tiers import write_tier

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
    number = tiering.number(tiering.tiers()[-1])
    states, outcome, distance = read_tier(path, game, variant_id, number)
    live = np.flatnonzero((game.vector.outcome(states) == 0) & (distance >= 0))
    changed = int(live[len(live) // 2])
    distance = distance.copy()
    distance[changed] += 2
    write_tier(path, game, variant_id, number, states, outcome, distance, 0, 0.0)
    with tablebase.open(path) as tb:
        report = tb.verify("morris-6")
    assert not report.ok
    assert any(e.startswith(game.format_position(int(states[changed]))) for e in report.errors)
