"""The dense build in tasks over ranges of a ply's slots (tablebase.solve.dense_tasks): the blocks
of the one-process build byte for byte, in this process and on a Dask cluster that loses workers;
Connect Four's child windows against every child; a build resumed from its manifest; the CLI."""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

import pytest
from tablebase.games.playouts import playout
from typer.testing import CliRunner

import tablebase
from cli.main import app
from tablebase import games
from tablebase.build import plan
from tablebase.errors import BuildError
from tablebase.games.common.dense_index import colex_rank
from tablebase.games.connect4.index import Connect4Index
from tablebase.solve.dense_tasks import DenseBuild, build_dense, compiled_index
from tablebase.solve.executor import DaskExecutor, Executor, ProcessPool
from tablebase.store.dense import BLOCK
from tablebase.store.dense_writer import write_dense

#: One worker compiles these tests' kernels for all of them (pytest-xdist, ``--dist loadgroup``).
pytestmark = pytest.mark.xdist_group("mnk-dense")

pytest.importorskip("numba")
distributed = pytest.importorskip("dask.distributed")

if TYPE_CHECKING:
    from distributed import LocalCluster

    from tablebase.games.common.dense_index import DenseIndex

ROOT = Path(__file__).resolve().parent.parent

#: The slow set (docs/testing.md): the Connect Four dense builds (they compile Connect Four's dense
#: passes) and builds of over 3 s.
SLOW = pytest.mark.slow


# -- helpers -----------------------------------------------------------------------


def index_of(name: str) -> DenseIndex:
    """The dense index of the variant ``name``."""
    index = games.get(name).dense_index()
    assert index is not None
    return index


def sizes_of(name: str) -> list[int]:
    """The slots of each ply of ``name``'s dense index."""
    return [int(size) for size in index_of(name).ply_sizes()]


def stored_rows(path: Path) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """Every ``blocks`` row (ply, first slot, first key, count, data) and every ``plies`` row
    (without the variant id) of a one-variant file, in order."""
    conn = sqlite3.connect(path)
    try:
        blocks = conn.execute(
            "SELECT ply, first_state, first_key, count, data FROM blocks ORDER BY ply, first_state"
        ).fetchall()
        plies = [row[1:] for row in conn.execute("SELECT * FROM plies ORDER BY ply").fetchall()]
    finally:
        conn.close()
    return blocks, plies


def one_process(name: str, path: Path) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """The rows of ``name`` stored by the one-process dense build into ``path``."""
    game = games.get(name)
    write_dense(path, game, index_of(name))
    return stored_rows(path)


def in_tasks(name: str, build_dir: str | Path, path: Path, executor: Executor, task: int = BLOCK) -> DenseBuild:
    """``name`` built in tasks of ``task`` slots by ``executor`` and stored into ``path``."""
    game = games.get(name)
    built = build_dense(game, build_dir, executor, task=task)
    write_dense(path, game, index_of(name), None, built)
    return built


def tasks_per_ply(name: str, task: int) -> list[int]:
    """The number of tasks of each ply of ``name`` in tasks of ``task`` slots."""
    return [-(-size // task) for size in sizes_of(name)]


def assert_same_as_one_process(name: str, tmp_path: Path, built: DenseBuild, task: int = BLOCK) -> None:
    """The file ``tmp_path/two.db`` of the build in tasks ``built`` holds the one-process build's
    rows, and every ply was reached and labelled by exactly its own tasks (none run twice)."""
    blocks, plies = one_process(name, tmp_path / "one.db")
    assert stored_rows(tmp_path / "two.db") == (blocks, plies)
    per_ply = tasks_per_ply(name, task)
    manifest = built.manifest
    assert manifest.reached == len(per_ply) and sorted(manifest.labelled) == list(range(len(per_ply)))
    assert manifest.figures["reach"].tasks == manifest.figures["label"].tasks == sum(per_ply)
    assert len(blocks) == sum(tasks_per_ply(name, BLOCK))


# -- the build in tasks, in this process -------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "mnk-3-3-3",
        "mnk-4-3-3",
        pytest.param("mnk-4-4-3", marks=SLOW),
        pytest.param("connect4-4-4", marks=SLOW),
        pytest.param("connect4-5-4", marks=SLOW),
    ],
)
def test_tasks_store_the_one_process_blocks(name: str, tmp_path: Path) -> None:
    with ProcessPool(1) as executor:
        built = in_tasks(name, tmp_path / "build", tmp_path / "two.db", executor)
    assert_same_as_one_process(name, tmp_path, built)


