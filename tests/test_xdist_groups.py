"""The quick set's test groups: the pair of pytest and pytest-xdist that would drop them is refused."""

from __future__ import annotations

from importlib import metadata

import pytest
from xdist_groups import drops_groups


@pytest.mark.parametrize(
    ("pytest_version", "xdist_version", "drops"),
    [("9.2.0", "3.8.0", True), ("9.2.1", "3.6.1", True), ("9.1.1", "3.8.0", False), ("8.4.2", "3.8.0", False), ("9.2.0", "3.9.0", False)],
)
def test_the_pairs_that_drop_groups(pytest_version: str, xdist_version: str, drops: bool) -> None:
    assert drops_groups(pytest_version, xdist_version) is drops


def test_the_installed_pair_keeps_groups() -> None:
    assert not drops_groups(pytest.__version__, metadata.version("pytest-xdist"))
