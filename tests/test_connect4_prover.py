"""The Connect Four prover on every core: Pons' scores against a plain minimax on small boards,
against the single-threaded scorer of `tests/pons_scorer.py` on 7x6, and the empty
7x6 board's known column values."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

pytest.importorskip("numba")

#: The slow set: each test compiles the prover (about 7 s of a fresh clone) or searches 7x6 positions.
pytestmark = pytest.mark.slow

from cli.main import app  # noqa: E402
from tablebase.games import get  # noqa: E402
from tablebase.games.connect4.bits import has_four, to_bitboards  # noqa: E402
from tablebase.games.connect4.prover import Prover, _dead, edge_masks, initial_history  # noqa: E402
from pons_scorer import PonsScorer  # noqa: E402
from tablebase.games.playouts import random_position  # noqa: E402
from test_connect4 import columns_of  # noqa: E402
from test_connect4_jit import assert_scores_match_minimax, late_position, pons_score  # noqa: E402

runner = CliRunner()

#: The empty 7x6 board, each first move with its value for x (the player making it) and the ply
#: the game ends on with best play. Outcomes: Allis (1988) and John Tromp's solution (x wins
#: in the centre only, 3 and 5 draw, the others lose); the exact lengths are Pons' scores of
#: the columns, -2 -1 0 1 0 -1 -2 (connect4.gamesolver.org), read as plies: 1 means x's last
#: disc (the 41st), -1 o's last (the 42nd), -2 o's disc before it (the 40th).
EMPTY_7X6_COLUMNS = {
    "1": ("loss", 40), "2": ("loss", 42), "3": ("draw", 42), "4": ("win", 41),
    "5": ("draw", 42), "6": ("loss", 42), "7": ("loss", 40),
}


@pytest.mark.parametrize(
    ("name", "plies", "entries", "threads"),
    [("connect4-4-4", (0, 12), 1 << 16, 2), ("connect4-5-4", (8, 14), 1 << 16, 2),
     ("connect4-4-5", (7, 14), 1 << 16, 1), ("connect4-4-6", (10, 16), 1 << 16, 2),
     # odd heights: the follow-up bound for either player (odd and even cell counts)
     ("connect4-5-5", (11, 17), 1 << 16, 1), ("connect4-6-5", (16, 22), 1 << 16, 1),
     ("connect4-4-7", (14, 20), 1 << 16, 1),
     # the smallest table: entries replaced all the time, never a wrong hit
     ("connect4-4-4", (2, 10), 1, 2)],
)
def test_scores_agree_with_plain_minimax(name: str, plies: tuple[int, int], entries: int, threads: int) -> None:
    game = get(name)
    assert_scores_match_minimax(Prover(game.columns, game.rows, entries, threads=threads).score, name, plies, 20, 11)


@pytest.mark.parametrize(("name", "plies"), [("connect4-5-4", (0, 8)), ("connect4-4-5", (2, 9)), ("connect4-4-6", (6, 12))])
def test_siblings_scored_in_a_row_agree_with_plain_minimax(name: str, plies: tuple[int, int]) -> None:
    """Every child of a position, one after another in one prover (each first window at the
    score of the sibling before it), and the position itself, as plain minimax scores them."""
    game = get(name)
    prover = Prover(game.columns, game.rows, 1 << 16, threads=1)
    rng = random.Random(31)
    for _ in range(6):
        state = random_position(game, rng.randint(*plies), rng)
        for _move, child in game.children(state):
            if game.outcome(child) is None:
                expected = pons_score(columns_of(game.format_position(child)), game.rows)
                assert prover.score(child) == expected, game.format_position(child)
        assert prover.score(state) == pons_score(columns_of(game.format_position(state)), game.rows)


def test_scores_agree_with_the_single_threaded_scorer_on_7x6() -> None:
    game = get("connect4")
    prover, solver = Prover(7, 6, 1 << 20, threads=2), PonsScorer(7, 6, 1 << 20)
    rng = random.Random(12)
    checked = 0
    while checked < 40:
        state = random_position(game, rng.randint(16, 36), rng)
        assert prover.score(state) == solver.score(state), game.format_position(state)
        assert prover.label(state) == solver.label(state)
        checked += 1
    assert len(prover) > 0 and prover.nodes > 0


def test_budgets_resume_and_threads_agree() -> None:
    game = get("connect4")
    state = game.parse_position(late_position(random.Random(4), 12))
    one, two = Prover(7, 6, 1 << 18, threads=1), Prover(7, 6, 1 << 18, threads=2)
    assert two.score(state, budget=100) is None
    assert one.score(state) == two.score(state) == PonsScorer(7, 6).score(state)


@pytest.mark.parametrize(("name", "plies"), [("connect4-4-5", (0, 8)), ("connect4-5-4", (0, 8))])
def test_batch_labels_agree_with_one_by_one_labels(name: str, plies: tuple[int, int]) -> None:
    """The children of a position proved together (a thread each, mirror images once) get the
    labels one-by-one proofs and plain minimax give them; the empty board's columns come first."""
    game = get(name)
    together, alone = Prover(game.columns, game.rows, 1 << 16, threads=2), Prover(game.columns, game.rows, 1 << 16, threads=1)
    rng = random.Random(5)
    starts = [game.initial_state()] + [random_position(game, rng.randint(*plies), rng) for _ in range(5)]
    for state in starts:
        kids = [child for _move, child in game.children(state) if game.outcome(child) is None]
        labels = together.label_all(kids)
        assert labels == [alone.label(child) for child in kids], game.format_position(state)
        for child, label in zip(kids, labels):
            score = pons_score(columns_of(game.format_position(child)), game.rows)
            assert label is not None and together.scores([child]) == [score]
    assert together.label_all([]) == []