def test_a_ply_of_several_tasks_is_cut_at_task_multiples(tmp_path: Path) -> None:
    # mnk-4-3-3 in tasks of two blocks: plies 7 to 9 (27,720-34,650 slots) take one or two tasks
    with ProcessPool(1) as executor:
        built = in_tasks("mnk-4-3-3", tmp_path / "build", tmp_path / "two.db", executor, task=2 * BLOCK)
    assert tasks_per_ply("mnk-4-3-3", 2 * BLOCK) == [1] * 8 + [2] + [1] * 4
    assert_same_as_one_process("mnk-4-3-3", tmp_path, built, task=2 * BLOCK)
    # the block files of a ply's tasks hold its blocks from their first slots: 0, 16,384, 32,768 in ply 8
    assert [first for ply, first, _, _ in built.blocks() if ply == 8] == [0, BLOCK, 2 * BLOCK]


@pytest.mark.parametrize("url", ["memory://tablebase-dense-test/{name}", "file://{tmp}/build"])
def test_fsspec_build_dir(url: str, tmp_path: Path) -> None:
    # the fsspec path (memory://, read in pieces through cat_file) and a file:// URL, in this process
    with ProcessPool(1) as executor:
        built = in_tasks("mnk-4-3-3", url.format(tmp=tmp_path, name=tmp_path.name), tmp_path / "two.db", executor)
    assert_same_as_one_process("mnk-4-3-3", tmp_path, built)
    if url.startswith("file://"):
        assert json.loads((tmp_path / "build" / "manifest.json").read_text())["reached"] == 13


def test_a_scheduler_builds_a_dense_variant_dense() -> None:
    # connect4-6-5 is stored dense by default: on a scheduler it is the dense build in tasks, while
    # connect4-4-4 (packed by default) is the layered out-of-core build there
    large = plan("connect4-6-5", symmetry=True, storage=None, path_known=True, scheduler="tcp://127.0.0.1:1")
    assert large.storage is not None and (large.storage.name, large.out_of_core) == ("dense", False)
    assert large.scheduler == "tcp://127.0.0.1:1"
    small = plan("connect4-4-4", symmetry=True, storage=None, path_known=True, scheduler="local:2")
    assert small.storage is not None and (small.storage.name, small.out_of_core) == ("packed", True)
    asked = plan("connect4-4-4", symmetry=True, storage="dense", path_known=True, scheduler="local:2", worker_memory="1GB")
    assert asked.storage is not None and (asked.storage.name, asked.worker_memory) == ("dense", "1GB")


# -- Connect Four's child windows ---------------------------------------------------------


def raw_children(index: Connect4Index, ply: int, slot: int) -> list[int]:
    """The slots in ``ply + 1`` of the states one drop in a column not full makes of the state of
    ``slot`` (whether or not it is a position), not mirrored."""
    state = index.state(ply, slot)
    height = index.height
    found = []
    for c in range(index.columns):
        column = state >> c * height & (1 << height) - 1
        h = column.bit_length() - 1
        if h == index.rows:
            continue
        top = 1 << c * height + h
        # x's disc stays a 1 under a new top bit; o's is a 0 with the top bit carried up
        child = state | top << 1 if ply % 2 == 0 else state + top
        parts = index._parts(child)
        slot_of_child = index._base[parts[5]] + colex_rank(parts[3], index._colex)
        assert index.state(ply + 1, slot_of_child) == child
        found.append(slot_of_child)
    return found


