"""The exact search from a position against the full retrograde builder."""

from __future__ import annotations

import random
from typing import Any, Callable

import pytest

from tablebase.games import get
from tablebase.games.base import LOSS, Game, Outcome
from tablebase.games.playouts import random_live_position
from tablebase.solve import OUTCOME_NAMES, Solution, solve
from tablebase.solve.search import SearchResult, prove


def _table(game: Game) -> tuple[Solution, dict[int, int], set[tuple[int, int, int]]]:
    solution = solve(game, symmetry=True)
    index = {s: i for i, s in enumerate([int(s) for s in solution.states])}
    edges = set(zip(solution.src.tolist(), solution.move.tolist(), solution.dst.tolist()))
    return solution, index, edges


def _label(solution: Solution, i: int) -> tuple[str, int | None]:
    d = int(solution.distance[i])
    return OUTCOME_NAMES[int(solution.outcome[i])], (None if d < 0 else d)


def _check_against_table(result: SearchResult, solution: Solution, index: dict[int, int], edges: set) -> None:
    assert (result.outcome, result.distance) == _label(solution, index[result.root])
    assert result.complete and not result.timed_out
    for state, label in result.positions.items():
        assert label == _label(solution, index[state]), result.game.format_position(state)
    for state, move, child in result.edges:
        assert (index[state], move, index[child]) in edges


@pytest.mark.parametrize("variant", ["tictactoe", "tictactoe-misere", "mnk-3-3-2"])
def test_every_position_of_small_games(variant: str) -> None:
    game = get(variant)
    solution, index, edges = _table(game)
    for state in [int(s) for s in solution.states]:
        result = prove(game, state, children=True)
        _check_against_table(result, solution, index, edges)
        # with children=True the start position lists every move
        if game.outcome(state) is None:
            assert {m for s, m, _ in result.edges if s == result.root} == set(game.legal_moves(state))


@pytest.mark.slow
def test_positions_of_mnk_4_3_3() -> None:
    game = get("mnk-4-3-3")
    solution, index, edges = _table(game)
    rng = random.Random(4)
    checked = 0
    for state in rng.sample([int(s) for s in solution.states], 400) + [int(s) for s in solution.states][:50]:
        result = prove(game, state, children=True)
        _check_against_table(result, solution, index, edges)
        checked += len(result.positions)
    assert checked > 5000


def test_retrograde_method_agrees() -> None:
    game = get("tictactoe")
    solution, index, edges = _table(game)
    for state in [int(s) for s in solution.states][::7]:
        result = prove(game, state, method="retrograde")
        assert result.method == "retrograde"
        _check_against_table(result, solution, index, edges)


@pytest.mark.parametrize("compiled", [pytest.param(True, marks=pytest.mark.slow), False])
@pytest.mark.parametrize("variant", ["ultimate", "ultimate-classic"])
def test_ultimate_endgames_agree_with_retrograde(variant: str, compiled: bool) -> None:
    """Late positions: the search's labels equal those of the reachable subgraph labelled by the builder's pass."""
    game = get(variant)
    if compiled and game.outcome_table(game.initial_state()) is None:  # loads it: small positions use it too
        pytest.skip("numba is not installed")
    rng = random.Random(9)
    outcomes = set()
    for empties in (6, 9, 11) * 10:
        state = random_live_position(game, empties, rng)
        searched = prove(game, state, children=True, compiled=compiled)
        full = prove(game, state, method="retrograde")
        assert (searched.outcome, searched.distance) == (full.outcome, full.distance)
        for s, label in searched.positions.items():
            assert full.positions[s] == label
        outcomes.add(searched.outcome)
    assert outcomes == {"win", "loss", "draw"}


def test_time_limit_returns_only_proved_positions() -> None:
    game = get("mnk-4-3-3")
    solution, index, edges = _table(game)
    result = prove(game, game.initial_state(), time_limit=0.001)
    assert result.timed_out and not result.complete and result.distance is None
    for state, label in result.positions.items():
        assert label == _label(solution, index[state])
    assert result.root not in result.positions