def test_batch_budget_runs_out_then_resumes() -> None:
    """A batch whose budget runs out leaves the positions not proved as ``None``; asking again
    goes on from the table to the labels proved one by one."""
    game = get("connect4-6-5")
    state = game.initial_state()
    kids = [child for _move, child in game.children(state)]
    prover = Prover(6, 5, 1 << 18, threads=2)
    first = prover.label_all(kids, budget=1000)
    assert None in first and prover.nodes <= 1000 + 2
    found = prover.label_all(kids)
    assert None not in found
    assert all(early in (None, label) for early, label in zip(first, found))
    alone = Prover(6, 5, 1 << 18, threads=1)
    assert found == [alone.label(child) for child in kids]
    assert found[0] == found[-1] and found[1] == found[-2]  # mirror images


@pytest.mark.parametrize("threads", [1, 2])
def test_a_deadline_stops_the_search_and_the_table_keeps_its_work(threads: int) -> None:
    """At the deadline every thread stops (the empty 7x6 board takes minutes): the positions are
    ``None`` and their work stays in the table; the scorer without threads stops there too."""
    game = get("connect4")
    kids = [child for _move, child in game.children(game.initial_state())]
    prover = Prover(7, 6, 1 << 20, threads=threads)
    assert prover.label_all(kids, deadline=time.perf_counter() + 0.5) == [None] * 7
    assert prover.nodes > 0 and len(prover) > 0
    before = prover.nodes
    assert prover.scores(kids, deadline=time.perf_counter() - 1) == [None] * 7
    assert prover.nodes == before
    solver = PonsScorer(7, 6, 1 << 16)
    assert solver.scores(kids[:1], deadline=time.perf_counter() + 0.2) == [None] and solver.nodes > 0


@pytest.mark.parametrize(("columns", "rows"), [(7, 6), (7, 7), (4, 4), (5, 9)])
def test_the_history_starts_with_the_lines_of_four_through_each_cell(columns: int, rows: int) -> None:
    """Every line of four on the board counted once per cell it crosses; 13 for the two middle
    cells of the centre column of 7x6 (Tromp's Fhourstones table), 3 for a corner."""
    expected = [0] * 64
    for c in range(columns):
        for r in range(rows):
            for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
                line = [(c + k * dc, r + k * dr) for k in range(4)]
                if all(0 <= x < columns and 0 <= y < rows for x, y in line):
                    for x, y in line:
                        expected[x * (rows + 1) + y] += 1
    assert initial_history(columns, rows) == expected
    if (columns, rows) == (7, 6):
        assert expected[3 * 7 + 2] == expected[3 * 7 + 3] == 13 and expected[0] == 3


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="threads"):
        Prover(7, 6, 1 << 12, threads=0)
    with pytest.raises(ValueError, match="64-bit"):
        Prover(8, 8)


