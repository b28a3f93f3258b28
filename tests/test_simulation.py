"""The simulation checks of :mod:`tablebase.testing` themselves: they catch broken rules and a
symmetry that exchanges the players, and the reference solver agrees with a build.

The checks run over every registered variant and storage in tests/test_matrix.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import tablebase
from tablebase import games, testing
from tablebase.games.base import Game, Outcome
from serve_support import build_database


def test_games_that_list_unmoves() -> None:
    assert {"tictactoe", "mnk-5-4-4", "roman", "roman-lines", "rota", "wild"} <= {
        name for name in [*games.names(), "mnk-5-4-4"] if games.get(name).has_unmoves
    }
    assert not games.get("ultimate-strategy").has_unmoves


def test_checks_catch_broken_rules() -> None:
    """The shared checks fail on a game whose moves do not round-trip, or whose hints lie."""

    class Broken(type(games.get("tictactoe"))):  # type: ignore[misc]
        def format_move(self, move: int) -> str:
            return "a1"

        def max_plies(self, state: int) -> int | None:
            return 0

    broken = Broken(3, 3, 3, name="broken")
    with pytest.raises(AssertionError, match="does not parse back"):
        testing.check_random_play(broken, playouts=2, seed=0)
    with pytest.raises(AssertionError, match="max_plies 0"):
        testing.check_search_hints(broken, playouts=2, seed=0)

    class Unmirrored(type(games.get("connect4-5-4"))):  # type: ignore[misc]
        def key_patterns(self, state: int) -> list[str]:
            return [self.format_position(state).replace(".", "_")]  # the mirror image left out

    unmirrored = Unmirrored(5, 4, name="unmirrored")
    with pytest.raises(AssertionError, match="matches no key pattern"):
        testing.check_search_hints(unmirrored, playouts=5, seed=0)


def test_a_symmetry_that_exchanges_the_players_is_refused_with_the_reason() -> None:
    """A heap game is impartial (its value does not depend on who is to move), but a symmetry
    that exchanges the players is still refused, and the refusal says why."""

    class Heap(Game):
        """A heap of tokens, take 1 or 2, who takes the last wins; a state is ``tokens * 2 + side``."""

        name = "heap"

        def initial_state(self) -> int:
            return 5 * 2

        def to_move(self, state: int) -> str:
            return "xo"[state & 1]

        def outcome(self, state: int) -> Outcome | None:
            return "loss" if state < 2 else None

        def legal_moves(self, state: int) -> list[int]:
            return [take for take in (1, 2) if take <= state >> 1]

        def apply(self, state: int, move: int) -> int:
            return (state - 2 * move) ^ 1

        def parse_position(self, text: str) -> int:
            return int(text[:-2]) * 2 + "xo".index(text[-1])

        def format_position(self, state: int) -> str:
            return f"{state >> 1} {self.to_move(state)}"

        def parse_move(self, state: int, text: str) -> int:
            return int(text)

        def format_move(self, move: int) -> str:
            return str(move)

        @property
        def num_symmetries(self) -> int:
            return 2

        def transform(self, state: int, sym: int) -> int:
            return state ^ sym  # symmetry 1 hands the move to the other player

    heap = Heap()
    testing.check_random_play(heap, playouts=4, seed=0)  # the rules themselves are fine
    with pytest.raises(AssertionError, match="symmetry 1: the side to move differs: a symmetry must keep the side to move"):
        testing.check_symmetries(heap, heap.initial_state())
    with pytest.raises(AssertionError, match="symmetries that exchange the players are not supported"):
        testing.check_game(heap, playouts=4)


def test_winners_decides_what_a_fixpoint_can_and_leaves_cycles_out() -> None:
    # a to move at "a": one move reaches "won", which b (to move there) has lost; "c" and "d" chase each other
    graph = {"a": ["won", "c"], "won": [], "c": ["d"], "d": ["c", "lost"], "lost": []}
    sides = {"a": ("a", "b"), "won": ("b", "a"), "c": ("b", "a"), "d": ("a", "b"), "lost": ("b", "a")}
    found = testing.winners(graph, {"won": "a", "lost": "b"}, lambda node: sides[node])
    assert found == {"a": "a", "won": "a", "lost": "b"}  # d's moves: one to c, one to a loss; c: never decided


def test_winners_agrees_with_the_built_tictactoe(tmp_path: Path) -> None:
    game = games.get("tictactoe")
    graph: dict[int, list[int]] = {}
    todo = [game.initial_state()]
    while todo:
        state = todo.pop()
        if state not in graph:
            graph[state] = [] if game.outcome(state) is not None else [child for _, child in game.children(state)]
            todo.extend(graph[state])
    over = {s: ("o" if game.to_move(s) == "x" else "x") for s, kids in graph.items() if game.outcome(s) == "loss"}
    found = testing.winners(graph, over, lambda s: (game.to_move(s), "o" if game.to_move(s) == "x" else "x"))
    assert len(graph) == 5478 and game.initial_state() not in found  # every reachable position; the start draws
    with tablebase.open(build_database(tmp_path / "t.db", ["tictactoe"])) as tb:
        table = tb.variant("tictactoe")
        for state in graph:
            outcome = table.probe(game.format_position(state)).outcome
            winner = found.get(state)
            want = "draw" if winner is None else "win" if winner == game.to_move(state) else "loss"
            assert outcome == want, game.format_position(state)
