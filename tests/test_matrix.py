"""One test matrix over every registered variant and every storage that accepts it.

Every variant passes the rules checks of :func:`tablebase.testing.check_game`
on random games (the board layout contract among them; a variant whose builds
are not in the quick set plays fewer games there, and all of them in the slow
set); every variant that can
be enumerated is built with each storage whose build plan accepts it,
audited with ``verify`` and probed through the public API
(:func:`tablebase.testing.check_built`), and the smallest have every position
probed against a solve in memory (:func:`tablebase.testing.check_storage`).
The rows and columns, and which builds are slow, come from the registries
(tests/matrix_support.py).
"""

from __future__ import annotations

import re
from pathlib import Path

import matrix_support as matrix
import pytest
from serve_support import TOY_FAMILY, registered
from test_tier_build import assert_stored_as_in_memory

import tablebase
from tablebase import games, testing
from tablebase.errors import BuildError
from tablebase.store import storage as registry

VARIANTS = matrix.variants()
BUILDS = matrix.builds()
TIERED = matrix.tiered_builds()


@pytest.mark.parametrize("name", VARIANTS)
def test_rules(name: str) -> None:
    playouts = matrix.rules_playouts(name)
    if playouts is None:
        testing.check_game(name)
    else:
        testing.check_game(name, playouts=playouts)


@pytest.mark.slow
@pytest.mark.parametrize("name", [name for name in VARIANTS if matrix.rules_playouts(name) is not None])
def test_rules_at_full_length(name: str) -> None:
    """The rules checks on the default number of random games, for the variants that play fewer in the quick set."""
    testing.check_game(name)


@pytest.mark.parametrize(("name", "storage"), BUILDS)
def test_build(name: str, storage: str, tmp_path: Path) -> None:
    path = tmp_path / "matrix.db"
    if matrix.every_position(name):  # random games add the symmetries and play to every position's value
        testing.check_storage(storage, path, game=name, playouts=5, seed=len(name))
    else:
        testing.check_built(name, path, playouts=20, seed=len(name), storage=storage)


@pytest.mark.parametrize(("name", "storage"), TIERED)
def test_tiered_build(name: str, storage: str, tmp_path: Path) -> None:
    """A variant built tier by tier: its tiers of at most :data:`~matrix_support.TIER_STONES` a side,
    audited with ``verify``, each class holding what the tier solver in memory finds."""
    path = tmp_path / "t.db"
    with tablebase.open(path) as tb:
        tb.build(name, tiers=matrix.TIER_STONES, storage=storage, workers=1)
        assert tb.variant(name).info.storage == storage
        report = tb.verify(name)
        assert report.ok, report.errors[:1]
    assert_stored_as_in_memory(path, name, matrix.TIER_STONES)


def test_the_quick_set_builds_every_storage_and_family() -> None:
    quick = [param.values for param in [*BUILDS, *TIERED] if not any(mark.name == "slow" for mark in param.marks)]
    assert {storage for _, storage in quick} == set(registry.names())
    built = {games.get(name).family for name, _ in quick}
    assert {"mnk", "roman", "rota", "wild"} <= built


def test_rows_and_columns_come_from_the_registries() -> None:
    """A family and a storage registered later join the matrix: the toy family's variants are rows,
    and a storage refuses a variant only through its build plan."""
    with registered():
        assert set(TOY_FAMILY.VARIANTS) <= set(matrix.variants())
        assert matrix.storages("toy-plain") == ["moves"]  # the toys list no moves into a position
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(registry._STORAGES, "also-moves", type("AlsoMoves", (registry.storage_class("moves"),), {"name": "also-moves"}))
        assert "also-moves" in matrix.storages("tictactoe")
    assert matrix.storages("ultimate") == []  # not enumerable: rules checks only
    assert matrix.tier("mnk-4-3-3") == "quick" and matrix.tier("connect4-4-4") == "slow"
    assert matrix.tier("mnk-4-4-4") is None and matrix.tier("ultimate-strategy") == "slow"  # no size bound


def test_the_storage_check_catches_a_storage_that_misreads(tmp_path: Path) -> None:
    """A storage whose reads give a drawn position's distance wrong passes ``verify`` and the random
    probes, and the check of every position names it."""

    moves = registry.storage_class("moves")

    class Misread(moves):  # type: ignore[valid-type,misc]
        def probe(self, conn, state):  # type: ignore[no-untyped-def]
            entry, found = super().probe(conn, state)
            if entry is not None and entry.outcome == "draw" and entry.distance:
                entry = entry._replace(distance=entry.distance + 2)
            return entry, found

    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(registry._STORAGES, "moves", Misread)
        with pytest.raises(AssertionError, match="probed draw"):
            testing.check_storage("moves", tmp_path / "t.db")


def test_the_storage_check_refuses_a_game_the_storage_cannot_keep(tmp_path: Path) -> None:
    with pytest.raises(BuildError, match="cannot be stored dense"):
        testing.check_storage("dense", tmp_path / "t.db", game="rota")


@pytest.mark.parametrize("name", [n for n in registry.names() if registry.storage_class(n).written_by is not None])
def test_a_storage_that_stores_no_solution_says_where_its_values_come_from(name: str) -> None:
    """A storage whose values come from elsewhere (``written_by``: it solves the variant itself, or a
    build tier by tier writes it) refuses a solver's result and its layers in one line saying so."""
    from tablebase.solve import solve

    storage = registry.storage_class(name)
    solution = solve(games.get("tictactoe"))
    with pytest.raises(BuildError, match=re.escape(f"tictactoe: storage {name!r} {storage.written_by}")):
        storage.write_solution(solution, engine=None, path=None, seconds=0.0, progress=None)  # type: ignore[arg-type]
