"""Shared fixtures: tiny built databases, on disk and through an engine."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
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
