"""One Tablebase shared by many threads, across a rebuild by another process, and after fork."""

from __future__ import annotations

import multiprocessing
import random
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

import tablebase

ROOT = Path(__file__).resolve().parent.parent
THREADS = 8

#: (variant, storage) pairs built into the shared file: every storage the builder offers.
STORAGES = [("mnk-4-3-3", "moves"), ("tictactoe", "states"), ("tictactoe-misere", "packed")]


def sample_positions(table: tablebase.VariantTable, count: int, seed: int) -> list[str]:
    """Positions met on random games from the start, the start and terminal ones included."""
    rng = random.Random(seed)
    found: list[str] = []
    while len(found) < count:
        probe = table.probe()
        found.append(probe.position)
        while probe.moves and len(found) < count:
            probe = table.probe(rng.choice(probe.moves).position)
            found.append(probe.position)
    return found


def answers(table: tablebase.VariantTable, position: str) -> tuple[Any, ...]:
    """Everything the query layer says about one position, as plain data."""
    return (
        table.probe(position).to_dict(),
        table.line(position).to_dict(),
        [(p.position, p.move) for p in table.predecessors(position)],
    )


@pytest.fixture(scope="module")
def shared_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("threads") / "shared.db"
    with tablebase.open(path) as tb:
        for name, storage in STORAGES:
            tb.build(name, storage=storage)
    return path


@pytest.fixture(scope="module")
def reference(shared_db: Path) -> dict[str, dict[str, tuple[Any, ...]]]:
    """Single-threaded answers on a fresh object: what every thread must see."""
    out: dict[str, dict[str, tuple[Any, ...]]] = {}
    with tablebase.open(shared_db) as tb:
        for name, _ in STORAGES:
            table = tb.variant(name)
            out[name] = {p: answers(table, p) for p in dict.fromkeys(sample_positions(table, 300, seed=7))}
    return out


