"""On CI a skip for want of a module ``.[dev]`` installs fails; elsewhere it stays a skip (tests/dev_extras.py)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import dev_extras
import pytest

TESTS = Path(__file__).parent

#: A run with pandas (which ``.[dev]`` lists) hidden: one module skipped for it at import, one test
#: skipped for it when run, and one test skipped for a module no extra lists.
FILES = {
    "conftest.py": "import sys\nsys.modules['pandas'] = None\n",
    "test_module.py": "import pytest\npytest.importorskip('pandas')\n\ndef test_never():\n    pass\n",
    "test_inside.py": (
        "import pytest\n\ndef test_dev():\n    pytest.importorskip('pandas', reason='pandas is not installed')\n\n"
        "def test_other():\n    pytest.importorskip('no_extra_lists_this_module')\n"
    ),
}


def _run(folder: Path, ci: str | None) -> subprocess.CompletedProcess[str]:
    for name, text in FILES.items():
        (folder / name).write_text(text)
    env = {key: value for key, value in os.environ.items() if key != "CI"}
    env["PYTHONPATH"] = os.pathsep.join([str(TESTS), env.get("PYTHONPATH", "")])
    if ci is not None:
        env["CI"] = ci
    command = [sys.executable, "-m", "pytest", "-p", "dev_extras", "-p", "no:cacheprovider", "-rA", "--continue-on-collection-errors", str(folder)]
    return subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, timeout=120)


def test_without_ci_a_missing_dev_module_skips(tmp_path: Path) -> None:
    result = _run(tmp_path, ci=None)
    assert result.returncode == 0, result.stdout
    assert "3 skipped" in result.stdout and "failed" not in result.stdout and "error" not in result.stdout


def test_on_ci_a_missing_dev_module_fails(tmp_path: Path) -> None:
    result = _run(tmp_path, ci="true")
    assert result.returncode == 1, result.stdout
    assert "1 failed, 1 skipped, 1 error" in result.stdout, result.stdout
    assert "skipped for want of module 'pandas', which pip install -e '.[dev]' installs" in result.stdout
    assert "SKIPPED" in result.stdout and "no_extra_lists_this_module" in result.stdout


@pytest.mark.parametrize(("value", "on"), [("true", True), ("1", True), ("false", False), ("0", False), ("", False)])
def test_ci_is_read_from_the_environment(monkeypatch: pytest.MonkeyPatch, value: str, on: bool) -> None:
    monkeypatch.setenv("CI", value)
    assert dev_extras.on_ci() is on


def test_the_dev_extra_is_read_through_the_project_s_own_extras() -> None:
    requires = [
        "numpy>=1.24",
        'numba>=0.59; extra == "fast"',
        'dask[distributed]>=2024.1; extra == "cluster"',
        'pytest>=7; extra == "dev"',
        'tablebase[fast,cluster]; extra == "dev"',
        'oldlib; python_version < "3.0" and extra == "dev"',
        'datasette; extra == "datasette"',
    ]
    assert dev_extras.listed(requires) == {"pytest": set(), "numba": set(), "dask": {"distributed"}}


def test_the_modules_the_tests_skip_without_are_dev_modules() -> None:
    """The modules the tests skip without belong to distributions ``.[dev]`` lists (so CI fails
    rather than skips when one is missing); those whose module is not named after the distribution
    are known once installed."""
    modules = dev_extras.dev_modules()
    assert {"numba", "fastapi", "playwright", "dask", "pandas", "datasette", "deflate"} <= modules
    for module in ("pyspiel", "distributed"):
        if importlib.util.find_spec(module) is not None:
            assert module in modules, module
