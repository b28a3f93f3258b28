"""Nothing lost: killed and interrupted builds, readers during a build, read-only files."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import tablebase

ROOT = Path(__file__).resolve().parent.parent

KILLER = """
import os, signal, sys
import tablebase
path, name, phase, at = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
symmetry = sys.argv[5] == "sym"
storage = sys.argv[6] if len(sys.argv) > 6 else None

def progress(current, done, total):
    if current == phase and done >= at:
        os.kill(os.getpid(), signal.SIGKILL)

with tablebase.open(path) as tb:
    tb.build(name, symmetry=symmetry, progress=progress, storage=storage, workers=1)
print("finished")
"""


def snapshot(path: Path) -> dict[str, object]:
    """Everything a user can see of each built variant."""
    with tablebase.open(path) as tb:
        out: dict[str, object] = {}
        for info in tb.variants():
            table = tb.variant(info.name)
            out[info.name] = (info.to_dict(), table.stats().to_dict(), table.probe().to_dict())
        return out


def kill_build(
    path: Path, name: str, phase: str, at: int, symmetry: bool = True, storage: str | None = None
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", KILLER, str(path), name, phase, str(at), "sym" if symmetry else "full",
         *([storage] if storage else [])],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )


@pytest.mark.parametrize(
    "name, phase, at",
    [
        pytest.param("mnk-4-3-3", "enumerate", 8000, marks=pytest.mark.slow),
        ("mnk-4-3-3", "label", 3),
        pytest.param("mnk-4-3-3", "write", 1, marks=pytest.mark.slow),
        ("tictactoe", "write", 1),
        pytest.param("tictactoe", "write", 800, marks=pytest.mark.slow),
    ],
)
def test_sigkill_loses_nothing(db_copy: Path, name: str, phase: str, at: int) -> None:
    before = snapshot(db_copy)
    result = kill_build(db_copy, name, phase, at)
    assert result.returncode == -signal.SIGKILL, result.stderr
    assert "finished" not in result.stdout
    after = snapshot(db_copy)
    assert after == before  # a new variant is absent, a rebuilt one unchanged
    with tablebase.open(db_copy) as tb:
        for info in tb.variants():
            assert tb.verify(info.name).ok


@pytest.mark.slow
def test_killed_then_rebuilt_is_complete(db_copy: Path) -> None:
    kill_build(db_copy, "mnk-4-3-3", "write", 1)
    with tablebase.open(db_copy) as tb:
        assert tb.get_variant("mnk-4-3-3") is None
        info = tb.build("mnk-4-3-3")
        assert (info.states, info.outcome, info.distance) == (28275, "win", 7)
        assert tb.verify("mnk-4-3-3").ok


@pytest.mark.parametrize(
    "storage, phase",
    [
        ("states", "layer 6 label"),
        pytest.param("states", "write", marks=pytest.mark.slow),
        pytest.param("packed", "layer 6 label", marks=pytest.mark.slow),
        pytest.param("packed", "pack", marks=pytest.mark.slow),
    ],
)
def test_layered_build_killed_then_resumed(db_copy: Path, storage: str, phase: str) -> None:
    before = snapshot(db_copy)
    result = kill_build(db_copy, "mnk-4-3-3", phase, 1, storage=storage)
    assert result.returncode == -signal.SIGKILL, result.stderr
    assert snapshot(db_copy) == before
    folder = db_copy.with_name(f"{db_copy.name}.build-mnk-4-3-3")
    assert (folder / "manifest.json").exists()  # the finished layers stay for the next run
    phases: list[str] = []
    with tablebase.open(db_copy) as tb:
        info = tb.build("mnk-4-3-3", storage=storage, workers=1, progress=lambda p, d, t: phases.append(p))
        assert (info.storage, info.states, info.outcome, info.distance) == (storage, 28275, "win", 7)
        assert tb.verify("mnk-4-3-3").ok and tb.verify("tictactoe").ok
    assert not any("enumerate" in p for p in phases)  # resumed after the forward pass
    labelled = list(dict.fromkeys(p for p in phases if p.endswith("label")))
    assert labelled == ([] if phase in ("write", "pack") else [f"layer {d} label" for d in range(6, -1, -1)])
    assert not folder.exists()
    after = snapshot(db_copy)
    assert {k: v for k, v in after.items() if k != "mnk-4-3-3"} == before


@pytest.mark.slow
@pytest.mark.parametrize("storage, phase", [("states", "write"), ("packed", "pack")])
def test_file_of_one_variant_killed_in_the_write_keeps_the_old_file(tmp_path: Path, storage: str, phase: str) -> None:
    path = tmp_path / "alone.db"
    with tablebase.open(path) as tb:
        tb.build("mnk-4-3-3", storage=storage)
    before = snapshot(path)
    result = kill_build(path, "mnk-4-3-3", phase, 1, storage=storage)
    assert result.returncode == -signal.SIGKILL, result.stderr
    assert snapshot(path) == before  # the new file is written beside it and renamed only when complete
    with tablebase.open(path) as tb:
        tb.build("mnk-4-3-3", storage=storage)
        assert tb.verify("mnk-4-3-3").ok
    # neither the half-written file nor the layer files are left behind
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith("alone.db.build")]


# the command line, held in the middle of the write (rows inserted, transaction open) until Ctrl-C
# arrives: otherwise a loaded machine can let the build finish before the signal is sent
CTRL_C = """
import signal, sys, time
from cli import main