def test_result_shape() -> None:
    game = get("tictactoe")
    result = prove(game, game.parse_position("xo./.x./..."))  # o to move cannot stop a1-b2-c3 and a line through b2
    assert (result.outcome, result.distance) == ("loss", 4)
    for state, (outcome, distance) in result.positions.items():
        assert game.canonical(state)[0] == state
        assert outcome in ("win", "loss", "draw") and isinstance(distance, int)
    assert "outcome='loss'" in repr(result)
    terminal = game.parse_position("xxx/oo./...")
    assert (prove(game, terminal).outcome, prove(game, terminal).distance) == ("loss", 0)


class Cycle(Game):
    """A tiny cyclic game: tokens move round a ring of 4 spots; spot 3 may also exit to a lost end."""

    name = "cycle"
    cyclic = True

    def initial_state(self) -> int:
        return 0

    def to_move(self, state: int) -> str:
        return "x" if state & 1 == 0 else "o"

    def outcome(self, state: int) -> Outcome | None:
        return LOSS if state == 10 else None

    def legal_moves(self, state: int) -> list[int]:
        return [0, 1] if state == 3 else [0]

    def apply(self, state: int, move: int) -> int:
        return 10 if move == 1 else (state + 1) % 4

    def parse_position(self, text: str) -> int:
        return int(text)

    def format_position(self, state: int) -> str:
        return str(state)

    def parse_move(self, state: int, text: str) -> int:
        return int(text)

    def format_move(self, move: int) -> str:
        return str(move)


def test_cyclic_games_use_the_retrograde_pass() -> None:
    game = Cycle()
    solution = solve(game, symmetry=False)
    result = prove(game, 0)
    assert result.method == "retrograde"
    assert (result.outcome, result.distance) == solution.result()
    assert result.positions[3] == ("win", 1) and result.positions[0] == ("loss", 4)
    with pytest.raises(ValueError, match="cyclic"):
        prove(game, 0, method="search")


def test_retrograde_pass_gives_up_past_its_limits() -> None:
    game = get("rota")  # 392 classes reachable from the start
    big = prove(game, game.initial_state(), method="retrograde", max_states=100)
    assert (big.complete, big.timed_out, big.outcome) == (False, False, None)
    assert big.stats["too_many_states"] == 1 and 100 < big.nodes < 392
    late = prove(game, game.initial_state(), method="retrograde", time_limit=0.0)
    assert (late.complete, late.timed_out, late.outcome) == (False, True, None)
    assert late.stats["too_many_states"] == 0
    whole = prove(game, game.initial_state(), method="retrograde", max_states=392)
    assert whole.complete and whole.outcome == "draw" and whole.stats["states"] == 392


