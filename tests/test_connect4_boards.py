"""Every Connect Four board from 4x4 to 7x7 solved from the empty board: who wins, and on which disc."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

pytest.importorskip("numba")

from cli.main import app  # noqa: E402
from tablebase.games.connect4.prover import Prover  # noqa: E402
from tablebase.games.connect4.score import outcome_from_score  # noqa: E402

#: ``(width, height) -> (winner, last disc)`` under perfect play from the empty board: the
#: "Outcome" and "Last Move" tables of Christophe Steininger's readme (github
#: ChristopheSteininger/c4), which extend John Tromp's results; a draw fills the board.
STEININGER = {
    (4, 4): ("draw", 16), (5, 4): ("draw", 20), (6, 4): ("second", 24), (7, 4): ("draw", 28),
    (4, 5): ("draw", 20), (5, 5): ("draw", 25), (6, 5): ("draw", 30), (7, 5): ("draw", 35),
    (4, 6): ("draw", 24), (5, 6): ("draw", 30), (6, 6): ("second", 36), (7, 6): ("first", 41),
    (4, 7): ("draw", 28), (5, 7): ("draw", 35), (6, 7): ("first", 41), (7, 7): ("draw", 49),
}

#: Boards whose empty board one search thread proves in seconds; 7x6 is proved by the slow test
#: of tests/test_connect4_prover.py, 6x7 and 7x7 by benchmarks/connect4_steininger.py.
QUICK = sorted(set(STEININGER) - {(7, 6), (6, 7), (7, 7)})

WINNER = {"win": "first", "loss": "second", "draw": "draw"}


def empty_board(width: int, height: int) -> int:
    """The empty board's state: a sentinel bit at the foot of every column."""
    return sum(1 << c * (height + 1) for c in range(width))


@pytest.mark.slow
@pytest.mark.parametrize("width,height", QUICK, ids=[f"{w}x{h}" for w, h in QUICK])
def test_every_board_from_the_empty_board(width: int, height: int) -> None:
    prover = Prover(width, height, 1 << 22, threads=1)
    score = prover.score(empty_board(width, height))
    assert score is not None
    outcome, distance = outcome_from_score(score, 0, width, height)
    assert (WINNER[outcome], distance) == STEININGER[width, height]


@pytest.mark.slow
def test_solve_command_gives_6x6_to_the_second_player_on_the_36th_disc(tmp_path: Path) -> None:
    db = tmp_path / "c66.db"
    solved = CliRunner().invoke(app, ["solve", "connect4-6-6", "--json", "--db", str(db)])
    assert solved.exit_code == 0, solved.output
    found = json.loads(solved.stdout)
    assert (WINNER[found["outcome"]], found["distance"]) == STEININGER[6, 6]
    assert found["moves_proved"] == found["moves"] == 6
    probe = CliRunner().invoke(app, ["probe", "connect4-6-6", "--json", "--db", str(db)])
    assert probe.exit_code == 0, probe.output
    moves = json.loads(probe.stdout)["moves"]
    assert len(moves) == 6
    # the first player loses whatever column it takes; the best column holds out to the 36th disc,
    # and a column and its mirror image are worth the same
    assert {m["outcome"] for m in moves} == {"loss"}
    assert max(m["distance"] for m in moves) == 36
    values = {int(m["move"]): m["distance"] for m in moves}
    assert all(values[c] == values[7 - c] for c in range(1, 7))
