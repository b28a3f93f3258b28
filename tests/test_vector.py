"""The vectorised build path: array kernels against the scalar rules, and both paths giving one table."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import numpy as np
import pytest

import tablebase
from tablebase import games
from tablebase.errors import MalformedPositionError
from tablebase.games.base import Game
from tablebase.games.common.kernels import UNKNOWN_CODE, BitboardKernels, VectorKernels
from tablebase.games.mnk import MNKGame
from tablebase.solve import Solution, solve
from tablebase.solve.vector import layers
from tablebase.verify import verify
from graph_game import GraphGame

#: Every small variant: m,n,k boards up to 4x3 (both orientations), misère forms, tic-tac-toe.
SMALL = [
    "tictactoe",
    "tictactoe-misere",
    "mnk-1-1-1",
    "mnk-2-1-2",
    "mnk-2-2-2",
    "mnk-3-2-2",
    "mnk-3-2-3",
    "mnk-2-3-2",
    "mnk-3-3-2",
    "mnk-3-3-2-misere",
    "mnk-4-1-3",
    "mnk-4-2-2",
    "mnk-4-2-3",
    "mnk-4-3-3",
    "mnk-3-4-3",
    "mnk-4-3-4",
    "mnk-4-3-3-misere",
]
#: The largest of :data:`SMALL` (1 to 4 s each): their scalar and vector tables are compared in the slow set.
LARGEST = {"mnk-4-3-3", "mnk-3-4-3", "mnk-4-3-4", "mnk-4-3-3-misere"}


def random_states(game: Game, count: int, seed: int = 0) -> list[int]:
    """States met in random games from the start (terminal ones included)."""
    rng = random.Random(seed)
    out = [game.initial_state()]
    state = game.initial_state()
    while len(out) < count:
        if game.outcome(state) is not None:
            state = game.initial_state()
        else:
            state = rng.choice(game.children(state))[1]
        out.append(state)
    return out


def table_of(solution: Solution) -> tuple[dict[str, tuple[int, int, int, int]], list[tuple[str, str, str]]]:
    """Each state by key (ply, terminal, outcome, distance) and the sorted edges by key: order-free."""
    game = solution.game
    keys = [game.format_position(int(s)) for s in solution.states]
    states = {
        key: (int(ply), int(term), int(out), int(dist))
        for key, ply, term, out, dist in zip(keys, solution.ply, solution.terminal, solution.outcome, solution.distance)
    }
    edges = sorted(
        (keys[a], game.format_move(int(m)), keys[b])
        for a, m, b in zip(solution.src.tolist(), solution.move.tolist(), solution.dst.tolist())
    )
    return states, edges


@pytest.mark.parametrize("name", ["tictactoe", "mnk-4-3-3-misere", "mnk-4-4-4", "mnk-5-4-4", "mnk-3-4-2"])
def test_kernels_agree_with_the_scalar_rules(name: str) -> None:
    game = games.get(name)
    kernels = game.vector
    states = random_states(game, 2000, seed=len(name))
    array = np.array(states, dtype=np.uint64)
    codes = {None: UNKNOWN_CODE, "win": 1, "loss": 2, "draw": 3}
    assert kernels.outcome(array).tolist() == [codes[game.outcome(s)] for s in states]
    assert kernels.canonical(array).tolist() == [game.canonical(s)[0] for s in states]
    assert kernels.orbit_sizes(array).tolist() == [game.orbit_size(s) for s in states]
    assert kernels.to_move(array) == [game.to_move(s) for s in states]
    assert kernels.format_positions(array) == [game.format_position(s) for s in states]
    assert kernels.layer(array).tolist() == [bin(s).count("1") for s in states]
    parsed, ok = kernels.parse_positions([game.format_position(s) for s in states])
    assert ok.all() and parsed.tolist() == states
    live = [s for s in states if game.outcome(s) is None]
    parent, move, child = kernels.children(np.array(live, dtype=np.uint64))
    expected = [(i, m, c) for i, s in enumerate(live) for m, c in game.children(s)]
    assert list(zip(parent.tolist(), move.tolist(), child.tolist())) == expected


def test_vector_parse_matches_the_scalar_parser_on_bad_input() -> None:
    game = games.get("tictactoe")
    texts = ["x.o/.x./...", "x.o/.x./... o", "x.o/.x./... x", "xxx/ooo/...", "xx/o../...", "X../.../...",
             "x../.../...\n", "", "x../.../.../...", "ooo/xx./x.x", "x../.../..o/"]
    states, ok = game.vector.parse_positions(texts)
    for text, state, good in zip(texts, states.tolist(), ok.tolist()):
        try:
            expected = game.parse_position(text)
        except MalformedPositionError:
            assert not good, text
        else:
            assert good and state == expected, text


class _Pieces(BitboardKernels):
    """Only the symmetry kernels of a bitboard game (for games without their own kernels)."""

    def outcome(self, states: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def children(self, states: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        raise NotImplementedError


@pytest.mark.parametrize("name", ["wild", "roman", "rota"])
def test_bitboard_symmetry_kernels_follow_the_game(name: str) -> None:
    # colour swaps (wild) and state bits above the two bitboards (side to move) included
    game = games.get(name)
    kernels = _Pieces(game)
    states = random_states(game, 1500, seed=3)
    array = np.array(states, dtype=np.uint64)
    assert kernels.canonical(array).tolist() == [game.canonical(s)[0] for s in states]
    assert kernels.orbit_sizes(array).tolist() == [game.orbit_size(s) for s in states]
    for sym in range(game.num_symmetries):
        assert kernels.image(array, sym).tolist() == [game.transform(s, sym) for s in states]


@pytest.mark.parametrize("symmetry", [True, False], ids=["symmetry", "full"])
@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=pytest.mark.slow) if n in LARGEST else n for n in SMALL]
)
def test_vector_and_scalar_paths_give_identical_tables(name: str, symmetry: bool) -> None:
    game = games.get(name)
    scalar = solve(game, symmetry=symmetry, vector=False)
    vector = solve(game, symmetry=symmetry, vector=True)
    assert isinstance(vector.states, np.ndarray) and vector.states.dtype == np.uint64
    assert vector.num_states == scalar.num_states and vector.num_moves == scalar.num_moves
    assert table_of(vector) == table_of(scalar)
    assert int(vector.states[0]) == scalar.states[0] and vector.result() == scalar.result()
    assert np.all(np.diff(vector.src) >= 0)


@pytest.mark.parametrize("name", ["tictactoe", pytest.param("mnk-4-3-3", marks=pytest.mark.slow), "mnk-3-3-2-misere"])
def test_unlayered_enumeration_gives_the_same_table(name: str) -> None:
    # the generic walk (one index of every state seen) on a game that could use the layered one
    reference = games.get(name)
    game = MNKGame(**reference.parameters(), name=reference.name)
    game.vector.layered = False
    for symmetry in (True, False):
        assert table_of(solve(game, symmetry=symmetry, vector=True)) == table_of(solve(reference, symmetry=symmetry))


def test_small_chunks_give_the_same_layers() -> None:
    kernels = games.get("mnk-4-3-3").vector
    for symmetry in (True, False):
        whole = list(layers(kernels, 0, symmetry))
        pieces = list(layers(kernels, 0, symmetry, chunk=7))
        for a, b in zip(whole, pieces, strict=True):
            assert a.states.tolist() == b.states.tolist()
            assert (a.src.tolist(), a.move.tolist(), a.dst.tolist()) == (b.src.tolist(), b.move.tolist(), b.dst.tolist())


class RingGame(GraphGame):
    """A token on a random directed graph with cycles; a player who cannot move loses (made for tests)."""

    def __init__(self, seed: int, size: int = 60):
        rng = random.Random(seed)
        super().__init__(
            [
                sorted({rng.randrange(size) for _ in range(rng.randint(1, 3))}) if rng.random() > 0.15 else []
                for _ in range(size)
            ]
        )
        self.name = f"ring-{seed}"
        self.vector = RingKernels(self)


class RingKernels(VectorKernels):
    """:class:`RingGame` on arrays: positions repeat, so the walk is not layered."""

    def __init__(self, game: RingGame):
        super().__init__(game)
        self.degree = np.array([len(e) for e in game.edges])
        self.targets = [np.array(e, dtype=np.uint64) for e in game.edges]

    def outcome(self, states: np.ndarray) -> np.ndarray:
        return np.where(self.degree[states.astype(np.intp)] == 0, 2, UNKNOWN_CODE).astype(np.int8)

    def children(self, states: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        parent = np.repeat(np.arange(len(states)), self.degree[states.astype(np.intp)])
        move = np.concatenate([np.arange(self.degree[s]) for s in states.tolist()] or [np.empty(0, int)])
        child = np.concatenate([self.targets[s] for s in states.tolist()] or [np.empty(0, np.uint64)])
        return parent, move.astype(np.int16), child


@pytest.mark.parametrize("seed", range(12))
def test_cyclic_game_on_both_paths(seed: int) -> None:
    game = RingGame(seed)
    scalar = solve(game, symmetry=False, vector=False)
    vector = solve(game, symmetry=False, vector=True)
    assert table_of(vector) == table_of(scalar)


@pytest.mark.slow
def test_mnk_4_4_4_is_a_draw_to_the_full_board() -> None:
    solution = solve(games.get("mnk-4-4-4"))
    assert solution.num_states == 1_217_977
    assert solution.result() == ("draw", 16)


def test_progress_reports_every_phase_per_layer(tmp_path: Path) -> None:
    seen: list[tuple[str, int, int | None]] = []
    with tablebase.open(tmp_path / "p.db") as tb:
        tb.build("mnk-4-3-3", progress=lambda phase, done, total: seen.append((phase, done, total)))
    phases = [p for p, _, _ in seen]
    assert phases == sorted(phases, key=["enumerate", "label", "write"].index)
    enumerate_reports = [done for p, done, _ in seen if p == "enumerate"]
    assert len(enumerate_reports) >= 8 and enumerate_reports[-1] == 28275  # one per layer, then the total
    assert [d for p, d, t in seen if p == "label"][-1] == 28275
    assert seen[-1] == ("write", 28275 + 98847, 28275 + 98847)


def index_sql(path: Path) -> list[tuple[str, str]]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'index' ORDER BY name").fetchall()
    finally:
        conn.close()


@pytest.mark.slow
def test_writer_recreates_the_migration_indexes(tmp_path: Path) -> None:
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from tablebase.store.engine import make_engine, upgrade
    from tablebase.store.models import Base

    path = tmp_path / "i.db"
    engine = make_engine(path)
    upgrade(engine)
    engine.dispose()
    fresh = index_sql(path)
    with tablebase.open(path) as tb:
        tb.build("mnk-4-3-3")  # into an empty file: indexes dropped and rebuilt after the load
        tb.build("tictactoe")  # beside a larger variant: indexes kept
        tb.build("mnk-4-3-3", symmetry=False)  # a rebuild
        assert tb.verify("mnk-4-3-3").ok and tb.verify("tictactoe").ok
    assert index_sql(path) == fresh
    engine = make_engine(path)
    with engine.connect() as conn:
        assert compare_metadata(MigrationContext.configure(conn), Base.metadata) == []
    engine.dispose()


def _not_canonical(conn: sqlite3.Connection) -> None:
    game = games.get("tictactoe")
    for state_id, key in conn.execute("SELECT id, key FROM states ORDER BY id").fetchall():
        image = game.format_position(game.transform(game.parse_position(key), 1))
        if image != key:
            conn.execute("UPDATE states SET key = ? WHERE id = ?", (image, state_id))
            return


ONE_OPEN_DRAW = "SELECT id FROM states WHERE outcome = 'draw' AND NOT terminal ORDER BY id LIMIT 1 OFFSET 5"
CORRUPTIONS = {
    "label": f"UPDATE states SET outcome = 'win' WHERE id = ({ONE_OPEN_DRAW})",
    "distance": "UPDATE states SET distance = distance + 2 WHERE id ="
    " (SELECT id FROM states WHERE outcome = 'win' AND NOT terminal ORDER BY id LIMIT 1)",
    "dropped move": f"DELETE FROM moves WHERE from_state = ({ONE_OPEN_DRAW})"
    f" AND move = (SELECT MIN(move) FROM moves WHERE from_state = ({ONE_OPEN_DRAW}))",
    "extra move": f"INSERT INTO moves SELECT id, 'z9', id FROM states WHERE id = ({ONE_OPEN_DRAW})",
    "terminal": "UPDATE states SET outcome = 'draw' WHERE id ="
    " (SELECT id FROM states WHERE outcome = 'loss' AND terminal ORDER BY id LIMIT 1)",
    "side": "UPDATE states SET to_move = 'o' WHERE key = '.../.../...'",
    "key": f"UPDATE states SET key = 'xxx/xxx/...' WHERE id = ({ONE_OPEN_DRAW})",
    "flag": f"UPDATE states SET terminal = 1 WHERE id = ({ONE_OPEN_DRAW})",
    "not canonical": _not_canonical,
}


@pytest.mark.parametrize("corruption", list(CORRUPTIONS))
def test_vector_and_scalar_verify_find_the_same_faults(tmp_path: Path, corruption: str) -> None:
    path = tmp_path / "v.db"
    with tablebase.open(path) as tb:
        tb.build("tictactoe")
    conn = sqlite3.connect(path)
    change = CORRUPTIONS[corruption]
    if callable(change):
        change(conn)
    else:
        assert conn.execute(change).rowcount == 1
    conn.commit()
    conn.close()
    with tablebase.open(path) as tb:
        table = tb.variant("tictactoe")
        fast, slow = verify(table), verify(table, vector=False)
    assert not fast.ok
    assert sorted(fast.errors) == sorted(slow.errors)
    assert fast.error_count == slow.error_count


def random_layered_graph(rng: random.Random, plies: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A random game whose moves all go from one ply to the next: (ply, src, dst, terminal)."""
    sizes = [rng.randint(1, 6) for _ in range(plies)]
    offsets = np.cumsum([0] + sizes)
    ply, terminal, src, dst = [], [], [], []
    for d, size in enumerate(sizes):
        for i in range(size):
            state = int(offsets[d]) + i
            ply.append(d)
            if d == plies - 1 or rng.random() < 0.25:
                terminal.append(rng.choice([LOSS_CODE, LOSS_CODE, DRAW_CODE, WIN_CODE]))
                continue
            terminal.append(UNKNOWN_CODE)
            for _ in range(rng.randint(1, 3)):
                src.append(state)
                dst.append(int(offsets[d + 1]) + rng.randrange(sizes[d + 1]))
    return np.array(ply), np.array(src, dtype=np.int64), np.array(dst, dtype=np.int64), np.array(terminal, dtype=np.int8)


