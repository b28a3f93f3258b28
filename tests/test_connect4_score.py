from __future__ import annotations

import pytest

from tablebase.games.connect4.score import outcome_from_score, score_from_outcome


def test_start_7x6() -> None:
    # Pons' README / Tromp: the empty 7x6 board scores 1, a first-player win with the 41st disc
    # (DESIGN reference figures).
    assert outcome_from_score(1, 0, 7, 6) == ("win", 41)
    assert score_from_outcome("win", 41, 0, 7, 6) == 1


def test_immediate_win_and_loss() -> None:
    # x to move with 6 discs (3 each) wins at once with its 4th disc: Pons 22 - 4 = 18.
    assert score_from_outcome("win", 1, 6, 7, 6) == 18
    # o to move after that threat, cannot stop it: loses in 2, score -18.
    assert score_from_outcome("loss", 2, 5, 7, 6) == -18
    assert outcome_from_score(-18, 5, 7, 6) == ("loss", 2)


def test_draw_distance_is_empty_cells() -> None:
    assert outcome_from_score(0, 30, 7, 6) == ("draw", 12)


@pytest.mark.parametrize("width,height", [(7, 6), (4, 4), (5, 4), (7, 5)])
def test_round_trip_all(width: int, height: int) -> None:
    cells = width * height
    for discs in range(cells):
        for distance in range(1, cells - discs + 1):
            outcome = "win" if distance % 2 == 1 else "loss"
            score = score_from_outcome(outcome, distance, discs, width, height)
            assert score != 0
            assert outcome_from_score(score, discs, width, height) == (outcome, distance)
            # negamax: a win in d is minus the child's loss in d - 1
            if distance > 1:
                child = score_from_outcome("loss" if outcome == "win" else "win",
                                           distance - 1, discs + 1, width, height)
                assert child == -score


def test_impossible_score() -> None:
    with pytest.raises(ValueError, match="impossible"):
        outcome_from_score(22, 0, 7, 6)