def test_benchmark_script_runs() -> None:
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "ultimate_solve.py"
    spec = importlib.util.spec_from_file_location("ultimate_solve", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    rows = module.run(["ultimate", "ultimate-classic"], [8], samples=2, limit=10, seed=1, verbose=False)
    assert [r["solved"] for r in rows] == [2, 2]


def _with_moves(game: Game, empties: int, rng: random.Random, moves: int) -> int:
    """A random live position with ``empties`` open spots and at least ``moves`` moves."""
    state = random_live_position(game, empties, rng)
    while game.move_count(state) < moves:
        state = random_live_position(game, empties, rng)
    return state


def _recorded(monkeypatch: pytest.MonkeyPatch, method: str, before: Callable[[Any, int], None] | None = None) -> list[int]:
    """The states a method of the search (``prove_one``, ``_as_start``) is called with in this process,
    ``before(searcher, state)`` called first (the helper process records in its own copy)."""
    from tablebase.solve.search import driver as search

    calls: list[int] = []
    original = getattr(search._Searcher, method)

    def recorded(self, state):  # type: ignore[no-untyped-def]
        calls.append(state)
        if before is not None:
            before(self, state)
        return original(self, state)

    monkeypatch.setattr(search._Searcher, method, recorded)
    return calls


def _out_of_time_in_the_distance_of(monkeypatch: pytest.MonkeyPatch, child: int, game: Game, state: int) -> SearchResult:
    """``prove(game, state, children=True)`` running out of time in the distance proof of ``child``."""
    from tablebase.solve.search import driver as search

    exact_distance = search._Searcher.exact_distance

    def out_of_time(self: Any, searched: int) -> int:
        if searched == child:
            raise search._Timeout
        return exact_distance(self, searched)

    monkeypatch.setattr(search._Searcher, "exact_distance", out_of_time)
    return prove(game, state, children=True)


def _compiled(variant: str) -> tuple[Game, Any]:
    """The game and an empty compiled outcome table (loading the compiled code); skips without numba.
    Only for slow tests: once it is loaded, every later Ultimate search of the session is compiled."""
    game = get(variant)
    table = game.outcome_table(game.initial_state())
    if table is None:
        pytest.skip("numba is not installed")
    return game, table


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["ultimate", "ultimate-classic"])
def test_compiled_outcome_search_agrees_with_python(variant: str) -> None:
    """Positions of 12 to 20 open spots: the compiled negamax gives the Python one's value."""
    game, table = _compiled(variant)
    rng = random.Random(12)
    values = []
    for k in range(40):
        state = random_live_position(game, 12 + k % 9, rng)
        python = prove(game, state, compiled=False)
        compiled = prove(game, state)
        assert (compiled.outcome, compiled.distance) == (python.outcome, python.distance)
        value, _ = table.search(state, -1, 1, 10**9)
        assert value == {"win": 1, "draw": 0, "loss": -1}[python.outcome]
        values.append(value)
    assert set(values) == {-1, 0, 1}


def _ultimate_state(x: dict[int, list[int]], o: dict[int, list[int]], won_x: int = 0, active: int = 9) -> int:
    """A state of the Ultimate encoding from spots by field (x marks, o marks), fields won by x, active field."""
    bits = 0
    for shift, marks in ((0, x), (81, o)):
        for f, spots in marks.items():
            for s in spots:
                bits |= 1 << (shift + 9 * f + s)
    return bits | (won_x << 162) | (active << 180)


@pytest.mark.slow
def test_settled_fields_share_table_keys() -> None:
    """Marks inside a won field, or one neither side can win, change the key only by where they are."""
    words = pytest.importorskip("tablebase.games.ultimate.fields").words
    # field 0 won by x (top row) with an x and an o below it; field 2 drawn (every line holds both
    # marks, spot 5 empty); field 1 open, x on spots 0 and 4, o on 1
    x = {0: [0, 1, 2, 4], 1: [0, 4], 2: [0, 2, 4, 7]}
    o = {0: [3, 5], 1: [1], 2: [1, 3, 6, 8]}
    state = _ultimate_state(x, o, won_x=1)
    swapped_in_won = _ultimate_state({**x, 0: [0, 1, 2, 5]}, {**o, 0: [3, 4]}, won_x=1)
    swapped_in_drawn = _ultimate_state({**x, 2: [1, 3, 6, 8]}, {**o, 2: [0, 2, 4, 7]}, won_x=1)
    swapped_in_open = _ultimate_state({**x, 1: [1, 4]}, {**o, 1: [0]}, won_x=1)
    assert words(state) == words(swapped_in_won) == words(swapped_in_drawn)
    assert words(state) != words(swapped_in_open)
    w2 = words(state)[2]
    assert (w2 >> 36) & 511 == 0b101 and (w2 >> 45) & 511 == 0b100  # field 2 drawn: both its won bits


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["ultimate", "ultimate-classic"])
def test_two_processes_agree_with_one(variant: str) -> None:
    """The outcome raced by a second process in the rival move order: same labels, every child included."""
    game, table = _compiled(variant)
    rng = random.Random(30)
    for _ in range(6):
        state = random_live_position(game, 22, rng)
        one = prove(game, state, children=True)
        two = prove(game, state, children=True, processes=2)
        assert (two.outcome, two.distance, two.moves) == (one.outcome, one.distance, one.moves)
        assert one.root in two.positions
        for s in set(one.positions) & set(two.positions):
            assert two.positions[s] == one.positions[s]
    # a table proved in the rival order, adopted by another: the same proved value
    state = random_live_position(game, 24, rng)
    rival = table.rival()
    value, _ = rival.search(state, -1, 1, 10**9)
    fresh = game.outcome_table(state)
    fresh.adopt(rival.export())
    entry = fresh.get(state)
    assert entry is not None and entry[0] == entry[1] == value == {"win": 1, "draw": 0, "loss": -1}[prove(game, state).outcome]