def uncovered(index: Connect4Index, ply: int, first: int, end: int, windows: list[tuple[int, int]]) -> list[int]:
    """The child slots of slots ``first:end`` of ``ply`` outside every window, and the windows'
    ends that are no child's slot (a window longer than it needs): empty when the windows are
    exactly the spans of children they should be."""
    children = {c for slot in range(first, end) for c in raw_children(index, ply, slot)}
    outside = [c for c in sorted(children) if not any(lo <= c < hi for lo, hi in windows)]
    loose = [edge for lo, hi in windows for edge in (lo, hi - 1) if edge not in children]
    return outside + loose


def sample_ranges(index: Connect4Index, ply: int, rng: random.Random, count: int) -> list[tuple[int, int]]:
    """Ranges of slots of ``ply``: the whole ply when small, ranges starting and ending inside a
    height vector, ranges across the boundaries of height vectors, single slots and the last slot."""
    size = int(index.sizes[ply])
    per = int(index.colourings[ply])
    vectors = size // per
    found: list[tuple[int, int]] = []
    if size <= 6000:
        found.append((0, size))
    for _ in range(count):
        first = rng.randrange(size)
        found.append((first, min(size, first + rng.randint(1, min(size, 1500)))))
        if per > 2:
            v = rng.randrange(vectors)
            a, b = sorted(rng.sample(range(1, per), 2))
            found.append((v * per + a, v * per + b))
        if vectors > 1:
            v = rng.randrange(1, vectors)
            found.append((v * per - rng.randint(1, min(per, 700)), min(size, v * per + rng.randint(1, min(per, 700)))))
        found.append((first, first + 1))
    found.append((size - 1, size))
    return found


@pytest.mark.parametrize(("name", "count"), [("connect4-4-4", 4), pytest.param("connect4-5-4", 2, marks=pytest.mark.slow)])
def test_child_windows_hold_every_child(name: str, count: int) -> None:
    game = games.get(name)
    index = game.dense_index()
    assert isinstance(index, Connect4Index)
    rng = random.Random(11)
    checked = 0
    for ply in range(index.cells):
        for first, end in sample_ranges(index, ply, rng, count):
            windows = index.child_windows(ply, first, end)
            assert windows and all(lo < hi for lo, hi in windows)
            assert all(a[1] < b[0] for a, b in zip(windows, windows[1:])), (ply, first, end, windows)
            assert 0 <= windows[0][0] and windows[-1][1] <= int(index.sizes[ply + 1])
            assert uncovered(index, ply, first, end, windows) == [], (ply, first, end, windows)
            checked += end - first
    assert index.child_windows(index.cells, 0, int(index.sizes[index.cells])) == []
    assert checked > 20_000


def test_the_window_check_catches_a_window_one_slot_short() -> None:
    index = games.get("connect4-4-4").dense_index()
    assert isinstance(index, Connect4Index)
    # ply 9: 210 height vectors of 126 colourings; a range across two of them
    first, end = 3 * 126 + 40, 5 * 126 + 7
    windows = index.child_windows(9, first, end)
    assert uncovered(index, 9, first, end, windows) == []
    short = [(lo, hi - 1) for lo, hi in windows]
    assert len(uncovered(index, 9, first, end, short)) >= len(windows)
    late = [(lo + 1, hi) for lo, hi in windows]
    assert len(uncovered(index, 9, first, end, late)) >= len(windows)


def test_whole_ply_windows_of_mnk_are_the_next_ply() -> None:
    index = compiled_index(games.get("mnk-4-3-3"))
    sizes = sizes_of("mnk-4-3-3")
    assert index.child_windows(7, BLOCK, 2 * BLOCK) == [(0, sizes[8])]
    assert index.child_windows(len(sizes) - 1, 0, sizes[-1]) == []


# -- resuming ------------------------------------------------------------------------


