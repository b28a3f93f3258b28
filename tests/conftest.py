"""Shared fixtures (tiny built databases, on disk and through an engine) and the quick/slow split.

``pytest`` runs the quick set: pyproject.toml's ``addopts`` leave out the tests marked
``@pytest.mark.slow``; ``pytest -m slow`` runs those alone (a later ``-m`` replaces the one in
``addopts``), and CI runs both. A test that takes more than about 3 s on a 2-core machine is
marked slow (see ``pytest --durations=20``); the quick set keeps at least one test of every
family's rules, command, endpoint and storage, on the smallest board that shows the
behaviour. Tests that use a headless browser or a Dask cluster are marked slow here
(:data:`SLOW_FIXTURES`). The quick set compiles no numba kernel it can do without: only the m,n,k
dense passes (the dense storage) and the small Connect Four solver; a quick test must not import
``tablebase.games.ultimate.search`` (once imported, every later Ultimate search of the session
is compiled) nor search Ultimate positions of ``COMPILED_MIN_SPOTS`` open spots or more
(``--numba-compiles`` lists what each test compiled). A run in which ``-m`` leaves no test
(a file whose tests are all slow, say) passes and says so, rather than ending with pytest's
exit code 5. With ``CI`` set, a test skipped for want of a module that ``.[dev]`` installs fails
(:mod:`dev_extras`).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import dev_extras
import pytest
import xdist_groups
from serve_support import build_database

import tablebase

SMALL = ("tictactoe", "tictactoe-misere", "mnk-2-2-2", "mnk-3-2-2", "mnk-3-3-2")


@pytest.fixture(scope="session")
def built_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database with a few small variants, built once per test session (treat as read-only)."""
    path = build_database(tmp_path_factory.mktemp("db") / "small.db", SMALL)
    with tablebase.open(path) as tb:
        tb.build("mnk-3-3-3", symmetry=False)
    return path


@pytest.fixture(scope="session")
def tictactoe_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database holding tic-tac-toe alone, built once per test session (treat as read-only)."""
    return build_database(tmp_path_factory.mktemp("tictactoe") / "tablebase.db", ["tictactoe"])


@pytest.fixture
def db_copy(built_db: Path, tmp_path: Path) -> Path:
    """A private copy of :func:`built_db` that a test may change."""
    target = tmp_path / "copy.db"
    shutil.copyfile(built_db, target)
    return target


@pytest.fixture
def tb(built_db: Path) -> tablebase.Tablebase:
    with tablebase.open(built_db) as opened:
        yield opened


@pytest.fixture
def ttt(tb: tablebase.Tablebase) -> tablebase.VariantTable:
    return tb.variant("tictactoe")


class Solutions(dict[str, tuple[Any, Any]]):
    """Variants solved in memory with and without symmetry reduction, each solved on first use."""

    def __missing__(self, name: str) -> tuple[Any, Any]:
        from tablebase.games import get
        from tablebase.solve import solve

        self[name] = solved = (solve(get(name)), solve(get(name), symmetry=False))
        return solved


@pytest.fixture(scope="session")
def solved() -> Solutions:
    """``solved[name]`` is ``(reduced, full)``, the solutions of a small variant (treat as read-only)."""
    return Solutions()


#: Fixtures whose tests are slow whatever they check: a headless browser, a local Dask cluster.
SLOW_FIXTURES = frozenset({"browser", "cluster"})


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the tests that use one of :data:`SLOW_FIXTURES` slow (before ``-m`` selects)."""
    for item in items:
        if SLOW_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)


_DESELECTED = pytest.StashKey[int]()


def pytest_deselected(items: list[pytest.Item]) -> None:
    if items:
        stash = items[0].config.stash
        stash[_DESELECTED] = stash.get(_DESELECTED, 0) + len(items)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """A run whose tests were all left out by ``-m`` (not by ``-k``) passes, and says so."""
    config = session.config
    deselected = config.stash.get(_DESELECTED, 0)
    if exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED and deselected and not config.option.keyword:
        session.exitstatus = pytest.ExitCode.OK
        reporter = config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line(f"no test here matches -m {config.option.markexpr!r}: {deselected} left out, none run")


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """The workers of ``-n auto`` (in ``addopts``): one a core for the quick set; none (the tests
    in this process) for a run that selects slow tests, which start clusters, servers, browsers
    and subprocesses of their own and kill some of them."""
    if (config.option.markexpr or "").strip() != "not slow":
        return 0
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on every platform
        return os.cpu_count() or 1


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--numba-compiles",
        action="store_true",
        help="after the run, list the tests during which numba wrote compiled kernels to NUMBA_CACHE_DIR "
        "(set it to an empty folder to see what a fresh checkout compiles)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(dev_extras, "dev-extras")
    config.pluginmanager.register(xdist_groups, "xdist-groups")
    if config.getoption("--numba-compiles"):
        folder = os.environ.get("NUMBA_CACHE_DIR")
        if not folder:
            raise pytest.UsageError("--numba-compiles needs NUMBA_CACHE_DIR set (an empty folder for a fresh checkout)")
        config.pluginmanager.register(NumbaCompiles(Path(folder)), "numba-compiles")


class NumbaCompiles:
    """The kernels numba compiled while each test ran (in this process or a child), from the
    index files it writes to ``NUMBA_CACHE_DIR``; kernels compiled while collecting count for
    the first test."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.seen = self._kernels()
        self.by_test: dict[str, list[str]] = {}

    def _kernels(self) -> set[str]:
        return {f"{p.parent.name.split('_')[0]}/{p.name.split('-')[0]}" for p in self.folder.rglob("*.nbi")}

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Any:
        yield
        new = self._kernels() - self.seen
        if new:
            self.seen |= new
            self.by_test[item.nodeid] = sorted(new)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        terminalreporter.section("numba kernels compiled")
        for test, kernels in self.by_test.items():
            terminalreporter.write_line(f"{test}: {', '.join(kernels)}")
        terminalreporter.write_line(f"{sum(map(len, self.by_test.values()))} kernels compiled in {len(self.by_test)} tests")
