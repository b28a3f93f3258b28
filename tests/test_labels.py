"""Every label of the small variants re-derived from the rules, with and without symmetry reduction."""

from __future__ import annotations

import pytest

from game_checks import check_labels, check_symmetric_labels
from tablebase.solve import DRAW_CODE, NO_DISTANCE

VARIANTS = ("roman", "roman-adjacent", "roman-lines", "rota", "rota-circle", "wild", "wild-misere")


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
