"""The first use: the compiled searches come with the default install, a search that needs what is
missing is refused in one line, and a line on stderr says when code is compiled for its first use."""

from __future__ import annotations

import ast
import importlib.util
import os
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

import tablebase
from tablebase import progress
from tablebase.errors import TablebaseError

ROOT = Path(__file__).resolve().parents[1]
#: The modules of the compiled searches ``tablebase solve`` runs (what they import from the
#: package is followed).
SEARCHES = ("tablebase.games.connect4.prover", "tablebase.games.ultimate.search")


def _requirement_name(line: str) -> str:
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    return canonicalize_name(Requirement(line).name)


def _imports(module: str) -> list[str]:
    """The modules ``module``'s source imports by absolute name, at its top level or inside functions."""
    spec = importlib.util.find_spec(module)
    assert spec is not None and spec.origin is not None, module
    names: list[str] = []
    for node in ast.walk(ast.parse(Path(spec.origin).read_text())):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append(node.module)
    return names


def _third_party_imports(module: str) -> set[str]:
    """The top-level names of the modules outside the package that ``module`` and the package
    modules it imports import."""
    found: set[str] = set()
    todo, seen = [module], {module}
    while todo:
        for imported in _imports(todo.pop()):
            top = imported.split(".")[0]
            if top != "tablebase":
                if top not in sys.stdlib_module_names and top != "__future__":
                    found.add(top)
            elif imported not in seen and importlib.util.find_spec(imported) is not None:
                seen.add(imported)
                todo.append(imported)
    return found


def _installed_with(names: set[str]) -> set[str]:
    """``names`` and what their installed distributions require in turn, without extras."""
    from packaging.requirements import Requirement

    found, todo = set(), list(names)
    while todo:
        name = todo.pop()
        if name in found:
            continue
        found.add(name)
        try:
            lines = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            continue
        for line in lines:
            requirement = Requirement(line)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                todo.append(_requirement_name(line))
    return found


def test_the_default_install_holds_what_the_compiled_searches_import() -> None:
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    direct = {_requirement_name(line) for line in project["dependencies"]}
    assert "numba" in direct, "the compiled searches need numba: a default dependency, not an extra's"
    default = _installed_with(direct)
    providers = metadata.packages_distributions()
    needed = {
        module: {_requirement_name(dist) for dist in providers.get(module, [module])}
        for search in SEARCHES
        for module in _third_party_imports(search)
    }
    assert "numba" in needed and "numpy" in needed
    missing = {module: dists for module, dists in needed.items() if not dists & default}
    assert not missing, f"the compiled searches import {missing}, which `pip install -e .` does not install"
    assert "fast" in project["optional-dependencies"], "`pip install -e '.[fast]'` must still work"


def _without_prover(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make ``from tablebase.games.connect4 import prover`` fail as it does without numba."""
    import tablebase.games.connect4 as package

    monkeypatch.delattr(package, "prover", raising=False)
    monkeypatch.setitem(sys.modules, "tablebase.games.connect4.prover", None)


def test_a_connect4_search_without_numba_is_refused_in_one_line(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from cli.main import app

    _without_prover(monkeypatch)
    game = tablebase.games.get("connect4")
    with pytest.raises(TablebaseError, match="needs numba") as refused:
        game.outcome_table(game.initial_state())
    assert "pip install numba" in str(refused.value) and "\n" not in str(refused.value)
    # a board the builders take is searched in Python instead
    small = tablebase.games.get("connect4-4-4")
    assert small.outcome_table(small.initial_state()) is None
    db = tmp_path / "t.db"
    result = CliRunner().invoke(app, ["solve", "connect4", "4344354261", "--db", str(db)])
    assert result.exit_code == 1
    assert result.stderr.startswith("error: searching connect4 needs numba") and result.stderr.count("\n") == 1
    assert "pip install numba" in result.stderr


def test_the_compile_note_comes_only_while_the_cache_lacks_the_kernel(tmp_path: Path) -> None:
    pytest.importorskip("numba")
    from tablebase.games.common.compiled import announce_compile, is_cached

    source = tmp_path / f"first_use_kernel_{os.getpid()}.py"
    source.write_text("from numba import njit\n\n\n@njit(cache=True)\ndef add_one(x):\n    return x + 1\n")
    spec = importlib.util.spec_from_file_location(source.stem, source)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    notes: list[tuple[str, int, int | None]] = []
    before = progress.on_compile(lambda *note: notes.append(note))
    try:
        assert not is_cached(module.add_one)
        announce_compile("the test kernel", (module.add_one,), 1.0)
        assert notes == [("compiling the test kernel (first use, about 1 s)...", 0, None)]
        assert module.add_one(1) == 2
        assert is_cached(module.add_one)
        announce_compile("the test kernel", (module.add_one,), 1.0)
        assert len(notes) == 1
    finally:
        progress.on_compile(before)
    # nobody listening: nothing is said, nothing fails
    progress.compiling("the test kernel", 1.0)


def test_the_ultimate_kernels_compile_nothing_on_import() -> None:
    """The note comes before the compile: importing the modules of the Ultimate search's kernels
    compiles none of them (``tablebase.games.ultimate.search`` compiles them after the note)."""
    pytest.importorskip("numba")
    code = (
        "import tablebase.games.ultimate.steps as steps\n"
        "print(sum(len(k.overloads) for stage in (steps.HERE, *steps.BESIDE) for k in stage))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "0"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("variant", "position", "value"),
    [
        ("connect4", "4344354261", "win in 3"),
        (
            "ultimate",
            ".o...xo../.o.xooo../.xx.oo.o./o.xxxx.x./oo.o..xxo/.xoo.x.xo/xo..x..x./..xxxoxox/...xoooox x 3",
            "win in 29",
        ),
    ],
)
def test_the_first_solve_says_it_compiles_and_the_second_does_not(
    tmp_path: Path, variant: str, position: str, value: str
) -> None:
    pytest.importorskip("numba")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba")}
    command = [sys.executable, "-m", "cli.main", "solve", variant, position, "--db"]
    for run, said in ((1, True), (2, False)):
        done = subprocess.run([*command, str(tmp_path / f"{run}.db")], env=env, capture_output=True, text=True, cwd=ROOT)
        assert done.returncode == 0, done.stderr
        assert value in done.stdout
        assert (f"compiling the {variant} search (first use, about" in done.stderr) is said, done.stderr


def test_a_command_with_text_and_flag_options_builds_no_parameter_models(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    with tablebase.open(db) as tb:
        tb.build("tictactoe")
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "cli.fast", "list", "--json", "--db", str(db)],
        capture_output=True, text=True, cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    assert '"variant": "tictactoe"' in done.stdout
    imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    assert "typer" in imported and "pydantic" not in imported
