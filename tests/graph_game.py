"""A token on a directed graph: a small cyclic game made for tests."""

from __future__ import annotations

from tablebase.errors import IllegalMoveError, MalformedPositionError
from tablebase.games.base import Game, Outcome


class GraphGame(Game):
    """A token on a directed graph; a player who cannot move loses (made for tests)."""

    family = "graph"
    cyclic = True

    def __init__(self, edges: dict[int, list[int]] | list[list[int]], start: int = 0):
        self.name = "graph"
        self.edges = edges
        self.start = start

    def initial_state(self) -> int:
        return self.start

    def to_move(self, state: int) -> str:
        return "x"

    def outcome(self, state: int) -> Outcome | None:
        return None if self.edges[state] else "loss"

    def legal_moves(self, state: int) -> list[int]:
        return list(range(len(self.edges[state])))

    def apply(self, state: int, move: int) -> int:
        return self.edges[state][move]

    def parse_position(self, text: str) -> int:
        if not text.isdigit() or int(text) >= len(self.edges):
            raise MalformedPositionError(f"invalid position {text!r}")
        return int(text)

    def format_position(self, state: int) -> str:
        return str(state)

    def parse_move(self, state: int, text: str) -> int:
        if not text.isdigit() or int(text) >= len(self.edges[state]):
            raise IllegalMoveError(f"illegal move {text!r}")
        return int(text)

    def format_move(self, move: int) -> str:
        return str(move)
