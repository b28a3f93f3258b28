"""The out-of-core build on a Dask cluster of two worker processes, and on fsspec build directories."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import numpy as np
import pytest
from test_chunked import assert_same
from typer.testing import CliRunner

import tablebase
from cli.main import app
from tablebase import games
from tablebase.build import LARGE_STORAGE
from tablebase.solve import solve
from tablebase.solve.chunked import solve_chunked

distributed = pytest.importorskip("dask.distributed")


@pytest.fixture(scope="module")
def cluster() -> distributed.LocalCluster:
    with distributed.LocalCluster(
        n_workers=2, processes=True, threads_per_worker=1, dashboard_address=":0", silence_logs=40
    ) as local:
        yield local


@pytest.mark.parametrize(
    "name", ["mnk-4-4-3", "mnk-5-3-3", pytest.param("mnk-4-4-4", marks=pytest.mark.slow)]
)
def test_cluster_matches_in_memory(name: str, cluster: distributed.LocalCluster, tmp_path: Path) -> None:
    # chunks of 4,096 parents and buckets of 65,536 children: tens of tasks in every large layer
    assert_same(name, tmp_path, chunk=4096, bucket=1 << 16, scheduler=cluster.scheduler_address)


def test_killed_worker_loses_nothing(cluster: distributed.LocalCluster, tmp_path: Path) -> None:
    game = games.get("mnk-4-4-3")
    with distributed.Client(cluster) as client:
        before = client.run(os.getpid)
        killed: list[str] = []

        def kill(phase: str, done: int, total: int | None) -> None:
            # one worker process ended in the middle of a forward layer and of a backward one
            if phase in ("layer 9 enumerate", "layer 9 label") and not any(k == phase for k in killed):
                killed.append(phase)
                os.kill(sorted(client.run(os.getpid).values())[len(killed) - 1], signal.SIGKILL)

        layered = solve_chunked(game, tmp_path / "b", chunk=2048, bucket=1 << 15, scheduler=cluster.scheduler_address,
                                progress=kill)
        assert killed == ["layer 9 enumerate", "layer 9 label"]
        # the nannies restart both; a restart that never comes fails the test instead of hanging it
        client.wait_for_workers(2, timeout=300)
        assert set(client.run(os.getpid).values()) != set(before.values())
    reference = solve(game)
    states, ply, outcome, distance = layered.arrays()
    np.testing.assert_array_equal(states, np.asarray(reference.states, dtype=np.uint64))
    np.testing.assert_array_equal(outcome, reference.outcome)
    np.testing.assert_array_equal(distance, reference.distance)
    # mnk-4-4-3: 756,387 classes (the count of the in-memory solver and of benchmarks/census.py 4 4 3)
    assert layered.num_states == 756_387 and layered.result() == ("win", 5)


def test_cli_build_on_cluster(cluster: distributed.LocalCluster, tmp_path: Path) -> None:
    db = tmp_path / "c.db"
    runner = CliRunner()
    result = runner.invoke(app, ["build", "tictactoe", "--db", str(db)], env={"TABLEBASE_SCHEDULER": cluster.scheduler_address})
    assert result.exit_code == 0, result.output
    assert f"tictactoe: on dask scheduler {cluster.scheduler_address} (2 workers connected), dashboard http" in result.output
    # where the build ran is said on its own line, not counted as a phase of the summary
    summary = result.stdout.strip().splitlines()[-1]
    assert summary.startswith("tictactoe: 765 states") and "dask" not in summary
    assert [part.split()[0] for part in summary.split(" s: ")[1].rstrip(")").split(" + ")] == [
        "enumerate", "merge", "label", "pack", "analyze", "other",
    ]
    assert "layer 9 enumerate" in result.output and "layer 0 label" in result.output
    # a cluster build is the out-of-core one, stored in the large builds' storage, whatever the size
    with tablebase.open(db) as tb:
        info = tb.variant("tictactoe").info
        # seed 003: 765 classes; the game is a draw in 9
        assert (info.storage, info.outcome, info.distance, info.states) == (LARGE_STORAGE, "draw", 9, 765)
        assert tb.variant("tictactoe").probe("x../.o./...").outcome == "draw"
        assert tb.verify("tictactoe").ok


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--scheduler", "local:none"], "invalid scheduler 'local:none'"),
        (["--scheduler", "local:2", "--moves"], "cannot be built on a cluster"),
        (["--scheduler", "local:2", "--build-dir", "nosuch://bucket/dir"], "build directory 'nosuch://bucket/dir'"),
    ],
)
def test_cli_cluster_errors(args: list[str], message: str, tmp_path: Path) -> None:
    db = tmp_path / "e.db"
    result = CliRunner().invoke(app, ["build", "mnk-3-3-3", "--db", str(db), *args])
    assert result.exit_code == 1
    assert message in result.output and len(result.output.strip().splitlines()) == 1
    assert not db.exists() or "mnk-3-3-3" not in {i.name for i in tablebase.open(db).variants()}


@pytest.mark.parametrize("url", ["memory://tablebase-test/build", "file://{tmp}/build"])
def test_fsspec_build_dir(url: str, tmp_path: Path) -> None:
    # the fsspec path (memory://) and a file:// URL, in this process
    assert_same("mnk-4-3-3", tmp_path, chunk=300, bucket=2000, location=url.format(tmp=tmp_path))
    if url.startswith("file://"):
        assert (tmp_path / "build" / "manifest.json").exists()
