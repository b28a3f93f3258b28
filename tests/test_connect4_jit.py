"""The compiled Connect Four search: Pons' scores against a plain search written here, and
`tablebase solve connect4` storing what probe then answers without search."""

from __future__ import annotations

import json
import random
from functools import lru_cache
from typing import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

pytest.importorskip("numba")

#: The slow set: each test compiles a Connect Four search (the scorer, the prover) or runs one.
pytestmark = pytest.mark.slow

from cli.main import app  # noqa: E402
from tablebase.games import get  # noqa: E402
from pons_scorer import PonsScorer  # noqa: E402
from tablebase.games.connect4.score import score_from_outcome  # noqa: E402
from tablebase.games.playouts import random_position  # noqa: E402
from test_connect4 import columns_of, four_in_a_row, makes_four  # noqa: E402

runner = CliRunner()


def pons_score(columns: tuple[str, ...], rows: int) -> int:
    """Pons' score by plain minimax: a win whose last disc is the ``k``-th scores
    ``(cells + 1 - (k - 1)) // 2`` for the winner, a draw 0."""
    cells = len(columns) * rows
    discs = sum(len(c) for c in columns)
    if four_in_a_row(columns, rows, "o" if discs % 2 == 0 else "x"):
        return -((cells + 2 - discs) // 2)
    return _search(columns, rows)


def assert_scores_match_minimax(
    score: Callable[[int], int | None], name: str, plies: tuple[int, int], count: int, seed: int
) -> None:
    """``score`` gives ``count`` random positions of ``name`` (``plies`` discs) :func:`pons_score`'s score."""
    game = get(name)
    rng = random.Random(seed)
    for _ in range(count):
        state = random_position(game, rng.randint(*plies), rng)
        assert score(state) == pons_score(columns_of(game.format_position(state)), game.rows), game.format_position(state)


@lru_cache(maxsize=None)
def _search(columns: tuple[str, ...], rows: int) -> int:
    """:func:`pons_score` of a position without four in a row; a move that makes four is scored
    where it is made, by looking only through its disc."""
    cells = len(columns) * rows
    discs = sum(len(c) for c in columns)
    if discs == cells:
        return 0
    mover = "x" if discs % 2 == 0 else "o"
    best = -cells
    for c, column in enumerate(columns):
        if len(column) < rows:
            child = columns[:c] + (column + mover,) + columns[c + 1 :]
            best = max(best, (cells + 1 - discs) // 2 if makes_four(child, rows, c) else -_search(child, rows))
    return best


@pytest.mark.parametrize(
    ("name", "plies", "slots"),
    [pytest.param("connect4-4-4", (0, 12), 1 << 16, marks=pytest.mark.slow),
     pytest.param("connect4-5-4", (6, 14), 1 << 16, marks=pytest.mark.slow), ("connect4", (30, 36), 1 << 16),
     # a tiny table shared by the batch: entries replaced all the time, never a wrong hit
     ("connect4-4-4", (4, 10), 1 << 6)],
)
def test_scores_agree_with_plain_minimax(name: str, plies: tuple[int, int], slots: int) -> None:
    """One solver (one table) for a batch of positions gives each its exact score."""
    game = get(name)
    assert_scores_match_minimax(PonsScorer(game.columns, game.rows, slots).score, name, plies, 25, 7)


def test_empty_4x4_is_a_draw_and_budgets_resume() -> None:
    game = get("connect4-4-4")
    solver = PonsScorer(4, 4, 1 << 12)
    assert solver.score(game.initial_state(), budget=10) is None
    assert solver.label(game.initial_state()) == ("draw", 16)


def test_immediate_win_scores() -> None:
    game = get("connect4")
    solver = PonsScorer(7, 6)
    # x has three in column 1 and wins with the 7th disc: (42 + 1 - 6) // 2 = 18
    state = game.parse_position("121212")
    assert solver.score(state) == 18
    assert solver.label(state) == ("win", 1)


def late_position(rng: random.Random, discs: int = 30) -> str:
    """Grid text of a 7x6 position with ``discs`` discs from random play, the game not over."""
    game = get("connect4")
    return game.format_position(random_position(game, discs, rng))


def test_cli_solve_then_probe_without_search(tmp_path: Path) -> None:
    db = tmp_path / "c4.db"
    game = get("connect4")
    position = late_position(random.Random(3))
    state = game.parse_position(position)
    result = runner.invoke(app, ["solve", "connect4", position, "--json", "--db", str(db)])
    assert result.exit_code == 0, result.output
    probe = runner.invoke(app, ["probe", "connect4", position, "--json", "--db", str(db)])
    assert probe.exit_code == 0, probe.output
    answer = json.loads(probe.output)
    columns = columns_of(position)
    assert score_from_outcome(answer["outcome"], answer["distance"], 30, 7, 6) == pons_score(columns, 6)
    moves = answer["moves"]
    assert len(moves) == len(game.legal_moves(state))
    for m in moves:
        c = int(m["move"]) - 1
        child = columns[:c] + (columns[c] + "x",) + columns[c + 1 :]
        # a move is shown for the side that plays it, its distance counts the move
        assert score_from_outcome(m["outcome"], m["distance"], 30, 7, 6) == -pons_score(child, 6)
    verify = runner.invoke(app, ["verify", "connect4", "--db", str(db)])
    assert verify.exit_code == 0, verify.output


@pytest.mark.parametrize(("position", "needle"), [("4444444", "column 4 is full"), ("12121212", "game is over")])
def test_cli_solve_bad_input(tmp_path: Path, position: str, needle: str) -> None:
    db = tmp_path / "c4.db"
    result = runner.invoke(app, ["solve", "connect4", position, "--db", str(db)])
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], result.output
    assert not db.exists()


def test_cli_solve_file(tmp_path: Path) -> None:
    db, batch = tmp_path / "c4.db", tmp_path / "batch.txt"
    rng = random.Random(5)
    late = [late_position(rng, 30), late_position(rng, 32)]
    batch.write_text("\n".join(late) + "\n\n")
    result = runner.invoke(app, ["solve", "connect4", "--file", str(batch), "--json", "--db", str(db)])
    assert result.exit_code == 0, result.output
    reports = [json.loads(line) for line in result.output.splitlines() if line.startswith("{")]
    assert [r["proved"] for r in reports] == [True, True]
    game = get("connect4")
    for text, report in zip(late, reports):
        columns = columns_of(game.format_position(game.parse_position(text)))
        discs = sum(len(c) for c in columns)
        assert score_from_outcome(report["outcome"], report["distance"], discs, 7, 6) == pons_score(columns, 6)
        probe = runner.invoke(app, ["probe", "connect4", text, "--json", "--db", str(db)])
        assert json.loads(probe.output)["outcome"] == report["outcome"]


def test_cli_solve_file_bad_line_stores_nothing(tmp_path: Path) -> None:
    db, batch = tmp_path / "c4.db", tmp_path / "batch.txt"
    batch.write_text(late_position(random.Random(5)) + "\n44444444\n")
    result = runner.invoke(app, ["solve", "connect4", "--file", str(batch), "--db", str(db)])
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "'44444444'" in lines[0] and "column 4 is full" in lines[0], result.output
    assert not db.exists()


def test_prove_goes_on_with_a_reused_table() -> None:
    from tablebase.solve.search import prove

    game = get("connect4")
    state = game.parse_position(late_position(random.Random(8), 16))
    first = prove(game, state, children=True)
    again = prove(game, state, children=True, table=first.table)
    assert again.table is first.table and first.table.reusable
    assert (again.outcome, again.distance, again.moves) == (first.outcome, first.distance, first.moves)
    assert again.nodes < first.nodes / 5


def test_solve_many_shares_one_table(tmp_path: Path) -> None:
    import tablebase

    # two positions of one line: the second's search meets what the first proved
    batch = [late_position(random.Random(100), n) for n in (12, 14)]
    alone = tablebase.open(tmp_path / "alone.db").solve("connect4", batch[1])
    reports = list(tablebase.open(tmp_path / "batch.db").solve_many("connect4", batch))
    assert (reports[1].outcome, reports[1].distance) == (alone.outcome, alone.distance)
    assert reports[1].nodes < alone.nodes
