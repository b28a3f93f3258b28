"""The rows and columns of the test matrix (tests/test_matrix.py), read from the registries.

Rows are every registered variant (:func:`tablebase.games.variants` and the
catalog); columns are every storage (:func:`tablebase.store.storage.names`)
that :func:`tablebase.build.plan` accepts for the variant, so a new family or
storage joins the matrix without a line here. Which set a build falls in
depends on the variant's size bound (:meth:`~tablebase.games.base.Game.size_bound`,
in symmetry classes): builds of at most :data:`QUICK_CLASSES` are in the quick
set (each well under 3 s of CPU with its checks on a 2-core machine), larger
ones up to :data:`SLOW_CLASSES`, and those of a variant whose rules give no
bound, in the slow set; variants above that, and those that cannot be
enumerated, get the rules checks only.
"""

from __future__ import annotations

from typing import Any

import pytest

from tablebase import games
from tablebase.build import plan
from tablebase.errors import BuildError
from tablebase.store.storage import names as storage_names

#: Builds of at most this many classes are in the quick set (``mnk-4-3-3``: 132,861, 0.4-1.0 s of CPU a
#: storage; ``connect4-4-4``, 461,761: 2.4-3.2 s with ``moves`` or ``states``, and compiling the Connect
#: Four dense passes with ``dense``).
QUICK_CLASSES = 200_000
#: Builds of at most this many classes, and of variants without a bound, are in the slow set (the next
#: registered sizes, ``mnk-4-4-3`` and ``morris-6`` at 5-8 M, take about a minute a variant).
SLOW_CLASSES = 1_000_000
#: Random games of the rules checks (:func:`tablebase.testing.check_game`) in the quick set for a
#: variant whose builds are not in it (Ultimate's and Morris' long games: 2-5 s a variant at the
#: default 40, about a quarter of that at 10); the slow set plays the default 40 on them.
QUICK_RULES_PLAYOUTS = 10
#: The tier limit of the matrix's builds tier by tier (``--stones``): the fewest stones a side a tier holds.
TIER_STONES = 3
#: Builds of at most this many classes probe every position against a solve in memory
#: (:func:`tablebase.testing.check_storage`); larger ones probe random games.
EVERY_POSITION_CLASSES = 20_000


def variants() -> list[str]:
    """Every registered variant, in registry order: each family's fixed and usual names and its catalog."""
    return list(dict.fromkeys([*(v.variant for v in games.variants()), *games.catalog()]))


def storages(name: str) -> list[str]:
    """The storages a build of ``name`` (with symmetry) may use: those whose plan is not refused."""
    accepted = []
    for storage in storage_names():
        try:
            plan(name, symmetry=True, storage=storage, path_known=True)
        except BuildError:
            continue
        accepted.append(storage)
    return accepted


def classes(name: str) -> int | None:
    """The size bound of ``name`` in symmetry classes, ``None`` when its rules give none."""
    return games.get(name).size_bound(symmetry=True)


def every_position(name: str, symmetry: bool = True) -> bool:
    """Whether ``name`` can be enumerated and is small enough (in classes with ``symmetry``, in
    positions without) to check every position of."""
    game = games.get(name)
    bound = game.size_bound(symmetry=symmetry)
    return game.enumerable and bound is not None and bound <= EVERY_POSITION_CLASSES


def tier(name: str) -> str | None:
    """``"quick"`` or ``"slow"``: the set the builds of ``name`` run in; ``None``: not built."""
    game = games.get(name)
    if not game.enumerable:
        return None
    bound = classes(name)
    if bound is None:
        return "slow"
    if bound <= QUICK_CLASSES:
        return "quick"
    return "slow" if bound <= SLOW_CLASSES else None


def rules_playouts(name: str) -> int | None:
    """The random games of ``name``'s rules checks in the quick set: :data:`QUICK_RULES_PLAYOUTS` when
    its builds are not in the quick set, else ``None`` (the default of :func:`tablebase.testing.check_game`)."""
    return None if tier(name) == "quick" else QUICK_RULES_PLAYOUTS


def builds() -> list[Any]:
    """``(variant, storage)`` of every build of the matrix, those of the slow set marked slow."""
    cells = []
    for name in variants():
        where = tier(name)
        if where is None:
            continue
        marks = [pytest.mark.slow] if where == "slow" else []
        cells.extend(
            pytest.param(name, storage, marks=[*marks, *compile_group(name, storage)], id=f"{name}-{storage}")
            for storage in storages(name)
        )
    return cells


def compile_group(name: str, storage: str) -> list[Any]:
    """The pytest-xdist group of a build whose storage compiles its family's kernels (``dense``), so
    that one worker compiles them for every such build of the family; none for the others."""
    return [pytest.mark.xdist_group(f"{games.get(name).family}-{storage}")] if storage == "dense" else []


def tier_storages(name: str, stones: int = TIER_STONES) -> list[str]:
    """The storages a build of ``name`` tier by tier (its tiers of at most ``stones`` a side) may use."""
    accepted = []
    for storage in storage_names():
        try:
            plan(name, symmetry=True, storage=storage, path_known=True, tiers=stones)
        except BuildError:
            continue
        accepted.append(storage)
    return accepted


def tiered_builds(stones: int = TIER_STONES) -> list[Any]:
    """``(variant, storage)`` of every build tier by tier of the matrix (each variant whose rules cut it
    into tiers, its tiers of at most ``stones`` a side), those above :data:`QUICK_CLASSES` marked slow."""
    cells = []
    for name in variants():
        storages_here = tier_storages(name, stones)
        if not storages_here:
            continue
        tiering = games.get(name).tiering(stones)
        assert tiering is not None
        size = sum(tiering.size(n) for unit in tiering.units() for n in unit.tiers)
        marks = [pytest.mark.slow] if size > QUICK_CLASSES else [pytest.mark.xdist_group(f"{games.get(name).family}-tiers")]
        cells.extend(pytest.param(name, storage, marks=marks, id=f"{name}-{storage}-{stones}") for storage in storages_here)
    return cells


__all__ = [
    "EVERY_POSITION_CLASSES",
    "QUICK_CLASSES",
    "QUICK_RULES_PLAYOUTS",
    "SLOW_CLASSES",
    "TIER_STONES",
    "builds",
    "classes",
    "every_position",
    "rules_playouts",
    "storages",
    "tier",
    "tier_storages",
    "tiered_builds",
    "variants",
]
