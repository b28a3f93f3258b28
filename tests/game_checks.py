"""Generic checks of a game's rules and of a solved variant, shared by the per-game tests.

Everything here talks to a game only through the :class:`tablebase.games.base.Game`
protocol, so the same checks apply to every family. The rules checks a plugin author can run
too live in :mod:`tablebase.testing` and are re-exported here.
"""

from __future__ import annotations

import itertools
import random
from typing import Callable, Iterable

import pytest

from tablebase.errors import IllegalMoveError, MalformedPositionError
from tablebase.games import get
from tablebase.games.base import Game
from tablebase.solve import DRAW_CODE, LOSS_CODE, NO_DISTANCE, WIN_CODE, Solution
from tablebase.testing import (
    check_random_play,
    check_random_symmetries,
    check_state,
    check_symmetries,
    random_states,
    winners,
)

CODES = {"win": WIN_CODE, "loss": LOSS_CODE, "draw": DRAW_CODE}


__all__ = ["check_random_play", "check_random_symmetries", "check_state", "check_symmetries", "random_states"]


def states_of(solution: Solution) -> list[int]:
    """The solution's states as Python integers (the vector path holds them as ``np.uint64``)."""
    return [int(state) for state in solution.states]


def index_of(solution: Solution) -> dict[int, int]:
    return {state: i for i, state in enumerate(states_of(solution))}


def check_labels(*solutions: Solution) -> None:
    """Re-derive every label of each solution from the children the rules give, independently of the solver.

    A win needs a child lost for the side to move there (distance 1 + the
    smallest such); a loss needs every child won (1 + the largest); anything
    else is a draw, whose distance is 1 + the longest drawn child's when
    every drawn child has one, and none otherwise. With distances strictly
    decreasing along the justifying moves, local agreement everywhere makes
    the labels right on cyclic graphs too.
    """
    for solution in solutions:
        game = solution.game
        canon = game.canonical if solution.symmetry else (lambda s: (s, 0))
        index = index_of(solution)
        edges: dict[int, list[tuple[int, int]]] = {}
        for s, m, d in zip(solution.src.tolist(), solution.move.tolist(), solution.dst.tolist()):
            edges.setdefault(s, []).append((m, d))
        for i, state in enumerate(states_of(solution)):
            got = (int(solution.outcome[i]), int(solution.distance[i]))
            result = game.outcome(state)
            if result is not None:
                assert got == (CODES[result], 0), (game.format_position(state), got)
                assert i not in edges
                continue
            kids = [(m, index[canon(child)[0]]) for m, child in game.children(state)]
            assert sorted(kids) == sorted(edges[i])
            labels = [(int(solution.outcome[j]), int(solution.distance[j])) for _, j in kids]
            lost = [d for o, d in labels if o == LOSS_CODE]
            drawn = [d for o, d in labels if o == DRAW_CODE]
            if lost:
                want = (WIN_CODE, 1 + min(lost))
            elif not drawn:
                want = (LOSS_CODE, 1 + max(d for _, d in labels))
            elif NO_DISTANCE in drawn:
                want = (DRAW_CODE, NO_DISTANCE)
            else:
                want = (DRAW_CODE, 1 + max(drawn))
            assert got == want, (game.format_position(state), got, want)


def check_symmetric_labels(reduced: Solution, full: Solution) -> None:
    """Every position of the unreduced solution has its class representative's label."""
    game = reduced.game
    assert reduced.symmetry and not full.symmetry
    index = index_of(reduced)
    assert sum(game.orbit_size(s) for s in states_of(reduced)) == full.num_states
    for i, state in enumerate(states_of(full)):
        j = index[game.canonical(state)[0]]
        assert (full.outcome[i], full.distance[i]) == (reduced.outcome[j], reduced.distance[j]), (
            game.format_position(state)
        )


def check_message(error: Exception, text: str, *fragments: str) -> None:
    """A one-line lowercase message that quotes the input and names the problem."""
    message = str(error)
    assert "\n" not in message
    assert message[0].islower()
    assert repr(text) in message, message
    for fragment in fragments:
        assert fragment in message, message


def check_illegal_move(game: Game, position: str, move: str, *fragments: str) -> None:
    """``move`` is refused in ``position`` with a message that quotes it and names the problem."""
    with pytest.raises(IllegalMoveError) as err:
        game.parse_move(game.parse_position(position), move)
    check_message(err.value, move, *fragments)


Node = tuple[str, str]


def string_graph(successors: Callable[[str, str], list[str]], line: Callable[[str, str], bool]) -> dict[Node, list[Node]]:
    """Every (board, side to move) reachable from the empty nine-cell string board with x to move,
    and its children (none once the player who just moved has a ``line``): the reference solvers'
    game graph, written on strings and sharing no code with the package."""
    graph: dict[Node, list[Node]] = {}
    todo = [("." * 9, "x")]
    while todo:
        node = todo.pop()
        if node in graph:
            continue
        board, side = node
        other = "o" if side == "x" else "x"
        graph[node] = [] if line(board, other) else [(b, other) for b in successors(board, side)]
        todo.extend(graph[node])
    return graph


