"""A check that stops a run whose pytest-xdist would drop the quick set's test groups.

The quick set runs on a worker a core with ``--dist loadgroup`` (pyproject.toml's
``addopts``): each family's tests that compile its numba kernels share an
``xdist_group``, so that one worker compiles them for all. pytest 9.2 ignores
the node id that pytest-xdist 3.8 rewrites to name the group (pytest-xdist
issue 1386), and the groups are then dropped without a word, every worker
compiling every kernel. pyproject.toml's dev extra keeps pytest below 9.2; with
that pair installed anyway, the run stops at its start and says so.
"""

from __future__ import annotations

from importlib import metadata

import pytest
from packaging.version import Version

#: The first pytest whose node ids pytest-xdist's ``loadgroup`` cannot rewrite.
STRUCTURED_IDS = Version("9.2")
#: The last pytest-xdist that rewrites them the old way.
REWRITES_IDS = Version("3.8.0")


def drops_groups(pytest_version: str, xdist_version: str) -> bool:
    """Whether this pair of versions runs ``--dist loadgroup`` without its groups."""
    return Version(pytest_version) >= STRUCTURED_IDS and Version(xdist_version) <= REWRITES_IDS


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("dist", "no") != "loadgroup":
        return
    xdist_version = metadata.version("pytest-xdist")
    if drops_groups(pytest.__version__, xdist_version):
        raise pytest.UsageError(
            f"pytest {pytest.__version__} with pytest-xdist {xdist_version} runs --dist loadgroup without its"
            f" groups (pytest-xdist issue 1386): pip install 'pytest<{STRUCTURED_IDS}', as pyproject.toml's dev extra says"
        )
