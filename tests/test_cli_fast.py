"""The console script's probe fast path: same output as the typer command, without its imports."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.fast import ProbeArgs, parse_probe, run_probe
from cli.main import app

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    "args",
    [
        ("tictactoe", "x.o/.x./..."),
        ("tictactoe",),
        ("tictactoe", "xxx/oo./...", "--json"),
        ("--json", "tictactoe-misere", "x.o/.x./..."),
        ("tictactoe", "xxx/ooo/..."),
        ("tictactoe", "xx"),
        ("nosuchgame",),
        ("mnk-4-4-4",),
    ],
)
def test_fast_probe_prints_what_the_typer_command_prints(
    built_db: Path, args: tuple[str, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    expected = CliRunner().invoke(app, ["probe", *args, "--db", str(built_db)])
    parsed = parse_probe([*args, "--db", str(built_db)], "tablebase.db")
    assert parsed is not None
    code = run_probe(parsed)
    out = capsys.readouterr()
    assert code == expected.exit_code
    assert out.out == expected.stdout
    assert out.err == expected.stderr


def test_probe_arguments() -> None:
    assert parse_probe(["ttt"], "d.db") == ProbeArgs("ttt", None, False, "d.db")
    assert parse_probe(["--db=x.db", "ttt", "p", "--json"], "d.db") == ProbeArgs("ttt", "p", True, "x.db")
    assert parse_probe(["ttt", "--", "-p"], "d.db") == ProbeArgs("ttt", "-p", False, "d.db")
    for other in (["--help"], [], ["ttt", "p", "q"], ["ttt", "--pretty"], ["ttt", "--db"]):
        assert parse_probe(other, "d.db") is None  # left to typer: help, usage errors


def test_environment_names_the_database(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TABLEBASE_DB", "env.db")
    assert parse_probe(["ttt"], "d.db") == ProbeArgs("ttt", None, False, "env.db")
    assert parse_probe(["ttt", "--db", "x.db"], "d.db") == ProbeArgs("ttt", None, False, "x.db")


def test_console_script_probe_loads_no_framework(built_db: Path) -> None:
    script = (
        "import sys\n"
        "from cli.fast import main\n"
        f"sys.argv = ['tablebase', 'probe', 'tictactoe', '--json', '--db', {str(built_db)!r}]\n"
        "try:\n"
        "    main()\n"
        "except SystemExit as exit:\n"
        "    assert exit.code == 0\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in"
        " ('typer', 'click', 'pydantic', 'numpy', 'sqlalchemy', 'alembic'))\n"
        "print(heavy, file=sys.stderr)\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["outcome"] == "draw"
    assert result.stderr.strip() == "[]"


def test_console_script_hands_everything_else_to_typer(built_db: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "cli.fast", "stats", "tictactoe", "--db", str(built_db)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert "total  5478       765" in result.stdout
