"""The import rule of the package docstring: the query path loads no heavy framework."""

from __future__ import annotations

import ast
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
    """The rule of the package docstring, on a file of each storage."""
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


def test_sql_functions_load_no_framework(built_db: Path) -> None:
    code = (
        "import tablebase.sql\n"
        f"conn = tablebase.sql.connect({str(built_db)!r})\n"
        "assert conn.execute(\"SELECT tb_outcome('tictactoe'), tb_probe('tictactoe', 'x../.../...')\").fetchone()[0] == 'draw'\n"
    )
    assert loaded_after(code) == []


def test_rules_and_storage_import_without_numpy() -> None:
    code = (
        "from tablebase import games\n"
        "import tablebase.store.storage, tablebase.reader, tablebase.results, tablebase.outcome\n"
        "for name in games.names(): games.get(name)\n"
    )
    assert loaded_after(code) == []


def test_typer_app_does_not_import_the_fast_path() -> None:
    script = "import cli.main, sys\nprint('cli.fast' in sys.modules)\n"
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert result.stdout.strip() == "False", result.stderr


def test_package_docstring_states_the_rule() -> None:
    assert "import rule" in (tablebase.__doc__ or "")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(package: Path) -> dict[str, set[str]]:
    """Module -> the package's modules it imports anywhere in its text: at module level, inside
    functions and under ``TYPE_CHECKING`` alike (``from tablebase import x`` counts as an import
    of ``tablebase/__init__`` unless ``x`` is a submodule; a package's parents are not counted)."""
    files = {_module_name(path): path for path in package.rglob("*.py")}

    def known(name: str) -> str | None:
        while name and name not in files:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for module, path in files.items():
        here = module if path.name == "__init__.py" else module.rpartition(".")[0]
        targets: set[str | None] = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets.update(known(alias.name) for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = here.rsplit(".", node.level - 1)[0] if node.level > 1 else here
                    base = f"{anchor}.{base}" if base else anchor
                for alias in node.names:
                    submodule = f"{base}.{alias.name}"
                    targets.add(submodule if submodule in files else known(base))
        graph[module] = {t for t in targets if t is not None and t != module}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import loop of ``graph`` (its modules in order, the first repeated at the end), or ``None``."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(module: str) -> list[str] | None:
        state[module] = 1
        path.append(module)
        for target in sorted(graph.get(module, ())):
            if state.get(target) == 1:
                return path[path.index(target):] + [target]
            if target not in state and (found := visit(target)):
                return found
        path.pop()
        state[module] = 2
        return None

    for module in sorted(graph):
        if module not in state and (found := visit(module)):
            return found
    return None


def test_cycle_finder_finds_a_planted_loop() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


def test_import_graph_sees_every_kind_of_import() -> None:
    graph = import_graph(ROOT / "tablebase")
    assert "tablebase.query" in graph["tablebase"]  # module level, from the package
    assert "tablebase.store.export" in graph["tablebase.query"]  # inside a function
    assert "tablebase.games.common.kernels" in graph["tablebase.games.base"]  # under TYPE_CHECKING
    assert "tablebase.store.bulk" in graph["tablebase.store.writer"]  # ``from package import module``


def test_the_package_has_no_import_loop() -> None:
    """No module imports one that imports it back, directly or round a loop, typing-only imports included."""
    graph = import_graph(ROOT / "tablebase")
    cycle = find_cycle(graph)
    assert cycle is None, "import loop: " + " -> ".join(cycle or [])


#: What the rules may import besides ``tablebase.games`` itself: the modules below them. Every other
#: module of the package (the solver, the store, the query layer, the server, ...) and the CLI are above.
BELOW_THE_RULES = ("tablebase.errors", "tablebase.outcome", "tablebase.progress", "tablebase.scores", "tablebase.version")


def imports_above_the_rules(source: str, module: str) -> list[str]:
    """The modules above the rules that the text of ``module`` imports, anywhere in it (inside functions
    and under ``TYPE_CHECKING`` too; ``from tablebase import x`` as ``tablebase.x``)."""
    package = module.rpartition(".")[0]
    names: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            names += [f"{base}.{alias.name}" for alias in node.names]

    def above(name: str) -> bool:
        if name == "cli" or name.startswith("cli."):
            return True
        if name != "tablebase" and not name.startswith("tablebase."):
            return False
        return not any(name == low or name.startswith(low + ".") for low in ("tablebase.games", *BELOW_THE_RULES))

    return sorted({name for name in names if above(name)})


def test_the_check_of_the_layers_finds_upward_imports() -> None:
    source = (
        "import numpy\nfrom tablebase.games.base import Game\nfrom tablebase.outcome import WIN\nfrom . import rules\n"
        "def f():\n    from tablebase.solve import solve\n    import cli.main\n    from tablebase import query, games\n"
    )
    assert imports_above_the_rules(source, "tablebase.games.x.y") == ["cli.main", "tablebase.query", "tablebase.solve.solve"]
    assert imports_above_the_rules("from ... import store\n", "tablebase.games.x.y") == ["tablebase.store"]


def test_the_games_import_nothing_above_the_rules() -> None:
    """The rules (``tablebase/games/``) import no solver, store, query layer, server or CLI, not even
    inside a function: what they share with those lives below them (:mod:`tablebase.outcome`,
    :mod:`tablebase.scores`)."""
    found = {
        _module_name(path): imports_above_the_rules(path.read_text(), _module_name(path))
        for path in sorted((ROOT / "tablebase" / "games").rglob("*.py"))
    }
    upward = {module: names for module, names in found.items() if names}
    assert len(found) > 20 and upward == {}