@pytest.mark.slow
def test_the_rival_process_finishing_first_gives_its_table(monkeypatch: pytest.MonkeyPatch) -> None:
    """The start's search waits for the rival, then goes on with the rival's table: same label."""
    from tablebase.solve.search import driver as search

    game, _ = _compiled("ultimate")
    sliced = search._Searcher._sliced

    def after_the_rival(self, *args):  # type: ignore[no-untyped-def]
        if self.racing is not None:
            self.race(*self.racing)
            self.rival_conn.poll(60)
        return sliced(self, *args)

    rng = random.Random(31)
    won = 0
    for _ in range(3):
        state = random_live_position(game, 30, rng)
        one = prove(game, state)
        monkeypatch.setattr(search._Searcher, "_sliced", after_the_rival)
        two = prove(game, state, time_limit=120, processes=2)
        monkeypatch.setattr(search._Searcher, "_sliced", sliced)
        assert (two.outcome, two.distance) == (one.outcome, one.distance)
        won += int(two.stats["rival_won"])
    assert won >= 1


@pytest.mark.slow
def test_distance_tests_shared_by_children_agree_with_one_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """The distance tests of a won or lost start shared by children with a second process: the same
    labels as one process."""
    from tablebase.solve.search import base, driver as search

    split = search._Searcher._split_test
    tests = []

    def counted(self, state, g):  # type: ignore[no-untyped-def]
        tests.append(g)
        return split(self, state, g)

    monkeypatch.setattr(search._Searcher, "_split_test", counted)
    monkeypatch.setattr(base, "HELPER_AFTER", 0.0)  # the helper from the first budget on
    game, _ = _compiled("ultimate")
    rng = random.Random(32)
    outcomes = set()
    for _ in range(8):
        state = random_live_position(game, 30, rng)
        one = prove(game, state)
        two = prove(game, state, time_limit=120, processes=2)
        assert (two.outcome, two.distance) == (one.outcome, one.distance)
        outcomes.add(one.outcome)
    assert len(tests) >= 3 and len(outcomes) >= 2