class Stop(Exception):
    """Raised from a progress callback to end a build where it is."""


def stop_at(phase: str, done_past: int) -> Any:
    """A progress callback that raises :class:`Stop` once ``phase`` has done more than ``done_past`` slots."""

    def progress(name: str, done: int, total: int | None) -> None:
        if name == phase and done > done_past:
            raise Stop(f"{name} {done}")

    return progress


class Calls:
    """A progress callback that records its calls."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, int, int | None]] = []

    def __call__(self, phase: str, done: int, total: int | None) -> None:
        self.calls.append((phase, done, total))

    def of(self, phase: str) -> list[int]:
        """The ``done`` of every call of ``phase``, in order."""
        return [done for name, done, _ in self.calls if name == phase]


@pytest.mark.parametrize("name", ["mnk-4-3-3", pytest.param("connect4-4-4", marks=SLOW)])
def test_a_build_stopped_while_labelling_goes_on_from_its_manifest(name: str, tmp_path: Path) -> None:
    game = games.get(name)
    sizes = sizes_of(game.name)
    per_ply = tasks_per_ply(name, BLOCK)
    total = sum(sizes)
    with ProcessPool(1) as executor:
        with pytest.raises(Stop):
            build_dense(game, tmp_path / "build", executor, progress=stop_at("label", total // 2), task=BLOCK)
        manifest = json.loads((tmp_path / "build" / "manifest.json").read_text())
        labelled = sorted(int(p) for p in manifest["labelled"])
        last = len(sizes) - 1
        # the last plies are labelled, the one being labelled when the build stopped is not
        assert labelled and labelled == list(range(labelled[0], last + 1)) and labelled[0] > 0
        assert manifest["reached"] == len(sizes)
        assert manifest["figures"]["label"]["tasks"] == sum(per_ply[p] for p in labelled)
        calls = Calls()
        built = build_dense(game, tmp_path / "build", executor, progress=calls)
        write_dense(tmp_path / "two.db", game, index_of(game.name), None, built)
    # no reach at all, and the label phase goes on from the plies labelled before
    assert calls.of("reach") == []
    done_before = sum(sizes[p] for p in labelled)
    assert calls.of("label")[0] == done_before + min(BLOCK, sizes[labelled[0] - 1])
    assert calls.of("label")[-1] == total
    assert len(calls.of("label")) == sum(per_ply[: labelled[0]])
    assert_same_as_one_process(name, tmp_path, built)


def test_a_build_stopped_while_reaching_goes_on_from_its_manifest(tmp_path: Path) -> None:
    game = games.get("mnk-4-3-3")
    sizes = sizes_of(game.name)
    per_ply = tasks_per_ply("mnk-4-3-3", BLOCK)
    with ProcessPool(1) as executor:
        with pytest.raises(Stop):
            # past slot 60,000 of the reach: the first of the three tasks of ply 8 (slots 57,895 to 92,545)
            build_dense(game, tmp_path / "build", executor, progress=stop_at("reach", 60_000), task=BLOCK)
        manifest = json.loads((tmp_path / "build" / "manifest.json").read_text())
        assert manifest["reached"] == 8 and manifest["labelled"] == {}
        calls = Calls()
        built = build_dense(game, tmp_path / "build", executor, progress=calls, task=BLOCK)
        write_dense(tmp_path / "two.db", game, index_of(game.name), None, built)
    assert calls.of("reach")[0] == sum(sizes[:8]) + BLOCK
    assert len(calls.of("reach")) == sum(per_ply[8:])
    assert len(calls.of("label")) == sum(per_ply)
    assert_same_as_one_process("mnk-4-3-3", tmp_path, built)


def test_a_build_dir_of_other_tasks_or_another_variant_is_refused(tmp_path: Path) -> None:
    ttt = games.get("mnk-3-3-3")
    with ProcessPool(1) as executor:
        build_dense(ttt, tmp_path / "build", executor, task=BLOCK)
        with pytest.raises(BuildError, match=f"holds a build in tasks of {BLOCK} slots, not {2 * BLOCK}"):
            build_dense(ttt, tmp_path / "build", executor, task=2 * BLOCK)
        with pytest.raises(BuildError, match=r"holds another build \(mnk-3-3-3\)"):
            build_dense(games.get("mnk-4-3-3"), tmp_path / "build", executor)
        with pytest.raises(BuildError, match=f"task of 1000 slots: give a positive multiple of {BLOCK}"):
            build_dense(ttt, tmp_path / "other", executor, task=1000)
        (tmp_path / "layered").mkdir()
        (tmp_path / "layered" / "manifest.json").write_text(json.dumps({"layers": [], "game": "mnk-3-3-3"}))
        with pytest.raises(BuildError, match="holds another kind of build"):
            build_dense(ttt, tmp_path / "layered", executor)


# -- on a Dask cluster ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def cluster() -> Iterator[LocalCluster]:
    with distributed.LocalCluster(
        n_workers=2, processes=True, threads_per_worker=1, dashboard_address=":0", silence_logs=40
    ) as local:
        yield local


def test_cluster_build_matches_one_process(cluster: LocalCluster, tmp_path: Path) -> None:
    with DaskExecutor(cluster.scheduler_address) as executor:
        built = in_tasks("connect4-5-4", tmp_path / "build", tmp_path / "two.db", executor)
    assert_same_as_one_process("connect4-5-4", tmp_path, built)


def test_killed_workers_lose_nothing(cluster: LocalCluster, tmp_path: Path) -> None:
    game = games.get("connect4-5-4")
    total = sum(sizes_of(game.name))
    killed: list[tuple[str, int]] = []
    with distributed.Client(cluster) as client, DaskExecutor(cluster.scheduler_address) as executor:
        before = set(client.run(os.getpid).values())

        def kill(phase: str, done: int, total_: int | None) -> None:
            # one worker process ended in the middle of a reach ply and of a label ply: half the slots is
            # in ply 16 both ways (55 tasks; slots 2.49 to 3.40 million of the reach's 5.62, 2.23 to 3.13
            # million of the label's)
            if done > 0.5 * total and phase not in {k for k, _ in killed}:
                pid = min(client.run(os.getpid).values())
                killed.append((phase, pid))
                os.kill(pid, signal.SIGKILL)

        built = build_dense(game, tmp_path / "build", executor, progress=kill, task=BLOCK)
        write_dense(tmp_path / "two.db", game, index_of(game.name), None, built)
        assert [phase for phase, _ in killed] == ["reach", "label"] and killed[0][1] in before
        # the nannies restart both; a restart that never comes fails the test instead of hanging it
        client.wait_for_workers(2, timeout=300)
        after = set(client.run(os.getpid).values())
    assert not after & {pid for _, pid in killed} and after != before
    assert_same_as_one_process("connect4-5-4", tmp_path, built)


# -- the command line ------------------------------------------------------------------


def has_variant(db: Path, name: str) -> bool:
    """Whether the file ``db`` exists and holds a build of ``name``."""
    if not db.exists():
        return False
    with tablebase.open(db) as tb:
        return name in {i.name for i in tb.variants()}


def invoke(*args: str) -> Any:
    """``tablebase ARGS`` through typer's test runner."""
    return CliRunner().invoke(app, list(args))