def test_dead_discs_change_no_score() -> None:
    """Discs the key treats as dead can change colour without changing the score (what makes
    positions that differ only in them share an entry)."""
    game = get("connect4")
    w, h = 7, 6
    bottom = sum(1 << c * (h + 1) for c in range(w))
    board = bottom * ((1 << h) - 1)
    edges = edge_masks(w, h)
    solver = PonsScorer(w, h, 1 << 20)
    rng = random.Random(13)
    flipped = 0
    for _ in range(400):
        state = random_position(game, rng.randint(20, 34), rng)
        x_bits, mask = to_bitboards(state, w, h)
        moves = mask.bit_count()
        cur = x_bits if moves % 2 == 0 else mask ^ x_bits
        dead = int(_dead(np.uint64(cur), np.uint64(mask), h, np.uint64(board), edges))
        if not dead:
            continue
        other_x = x_bits ^ dead
        if has_four(other_x, h) or has_four(mask ^ other_x, h):
            continue
        other = other_x + mask + bottom
        assert game.outcome(other) is None
        assert solver.score(other) == solver.score(state), (game.format_position(state), game.format_position(other))
        flipped += 1
    assert flipped >= 20


@pytest.mark.slow
def test_empty_board_proved_and_probed(tmp_path: Path) -> None:
    """`tablebase solve connect4` proves the empty 7x6 board by its own search and stores it."""
    db = tmp_path / "c4.db"
    result = runner.invoke(app, ["solve", "connect4", "--json", "--db", str(db)])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert (report["outcome"], report["distance"], report["proved"]) == ("win", 41, True)
    probe = runner.invoke(app, ["probe", "connect4", "--json", "--db", str(db)])
    assert probe.exit_code == 0, probe.output
    moves = {m["move"]: (m["outcome"], m["distance"]) for m in json.loads(probe.output)["moves"]}
    assert moves == EMPTY_7X6_COLUMNS


def test_solve_stores_the_line_only_when_asked(tmp_path: Path) -> None:
    """Without --line a solve stores the position and its children and no more; with it, each
    position down the best line with its children too."""
    game = get("connect4")
    position = late_position(random.Random(21), 20)
    moves = len(game.legal_moves(game.parse_position(position)))
    stored: dict[bool, int] = {}
    for line in (False, True):
        db = tmp_path / f"line-{line}.db"
        args = ["solve", "connect4", position, "--json", "--db", str(db)] + (["--line"] if line else [])
        result = runner.invoke(app, args)
        assert result.exit_code == 0, result.output
        stored[line] = json.loads(result.output)["stored"]
        probe = json.loads(runner.invoke(app, ["probe", "connect4", position, "--json", "--db", str(db)]).output)
        assert len(probe["moves"]) == moves
    assert 1 <= stored[False] <= 1 + moves < stored[True]


def test_a_later_solve_goes_on_from_the_kept_table(tmp_path: Path) -> None:
    """What one solve proved is kept beside the file; a solve in a new process (here: a new
    Tablebase) of a position below it goes on from there."""
    import tablebase

    start = late_position(random.Random(100), 8)
    with tablebase.open(tmp_path / "kept.db") as tb:
        assert tb.solve("connect4", start).proved
        kept = tb.kept_table_path("connect4")
        best = tb.variant("connect4").probe(start).best_move
        assert best is not None
        child = best.position
    assert kept is not None and kept.exists()
    assert Prover(7, 6, 1 << 20).load(kept) > 0
    with tablebase.open(tmp_path / "kept.db") as tb:
        again = tb.solve("connect4", child)
    with tablebase.open(tmp_path / "fresh.db") as tb:
        fresh = tb.solve("connect4", child)
    assert (again.outcome, again.distance) == (fresh.outcome, fresh.distance)
    assert again.nodes < 0.6 * fresh.nodes


def test_a_solve_answered_from_the_file_leaves_the_kept_table_as_it_was(tmp_path: Path) -> None:
    import tablebase

    start = late_position(random.Random(100), 8)
    with tablebase.open(tmp_path / "kept.db") as tb:
        assert tb.solve("connect4", start).proved
        kept = tb.kept_table_path("connect4")
    assert kept is not None
    written = kept.stat().st_mtime_ns, kept.read_bytes()
    with tablebase.open(tmp_path / "kept.db") as tb:
        again = tb.solve("connect4", start)
    assert again.proved and again.nodes == 0
    assert (kept.stat().st_mtime_ns, kept.read_bytes()) == written


def test_a_damaged_kept_table_is_named(tmp_path: Path) -> None:
    db = tmp_path / "c4.db"
    Path(f"{db}.connect4.search.npy").write_bytes(b"not a table")
    result = runner.invoke(app, ["solve", "connect4", late_position(random.Random(3)), "--db", str(db)])
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "cannot read the search table" in lines[0] and "delete it" in lines[0], result.output