def string_colouring(successors: Callable[[str, str], list[str]], line: Callable[[str, str], bool]) -> dict[Node, str]:
    """Seed 000's method on :func:`string_graph`: colour a position by its winner (``"x"`` or ``"o"``)
    when the game is over there, when a move reaches a position the mover wins, or when every move
    reaches one the opponent wins; repeat to a fixpoint. ``"-"``: never coloured (a draw)."""
    graph = string_graph(successors, line)
    over = {n: ("o" if n[1] == "x" else "x") for n, kids in graph.items() if not kids}
    colour = winners(graph, over, lambda n: (n[1], "o" if n[1] == "x" else "x"))
    return {node: colour.get(node, "-") for node in graph}


def three_token_colouring(lines: Iterable[Iterable[int]], step: Callable[[int, int], bool]) -> dict[Node, str]:
    """:func:`string_colouring` of a three-token game on nine cells: each side places its three tokens
    on empty cells, then moves one from cell ``a`` to an empty cell ``b`` where ``step(a, b)``; three
    of a side's tokens on one of ``lines`` win."""
    winning = [tuple(ln) for ln in lines]

    def line(board: str, p: str) -> bool:
        return any(all(board[i] == p for i in ln) for ln in winning)

    def successors(board: str, side: str) -> list[str]:
        if board.count(side) < 3:
            return [board[:c] + side + board[c + 1 :] for c in range(9) if board[c] == "."]
        out = []
        for a, b in itertools.permutations(range(9), 2):
            if board[a] == side and board[b] == "." and step(a, b):
                nb = list(board)
                nb[a], nb[b] = ".", side
                out.append("".join(nb))
        return out

    return string_colouring(successors, line)


def check_shut_in(
    game: Game,
    lines: Iterable[Iterable[int]],
    step: Callable[[int, int], bool],
    position: Callable[[str, str], str],
) -> int:
    """Boards of a three-token game (see :func:`three_token_colouring`) where one side has no ``step``
    to an empty cell: the other side always has one of ``lines``; when the shut-in side has none, it is
    to move in a position ``game`` scores as lost. ``position`` writes a nine-cell string board and the
    side to move in the game's notation. Returns how many such positions there are."""
    winning = [set(ln) for ln in lines]
    blocked = 0
    for xs in itertools.combinations(range(9), 3):
        for os in itertools.combinations([c for c in range(9) if c not in xs], 3):
            board = "".join("x" if c in xs else "o" if c in os else "." for c in range(9))
            for side, mine, theirs in (("x", xs, os), ("o", os, xs)):
                if any(board[b] == "." and step(a, b) for a in mine for b in range(9)):
                    continue
                text = position(board, side)
                assert any(line <= set(theirs) for line in winning), text
                if any(line <= set(mine) for line in winning):
                    continue  # both sides have a line: not a position
                blocked += 1
                assert game.outcome(game.parse_position(text)) == "loss", text
    return blocked


def check_colouring(solution: Solution, colours: dict[Node, str], board: Callable[[int], str]) -> None:
    """``solution`` agrees with a reference colouring keyed by (string board, side to move), such as
    :func:`string_colouring`'s: each position is won by the side its colour names, drawn when ``"-"``,
    lost otherwise. ``board`` gives a state's string board."""
    game = solution.game
    assert len(colours) == solution.num_states
    for i, state in enumerate(solution.states):
        side = game.to_move(state)
        want = {side: WIN_CODE, "-": DRAW_CODE}.get(colours[(board(state), side)], LOSS_CODE)
        assert solution.outcome[i] == want, game.format_position(state)


def check_malformed(game: Game, text: str, *fragments: str) -> None:
    """``text`` is refused as a position with a message that quotes it and names the problem."""
    with pytest.raises(MalformedPositionError) as err:
        game.parse_position(text)
    check_message(err.value, text, *fragments)



def table(text: str, columns: int) -> list[tuple[str, ...]]:
    """The rows of a text table: one case a line, ``columns`` fields separated by ``|``."""
    rows = [tuple(field.strip() for field in line.split("|")) for line in text.strip().splitlines()]
    for row in rows:
        assert len(row) == columns, row
    return rows


def malformed_positions_test(cases: str) -> Callable[[str, str, str], None]:
    """A test refusing each text as a position of its variant (see :func:`check_malformed`).

    ``cases``: one line each, ``variant | text | what the message must name``.
    """

    @pytest.mark.parametrize("name, text, problem", table(cases, 3))
    def test_malformed_positions(name: str, text: str, problem: str) -> None:
        check_malformed(get(name), text, problem)

    return test_malformed_positions


def illegal_moves_test(cases: str) -> Callable[[str, str, str, str], None]:
    """A test refusing each move in its position and variant (see :func:`check_illegal_move`).

    ``cases``: one line each, ``variant | position | move | what the message must name``.
    """

    @pytest.mark.parametrize("name, position, move, problem", table(cases, 4))
    def test_illegal_moves(name: str, position: str, move: str, problem: str) -> None:
        check_illegal_move(get(name), position, move, problem)

    return test_illegal_moves