def cli_json(*args: str) -> Any:
    """The JSON that ``tablebase ARGS --json`` prints (it must succeed)."""
    result = invoke(*args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.mark.slow
def test_cli_dense_build_on_local_workers(tmp_path: Path) -> None:
    dense, plain = tmp_path / "dense.db", tmp_path / "plain.db"
    result = invoke(
        "build", "connect4-4-4", "--storage", "dense", "--scheduler", "local:2", "--build-dir", str(tmp_path / "d"),
        "--db", str(dense),
    )
    assert result.exit_code == 0, result.output
    assert "(2 workers connected)" in result.output
    # the build dir stays where it was given, every ply labelled
    assert len(json.loads((tmp_path / "d" / "manifest.json").read_text())["labelled"]) == 17
    assert invoke("build", "connect4-4-4", "--db", str(plain)).exit_code == 0
    # John Tromp's table: connect4-4-4 is a draw
    for db in (dense, plain):
        assert cli_json("probe", "connect4-4-4", "--db", str(db))["outcome"] == "draw"
    assert cli_json("stats", "connect4-4-4", "--db", str(dense)) == cli_json("stats", "connect4-4-4", "--db", str(plain))
    with tablebase.open(dense) as a, tablebase.open(plain) as b:
        assert a.variant("connect4-4-4").info.storage == "dense"
        rng = random.Random(3)
        for _ in range(20):
            for state in playout(a.variant("connect4-4-4").game, rng):
                position = a.variant("connect4-4-4").game.format_position(state)
                assert a.variant("connect4-4-4").probe(position).to_dict() == b.variant("connect4-4-4").probe(position).to_dict()
        assert a.verify("connect4-4-4").ok


@pytest.mark.slow
def test_cli_dense_build_of_several_variants_keeps_a_folder_each(tmp_path: Path) -> None:
    # one command, several variants, one --build-dir: each variant's task files in DIR/VARIANT
    db, folder = tmp_path / "two.db", tmp_path / "d"
    result = invoke(
        "build", "mnk-3-3-3", "mnk-4-3-3", "--storage", "dense", "--scheduler", "local:1", "--build-dir", str(folder),
        "--db", str(db),
    )
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in folder.iterdir()) == ["mnk-3-3-3", "mnk-4-3-3"]
    for name, plies in (("mnk-3-3-3", 10), ("mnk-4-3-3", 13)):
        manifest = read_manifest(folder / name / "manifest.json")
        assert manifest is not None and manifest["game"] == name and len(manifest["labelled"]) == plies
    with tablebase.open(db) as tb:
        built = {i.name: (i.storage, i.outcome, i.distance) for i in tb.variants()}
    # tic-tac-toe is a draw in 9; on 4x3 the first player wins in 7
    assert built == {"mnk-3-3-3": ("dense", "draw", 9), "mnk-4-3-3": ("dense", "win", 7)}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--worker-memory", "1GB"], "--worker-memory sets the workers of --scheduler local:N"),
        (["--worker-memory", "1GB", "--scheduler", "tcp://127.0.0.1:1"], "--worker-memory sets the workers of --scheduler local:N"),
        (["--worker-memory", "lots", "--scheduler", "local:1"], "invalid worker memory 'lots'"),
        (["--scheduler", "local:1", "--build-dir", "memory://tb/x"], "lives in one process; the workers of a cluster need"),
        (["--scheduler", "tcp://127.0.0.1:1"], "cannot reach the dask scheduler 'tcp://127.0.0.1:1'"),
        (["--scheduler", "tcp://127.0.0.1:port"], "invalid scheduler 'tcp://127.0.0.1:port'"),
    ],
)
def test_cli_dense_errors_are_one_line(args: list[str], message: str, tmp_path: Path) -> None:
    db = tmp_path / "e.db"
    result = invoke("build", "connect4-4-4", "--storage", "dense", "--db", str(db), *args)
    assert result.exit_code == 1
    assert message in result.output and len(result.output.strip().splitlines()) == 1
    assert not has_variant(db, "connect4-4-4")


