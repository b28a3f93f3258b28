"""Every label of the small variants re-derived from the rules, with and without symmetry reduction.

The variants are the registered ones whose positions, without symmetry reduction, number at most
``matrix_support.EVERY_POSITION_CLASSES`` by their size bound.
"""

from __future__ import annotations

import matrix_support as matrix
import pytest

from game_checks import check_labels, check_symmetric_labels
from tablebase.solve import DRAW_CODE, NO_DISTANCE

VARIANTS = [name for name in matrix.variants() if matrix.every_position(name, symmetry=False)]


def test_the_small_variants_are_found() -> None:
    assert {"tictactoe", "roman", "rota-circle", "wild-misere"} <= set(VARIANTS)


@pytest.mark.parametrize("name", VARIANTS)
def test_labels_agree_with_children(solved, name):
    reduced, full = solved[name]
    check_labels(reduced, full)
    if reduced.game.cyclic:
        # no drawn line of a cyclic game ever ends, so no draw has a distance
        draws = reduced.outcome == DRAW_CODE
        assert (reduced.distance[draws] == NO_DISTANCE).all()


@pytest.mark.parametrize("name", VARIANTS)
def test_symmetric_positions_share_labels(solved, name):
    check_symmetric_labels(*solved[name])
