"""The import rule of the package docstring: the query path loads no heavy framework."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import tablebase

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("numpy", "sqlalchemy", "alembic", "typer", "click", "pydantic", "fastapi")


def loaded_after(code: str) -> list[str]:
    """The heavy top-level packages ``code`` imports, run in a fresh interpreter."""
    script = code + f"\nimport sys\nprint(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r})))\n"
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert result.returncode == 0, result.stderr
    return eval(result.stdout.strip().splitlines()[-1])  # a printed list of names


def test_import_open_and_probe_load_no_framework(built_db: Path, tmp_path: Path) -> None:
    """The rule of the package docstring, on a file of each storage layout."""
    states_only = tmp_path / "states.db"
    with tablebase.open(states_only) as tb:
        tb.build("tictactoe", storage="states")
    code = (
        "import tablebase\n"
        f"for path in ({str(built_db)!r}, {str(states_only)!r}):\n"
        "  with tablebase.open(path) as tb:\n"
        "    for info in tb.variants():\n"
        "        table = tb.variant(info.name)\n"
        "        table.probe(); table.line(); table.predecessors(table.probe().moves[0].position); table.stats()\n"
    )
    assert loaded_after(code) == []


def test_rules_and_layouts_import_without_numpy() -> None:
    code = (
        "from tablebase import games\n"
        "import tablebase.store.layouts, tablebase.reader, tablebase.results, tablebase.outcome\n"
        "for name in games.names(): games.get(name)\n"
    )
    assert loaded_after(code) == []


def test_typer_app_does_not_import_the_fast_path() -> None:
    script = "import cli.main, sys\nprint('cli.fast' in sys.modules)\n"
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert result.stdout.strip() == "False", result.stderr


def test_package_docstring_states_the_rule() -> None:
    assert "import rule" in (tablebase.__doc__ or "")