# as in a terminal, whatever the test run inherited (a background job ignores SIGINT)
signal.signal(signal.SIGINT, signal.default_int_handler)

progress = main.BuildProgress.__call__
held = []

def hold(self, phase, done, total):
    progress(self, phase, done, total)
    if phase == "write" and done and not held:
        held.append(done)
        print("holding", file=sys.stderr, flush=True)
        time.sleep(120)

main.BuildProgress.__call__ = hold
main.main()
"""


@pytest.mark.slow
def test_ctrl_c_stops_cleanly_with_one_line(db_copy: Path) -> None:
    before = snapshot(db_copy)
    proc = subprocess.Popen(
        [sys.executable, "-c", CTRL_C, "build", "mnk-4-3-3", "--no-symmetry", "--db", str(db_copy)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    assert proc.stderr is not None
    line = proc.stderr.readline()
    assert "enumerate" in line  # the first phase has finished
    while line and line.strip() != "holding":
        line = proc.stderr.readline()
    assert line.strip() == "holding"  # rows of the new build are in the open transaction
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 1
    assert err.strip().splitlines()[-1] == "error: interrupted; the database is unchanged"
    assert "Traceback" not in err
    assert snapshot(db_copy) == before


READER = """
import os, sys, time
import tablebase
path, stop = sys.argv[1], sys.argv[2]
deadline = time.time() + 240
count = 0
with tablebase.open(path) as tb:
    while not os.path.exists(stop) and time.time() < deadline:
        assert tb.variant("tictactoe").probe("x.o/.x./...").outcome == "draw"
        probe = tb.variant("mnk-4-3-3").probe()
        assert (probe.outcome, probe.distance) == ("win", 7), probe
        assert len(probe.moves) == 12
        count += 1
print(count)
"""


@pytest.mark.slow
def test_readers_keep_probing_during_a_rebuild(db_copy: Path, tmp_path: Path) -> None:
    with tablebase.open(db_copy) as tb:
        tb.build("mnk-4-3-3")
    stop = tmp_path / "stop"
    readers = [
        subprocess.Popen(
            [sys.executable, "-c", READER, str(db_copy), str(stop)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        for _ in range(2)
    ]
    time.sleep(1)
    with tablebase.open(db_copy) as tb:
        for symmetry in (False, True, False):
            tb.build("mnk-4-3-3", symmetry=symmetry)
    stop.touch()
    for reader in readers:
        out, err = reader.communicate(timeout=60)
        assert reader.returncode == 0, err
        assert int(out) > 0


def test_open_reader_follows_a_states_only_rebuild(tmp_path: Path) -> None:
    path = tmp_path / "one.db"
    with tablebase.open(path) as tb:
        tb.build("tictactoe")
    with tablebase.open(path) as reader:
        table = reader.variant("tictactoe")
        before = table.probe("x.o/.x./...")
        assert table.info.storage == "moves"
        with tablebase.open(path) as writer:
            writer.build("tictactoe", storage="states")  # a new file renamed over the old one
        assert reader.variant("tictactoe").info.storage == "states"
        assert table.probe("x.o/.x./...") == before
        assert table.info.storage == "states"
        assert len(reader.variants()) == 1


def test_queries_never_write(db_copy: Path) -> None:
    before = db_copy.read_bytes()
    mtime = db_copy.stat().st_mtime_ns
    with tablebase.open(db_copy) as tb:
        tb.variant("tictactoe").probe()
        tb.variant("tictactoe").line()
        tb.variant("tictactoe").predecessors("x.o/.x./...")
        tb.variant("tictactoe").stats()
        tb.verify("tictactoe")
    assert db_copy.read_bytes() == before and db_copy.stat().st_mtime_ns == mtime


def test_read_only_file_answers_queries_and_refuses_builds(db_copy: Path) -> None:
    os.chmod(db_copy, 0o444)
    try:
        with tablebase.open(db_copy) as tb:
            assert tb.variant("tictactoe").probe().outcome == "draw"
            with pytest.raises(tablebase.DatabaseError, match="is read-only"):
                tb.build("mnk-2-2-2")
    finally:
        os.chmod(db_copy, 0o644)


def test_read_only_folder_refuses_a_new_database(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    os.chmod(folder, 0o555)
    try:
        with tablebase.open(folder / "new.db") as tb, pytest.raises(tablebase.DatabaseError, match="read-only"):
            tb.build("tictactoe")
        assert not (folder / "new.db").exists()
    finally:
        os.chmod(folder, 0o755)


def test_missing_folder(tmp_path: Path) -> None:
    with tablebase.open(tmp_path / "no" / "such.db") as tb, pytest.raises(tablebase.DatabaseError, match="does not exist"):
        tb.build("tictactoe")