def hammer(
    tb: tablebase.Tablebase,
    reference: dict[str, dict[str, tuple[Any, ...]]],
    rounds: int,
    during: threading.Event | None = None,
) -> tuple[int, list[str]]:
    """Query ``tb`` from THREADS threads; the number of answers and every error or mismatch."""
    done = [0] * THREADS
    problems: list[str] = []
    start = threading.Barrier(THREADS)

    def work(index: int) -> None:
        rng = random.Random(index)
        start.wait()
        try:
            for round_ in range(rounds):
                if during is not None and round_ == 1:
                    during.set()
                for name, positions in reference.items():
                    table = tb.variant(name)
                    for position in rng.sample(list(positions), len(positions)):
                        got = answers(table, position)
                        if got != positions[position]:
                            problems.append(f"{name} {position!r}: {got} != {positions[position]}")
                        done[index] += 1
        except Exception as exc:  # every error, not only the library's, is a failure here
            problems.append(f"thread {index}: {exc!r}")

    threads = [threading.Thread(target=work, args=(i,)) for i in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sum(done), problems


@pytest.mark.slow
def test_one_object_shared_by_threads_answers_as_one_thread(shared_db: Path, reference: dict) -> None:
    with tablebase.open(shared_db) as tb:
        count, problems = hammer(tb, reference, rounds=2)
    assert problems == []
    assert count == THREADS * 2 * sum(len(p) for p in reference.values())


@pytest.mark.slow
def test_threads_during_a_rebuild_in_another_process(shared_db: Path, reference: dict, tmp_path: Path) -> None:
    path = tmp_path / "rebuilt.db"
    path.write_bytes(shared_db.read_bytes())
    started = threading.Event()
    rebuilds: list[subprocess.CompletedProcess[str]] = []

    def rebuild() -> None:
        started.wait()
        for name, storage in STORAGES:
            rebuilds.append(
                subprocess.run(
                    [sys.executable, "-m", "cli.main", "build", name, "--storage", storage, "-q", "--db", str(path)],
                    cwd=ROOT,
                    capture_output=True,
                    text=True,
                    timeout=300,
                )
            )

    builder = threading.Thread(target=rebuild)
    builder.start()
    with tablebase.open(path) as tb:
        _, problems = hammer(tb, reference, rounds=4, during=started)
    builder.join()
    assert [r.returncode for r in rebuilds] == [0] * len(STORAGES), [r.stderr for r in rebuilds]
    assert problems == []


def _probe_in_child(tb: tablebase.Tablebase, name: str, positions: list[str], queue: Any) -> None:
    table = tb.variant(name)
    queue.put([answers(table, p) for p in positions])


@pytest.mark.skipif(sys.platform == "win32", reason="fork is POSIX only")
def test_an_object_opened_before_fork_works_in_the_child(shared_db: Path, reference: dict) -> None:
    context = multiprocessing.get_context("fork")
    with tablebase.open(shared_db) as tb:
        for name, positions in reference.items():
            chosen = list(positions)[:40]
            assert [answers(tb.variant(name), p) for p in chosen] == [positions[p] for p in chosen]
            queue = context.Queue()
            child = context.Process(target=_probe_in_child, args=(tb, name, chosen, queue))
            child.start()
            got = queue.get(timeout=60)
            child.join(timeout=60)
            assert child.exitcode == 0
            assert got == [positions[p] for p in chosen]
            assert [answers(tb.variant(name), p) for p in chosen] == [positions[p] for p in chosen]


def test_close_while_other_threads_query(shared_db: Path, reference: dict) -> None:
    tb = tablebase.open(shared_db)
    stop = threading.Event()
    problems: list[str] = []
    name, positions = next(iter(reference.items()))

    def work() -> None:
        table = tb.variant(name)
        try:
            while not stop.is_set():
                for position, expected in positions.items():
                    if answers(table, position) != expected:
                        problems.append(position)
        except Exception as exc:
            problems.append(repr(exc))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for _ in range(20):
        tb.close()
    stop.set()
    for thread in threads:
        thread.join()
    tb.close()
    assert problems == []


def test_builds_from_several_threads_are_serialised(tmp_path: Path) -> None:
    path = tmp_path / "builds.db"
    errors: list[str] = []
    with tablebase.open(path) as tb:

        def build(name: str) -> None:
            try:
                tb.build(name)
            except Exception as exc:
                errors.append(repr(exc))

        threads = [threading.Thread(target=build, args=(n,)) for n in ("tictactoe", "mnk-3-3-2", "mnk-4-3-3", "mnk-2-2-2")]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert errors == []
        assert sorted(info.name for info in tb.variants()) == ["mnk-2-2-2", "mnk-3-3-2", "mnk-4-3-3", "tictactoe"]
        for name in ("tictactoe", "mnk-4-3-3"):
            assert tb.verify(name).ok


def test_database_layer_errors_are_the_library_s_own(tmp_path: Path) -> None:
    path = tmp_path / "broken.db"
    with tablebase.open(path) as tb:
        tb.build("tictactoe")
    data = bytearray(path.read_bytes())
    page = 4096
    data[page * 2 : page * 4] = b"\xff" * (page * 2)
    path.write_bytes(bytes(data))
    with tablebase.open(path) as tb, pytest.raises(tablebase.DatabaseError) as info:
        table = tb.variant("tictactoe")
        for position in sample_positions(table, 500, seed=1):
            table.line(position)
    assert "\n" not in str(info.value)


def test_a_long_read_in_one_thread_does_not_hold_up_the_others(shared_db: Path, reference: dict) -> None:
    """A thread inside a snapshot keeps its turn only for a turn's length: others read meanwhile."""
    name = STORAGES[0][0]
    inside, release = threading.Event(), threading.Event()
    with tablebase.open(shared_db) as tb:
        table = tb.variant(name)

        def hold() -> None:
            with table.snapshot():
                inside.set()
                release.wait(30)

        holder = threading.Thread(target=hold)
        holder.start()
        try:
            assert inside.wait(30)
            got: list[tuple[Any, ...]] = []
            reader = threading.Thread(target=lambda: got.extend(answers(table, p) for p in reference[name]))
            reader.start()
            reader.join(60)
            assert not reader.is_alive()
            assert got == list(reference[name].values())
        finally:
            release.set()
            holder.join()


def test_turns_pass_from_thread_to_thread() -> None:
    """Threads that keep asking for turns all get them; one that asks again right away keeps its own."""
    from tablebase.reader import Turns

    turns = Turns(0.001)
    me = threading.get_ident()
    turns.enter()
    turns.leave()
    turns.enter()
    assert turns._owner == me
    turns.leave()
    counts = [0, 0, 0]
    stop = threading.Event()

    def run(i: int) -> None:
        while not stop.is_set():
            turns.enter()
            counts[i] += 1
            turns.leave()

    workers = [threading.Thread(target=run, args=(i,)) for i in range(3)]
    for w in workers:
        w.start()
    threading.Event().wait(0.3)
    stop.set()
    for w in workers:
        w.join(10)
    assert all(counts), counts


def test_threads_share_one_storage_per_build(tmp_path: Path) -> None:
    """The packed block cache is the process's, not each thread's; a rebuild gets a new one."""
    path = tmp_path / "p.db"
    with tablebase.open(path) as tb:
        tb.build("tictactoe", storage="packed")
        table = tb.variant("tictactoe")
        table.probe("x../.../... o")
        seen: list[object] = []
        thread = threading.Thread(target=lambda: (table.probe("x../.../... o"), seen.append(table.storage)))
        thread.start()
        thread.join()
        assert seen == [table.storage]
        cache = table.storage.reader.cache  # type: ignore[attr-defined]
        assert cache.size > 0
        tb.build("tictactoe", storage="packed")
        assert table.storage is not seen[0]
        assert table.probe("x../.../... o").outcome == "draw"