# -- a client killed mid-build ------------------------------------------------------------


def read_manifest(path: Path) -> dict[str, Any] | None:
    """The build dir's manifest, or ``None`` while there is none."""
    try:
        data: dict[str, Any] = json.loads(path.read_text())
    except FileNotFoundError:
        return None
    return data


def kill_group(pid: int) -> None:
    """SIGKILL whatever is left of the process group of ``pid`` (the workers a killed client started)."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


@pytest.mark.slow
def test_a_killed_client_resumes_without_redoing_plies(tmp_path: Path) -> None:
    build_dir, db = tmp_path / "d", tmp_path / "f.db"
    command = [
        sys.executable, "-m", "cli.main", "build", "connect4-5-4", "--storage", "dense", "--scheduler", "local:2",
        "--build-dir", str(build_dir), "--db", str(db),
    ]
    with open(tmp_path / "killed.log", "wb") as log:
        proc = subprocess.Popen(command, cwd=ROOT, stdout=log, stderr=log, start_new_session=True)
        try:
            deadline = time.monotonic() + 300
            while proc.poll() is None and time.monotonic() < deadline:
                seen = read_manifest(build_dir / "manifest.json")
                if seen is not None and seen["labelled"]:
                    os.kill(proc.pid, signal.SIGKILL)
                    break
                time.sleep(0.005)
            proc.wait(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            kill_group(proc.pid)
    assert proc.returncode == -signal.SIGKILL, (tmp_path / "killed.log").read_text()
    stopped = read_manifest(build_dir / "manifest.json")
    assert stopped is not None and stopped["reached"] == 21 and stopped["labelled"]
    labelled = {int(p): c for p, c in stopped["labelled"].items()}
    assert 0 not in labelled and not has_variant(db, "connect4-5-4")
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600, start_new_session=True)
    assert done.returncode == 0, done.stderr
    finished = read_manifest(build_dir / "manifest.json")
    assert finished is not None
    # every ply reached and labelled once: 21 plies of one task each (tasks of 4 Mi slots), the
    # plies labelled before the kill kept as they were
    assert finished["figures"]["reach"]["tasks"] == 21 and finished["figures"]["label"]["tasks"] == 21
    assert all(finished["labelled"][str(p)] == c for p, c in labelled.items())
    assert stored_rows(db) == one_process("connect4-5-4", tmp_path / "one.db")


def free_port() -> int:
    """A TCP port of this machine that nothing listens on now."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