LOSS_CODE, DRAW_CODE, WIN_CODE = 2, 3, 1


@pytest.mark.parametrize("seed", range(60))
def test_layer_by_layer_labelling_is_the_whole_graph_labelling(seed: int) -> None:
    from tablebase.solve.retrograde import label, label_layered

    rng = random.Random(seed)
    ply, src, dst, terminal = random_layered_graph(rng, rng.randint(1, 7))
    whole = label(len(ply), src, dst, terminal)
    layered = label_layered(ply, src, dst, terminal)
    assert whole[0].tolist() == layered[0].tolist()
    assert whole[1].tolist() == layered[1].tolist()


@pytest.mark.parametrize("seed", range(40))
def test_known_states_stand_for_the_rest_of_a_cyclic_graph(seed: int) -> None:
    # label a graph with cycles whole, then again with a set of states whose
    # children are all outside it, given the rest's labels as known
    from tablebase.solve.retrograde import label

    rng = random.Random(seed)
    n = rng.randint(4, 40)
    cut = rng.randint(1, n - 1)  # states below the cut move only to states at or above it
    src, dst, terminal = [], [], []
    for s in range(n):
        if rng.random() < 0.2:
            terminal.append(rng.choice([LOSS_CODE, LOSS_CODE, DRAW_CODE, WIN_CODE]))
            continue
        terminal.append(UNKNOWN_CODE)
        for _ in range(rng.randint(1, 3)):
            src.append(s)
            dst.append(rng.randrange(cut, n) if s < cut else rng.randrange(n) if rng.random() < 0.3 else rng.randrange(cut, n))
    src_a, dst_a, term_a = np.array(src), np.array(dst), np.array(terminal, dtype=np.int8)
    outcome, distance = label(n, src_a, dst_a, term_a)
    inner = src_a < cut
    part = label(cut, src_a[inner], dst_a[inner], term_a[:cut], known_outcome=outcome[cut:], known_distance=distance[cut:])
    assert part[0].tolist() == outcome[:cut].tolist()
    assert part[1].tolist() == distance[:cut].tolist()