@pytest.mark.slow
def test_children_proved_by_two_processes_agree_with_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every child of the start (and of the best line) proved by two processes, one from each
    end, the last one left like a start: the same labels and stored positions as one process,
    some of them sent by the helper."""
    from tablebase.solve.search import base, driver as search

    monkeypatch.setattr(base, "HELPER_AFTER", 0.0)  # the helper from the first budget on
    own = _recorded(monkeypatch, "prove_one")
    last = _recorded(monkeypatch, "_as_start")
    for variant, seed in (("ultimate", 33), ("ultimate-classic", 34)):
        game, _ = _compiled(variant)
        rng = random.Random(seed)
        from_helper = 0
        for _ in range(3):
            state = _with_moves(game, 30, rng, 4)
            one = prove(game, state, children=True, line=True)
            own.clear()
            two = prove(game, state, time_limit=120, children=True, line=True, processes=2)
            assert (two.outcome, two.distance, two.moves) == (one.outcome, one.distance, one.moves)
            children = [child for _move, child in game.children(state)]
            assert two.complete and one.root in two.expanded
            assert {game.canonical(c)[0] for c in children} <= set(two.positions)
            for s in set(one.positions) & set(two.positions):
                assert two.positions[s] == one.positions[s]
            from_helper += sum(child not in own for child in children)
        assert from_helper >= 1, variant
    assert last  # the last position left proved like a start
    # the search in Python: no compiled table, so no rival and no distance helper, whose searches are compiled
    helpers = _recorded(monkeypatch, "_start_helper")
    rng = random.Random(36)
    for _ in range(3):
        state = random_live_position(game, 18, rng)
        one = prove(game, state, children=True, compiled=False)
        two = prove(game, state, time_limit=120, children=True, compiled=False, processes=2)
        assert two.complete and (two.outcome, two.distance, two.moves) == (one.outcome, one.distance, one.moves)
    assert not helpers


@pytest.mark.slow
def test_the_moves_are_proved_when_their_helper_process_is_gone(monkeypatch: pytest.MonkeyPatch) -> None:
    """A helper that exits at once (as one out of time does): this process proves every move alone,
    each once, and gives the labels of one process."""
    from tablebase.solve.search import base, driver as search

    monkeypatch.setattr(base, "HELPER_AFTER", 0.0)
    monkeypatch.setattr(search, "_labels_helper", lambda searcher, states, done, conn: conn.close())
    game, _ = _compiled("ultimate")
    state = _with_moves(game, 34, random.Random(37), 4)
    one = prove(game, state, children=True)
    calls = _recorded(monkeypatch, "prove_one")
    two = prove(game, state, time_limit=120, children=True, processes=2)
    assert two.complete and (two.outcome, two.distance, two.moves) == (one.outcome, one.distance, one.moves)
    # a search given up to start the helper is taken up again once, not given up again and again
    assert len(calls) <= game.move_count(state) + 1


@pytest.mark.slow
def test_the_moves_proved_before_the_time_runs_out_are_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    """A proof with ``children=True`` that runs out of time while proving the moves keeps the
    labels of the moves it proved, and gives no label for the start when they do not settle it
    (it follows from its moves')."""
    from tablebase.solve.search import driver as search

    game, _ = _compiled("ultimate")
    state = _with_moves(game, 24, random.Random(35), 6)
    full = prove(game, state, children=True)
    searched: list[int] = []

    def out_of_time_at_the_third(searcher: Any, child: int) -> None:
        if searcher.exact(child) is None:
            searched.append(child)
            if len(searched) == 3:
                raise search._Timeout

    _recorded(monkeypatch, "prove_one", out_of_time_at_the_third)
    cut = prove(game, state, children=True)
    assert cut.timed_out and not cut.complete and cut.outcome is None
    assert len(cut.moves) >= 2 and all(full.moves[move] == label for move, label in cut.moves.items())
    assert full.complete and len(full.moves) == game.move_count(state) > len(cut.moves)


@pytest.mark.slow
@pytest.mark.parametrize("outcome", ["win", "draw"])
def test_a_timeout_keeps_the_start_label_its_proved_moves_settle(outcome: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """With ``children=True``, a timeout in the distance proof of the last move, a win for the other
    side, after the start's winning (else drawing) moves are proved still gives the start's label:
    no other move can beat theirs. It is stored with the moves proved, and without moves."""

    game, _ = _compiled("ultimate")
    rng = random.Random(f"settle-{outcome}")
    settles = "loss" if outcome == "win" else "draw"  # the child's outcome, for its mover
    while True:
        state = _with_moves(game, 22, rng, 3)
        full = prove(game, state, children=True)
        labels = list(full.moves.values())
        if full.outcome == outcome and labels[-1][0] == "win" and any(label[0] == settles for label in labels):
            break
    moves = game.children(state)
    last_child = moves[-1][1]
    cut = _out_of_time_in_the_distance_of(monkeypatch, last_child, game, state)
    assert cut.timed_out and not cut.complete
    assert (cut.outcome, cut.distance) == (full.outcome, full.distance)
    assert sorted(cut.moves) == sorted(move for move, _child in moves[:-1])
    assert all(full.moves[move] == label for move, label in cut.moves.items())
    stored = cut.positions
    assert stored[game.canonical(state)[0]] == (full.outcome, full.distance) and not cut.edges
    for move, child in moves[:-1]:
        assert stored[game.canonical(child)[0]] == full.moves[move]
    assert game.canonical(last_child)[0] not in stored


@pytest.mark.slow
def test_a_timeout_gives_no_start_label_where_an_unproved_move_may_win_faster(monkeypatch: pytest.MonkeyPatch) -> None:
    """A won start whose last move also wins (its child is lost for its mover): a timeout in that
    move's distance proof leaves the start's label open, even with another winning move proved."""

    game, _ = _compiled("ultimate")
    rng = random.Random("unsettled")
    while True:
        state = _with_moves(game, 22, rng, 3)
        full = prove(game, state, children=True)
        labels = list(full.moves.values())
        if full.outcome == "win" and labels[-1][0] == "loss" and any(label[0] == "loss" for label in labels[:-1]):
            break
    cut = _out_of_time_in_the_distance_of(monkeypatch, game.children(state)[-1][1], game, state)
    assert cut.timed_out and cut.outcome is None and game.canonical(state)[0] not in cut.positions
    assert len(cut.moves) == len(labels) - 1


@pytest.mark.slow
@pytest.mark.parametrize("orders", [(0, 1), (1,)])
def test_draw_lengths_searched_by_turns_agree_with_retrograde(orders: tuple[int, ...], monkeypatch: pytest.MonkeyPatch) -> None:
    """The draw length from the long side (the classic rules, whose drawn lines may end before
    the board is full), in each move order, the orders taking turns within budgets that start at
    one node: the same lengths as the builder's pass."""
    from tablebase.solve.search import base, driver as search

    monkeypatch.setattr(base, "DRAW_BUDGET", 1)
    monkeypatch.setattr(base, "DRAW_ORDERS", orders)
    rounds = []
    drawn_line = search._Searcher._drawn_line

    def spied(self, state, length):  # type: ignore[no-untyped-def]
        try:
            return drawn_line(self, state, length)
        except base._OverBudget:
            rounds.append(self.draw_order)
            raise

    monkeypatch.setattr(search._Searcher, "_drawn_line", spied)
    game = get("ultimate-classic")
    rng = random.Random(36)
    draws = 0
    for empties in (8, 10, 12) * 12:
        state = random_live_position(game, empties, rng)
        searched = prove(game, state)
        full = prove(game, state, method="retrograde")
        assert (searched.outcome, searched.distance) == (full.outcome, full.distance), game.format_position(state)
        draws += searched.outcome == "draw"
    assert draws >= 5
    assert set(rounds) == set(orders)  # every order ran out of a budget at least once


def _prove_with_helpers(game_name: str, state: int, conn: Any) -> None:
    """In a daemonic process: prove ``state`` asking for two processes, helpers from the start."""
    from tablebase.solve.search import base

    base.HELPER_AFTER = 0.0
    try:
        result = prove(get(game_name), state, time_limit=60, children=True, processes=2, compiled=False)
        conn.send(("ok", result.outcome, result.distance, result.moves))
    except BaseException as exc:  # the test reports what went wrong in the child
        conn.send(("error", repr(exc), None, None))


@pytest.mark.slow
def test_a_daemonic_process_proves_alone_when_asked_for_helpers() -> None:
    """A server's search worker is daemonic and may not start processes: asked for two, its
    proof runs in the one process and gives the answer one process gives."""
    import multiprocessing

    game = get("ultimate-classic")
    state = random_live_position(game, 30, random.Random(5))
    one = prove(game, state, time_limit=60, children=True, compiled=False)
    context = multiprocessing.get_context("fork")
    mine, theirs = context.Pipe()
    child = context.Process(target=_prove_with_helpers, args=(game.name, state, theirs), daemon=True)
    child.start()
    assert mine.poll(120), "the daemonic proof did not answer"
    status, *answer = mine.recv()
    child.join(10)
    assert status == "ok", answer[0]
    assert tuple(answer) == (one.outcome, one.distance, one.moves)