@pytest.mark.slow
def test_a_cluster_started_by_hand_builds_the_same_file(tmp_path: Path) -> None:
    # `dask scheduler` and `dask worker` processes as docs/cluster.md starts them, over tcp
    dask = str(Path(sys.executable).with_name("dask"))
    address = f"tcp://127.0.0.1:{free_port()}"
    log = open(tmp_path / "cluster.log", "wb")
    started = [
        subprocess.Popen([dask, "scheduler", "--port", address.rsplit(":", 1)[1], "--dashboard-address", ":0"],
                         stdout=log, stderr=log, start_new_session=True),
    ]
    try:
        with distributed.Client(address, timeout="60s"):
            pass
        started.append(subprocess.Popen(
            [dask, "worker", address, "--nworkers", "2", "--nthreads", "1", "--memory-limit", "1GB"],
            stdout=log, stderr=log, start_new_session=True,
        ))
        with distributed.Client(address, timeout="60s") as client:
            client.wait_for_workers(2, timeout=120)
        db = tmp_path / "f.db"
        result = invoke("build", "connect4-5-4", "--storage", "dense", "--scheduler", address, "-q",
                        "--build-dir", str(tmp_path / "d"), "--db", str(db))
        assert result.exit_code == 0, result.output
        assert stored_rows(db) == one_process("connect4-5-4", tmp_path / "one.db")
    finally:
        for proc in reversed(started):
            kill_group(proc.pid)
            proc.wait(timeout=60)
        log.close()


@pytest.mark.slow
def test_a_task_that_kills_its_workers_is_a_build_error() -> None:
    # a worker process that dies in a task is restarted by its nanny and the task run again, until
    # the scheduler gives the task up (distributed.scheduler.allowed-failures)
    import dask

    with dask.config.set({"distributed.scheduler.allowed-failures": 1}):
        with DaskExecutor("local:1") as executor:
            with pytest.raises(BuildError, match="a task ended every worker that ran it"):
                list(executor.map(os._exit, [(3,)]))
