"""Cat and mouse on a graph: a game whose positions repeat, played by a mouse and a cat.

The mouse and the cat sit on nodes of an undirected graph and move in turn,
the mouse first, each along one edge to a neighbouring node (moving is
compulsory). The mouse wins by reaching the hole; the cat wins by moving
onto the mouse. The cat may not enter the hole and the mouse may not move
onto the cat; a player left without a move loses. Nothing stops the two
from chasing each other round a cycle for ever, so a position that neither
side can force to an end is a draw by perpetual play: a draw with no
distance.

These are the rules of the puzzle known as "Cat and Mouse" (LeetCode 913),
with one change of wording that changes no result: there the mouse may step
onto the cat and is caught, here such a step is not a move, and a mouse
whose every step is onto the cat has lost. The puzzle's first two examples
are two of the variants here: ``catmouse`` (a draw) and ``catmouse-small``
(the mouse wins). ``catmouse-ring`` is a wheel: a ring of six nodes, the hole
on top, and a spoke from the hole through the centre to the bottom node. The
mouse starts at the bottom, the cat in the centre; the cat's only step is
down, so the mouse runs round either side and wins in five plies. The wheel
is its own mirror image in the spoke, and so is the start: a position and
its mirror image have the same value and are stored once.

Positions write what is on each node in node order, ``.`` empty, ``m`` the
mouse, ``c`` the cat, then the side to move: ``.mc... mouse``. A caught
mouse is not drawn (the cat sits on it: ``..c... mouse``). A move names the
node a token leaves and the node it goes to, ``1-3``, ``5-hole``.
"""

from __future__ import annotations

import math
import re
from typing import Any, Sequence

from tablebase.errors import IllegalMoveError, MalformedPositionError
from tablebase.games.base import LOSS, Game, Outcome
from tablebase.games.bitboard import invert_permutation
from tablebase.games.layout import Layout

#: The players, first player first.
PLAYERS = ("mouse", "cat")
#: The hole is node 0.
HOLE = 0


class CatMouse(Game):
    """A state is ``(mouse * nodes + cat) * 2 + side`` (side 0: the mouse to move; ``mouse == cat``:
    caught); a move is ``from * nodes + to``."""

    family = "catmouse"
    players = PLAYERS
    cyclic = True

    def __init__(
        self,
        name: str,
        edges: list[tuple[int, int]],
        places: list[tuple[float, float]],
        mouse: int = 1,
        cat: int = 2,
        mirrors: Sequence[Sequence[int]] = (),
    ) -> None:
        self.name = name
        self.nodes = len(places)
        self.edges = edges
        self.places = places
        self.start = (mouse, cat)
        self.neighbours: list[list[int]] = [[] for _ in places]
        for a, b in edges:
            self.neighbours[a].append(b)
            self.neighbours[b].append(a)
        for around in self.neighbours:
            around.sort()
        #: Node permutations that keep the hole and the edges (``perm[node]`` is where ``node`` goes),
        #: the identity first: the symmetries. They move both tokens and keep the side to move.
        self.perms = [tuple(range(self.nodes)), *(tuple(perm) for perm in mirrors)]
        self.inverses = [self.perms.index(invert_permutation(perm)) for perm in self.perms]
        self.names = ["hole", *(str(node) for node in range(1, self.nodes))]
        self.rules = (
            f"a mouse and a cat move in turn along the edges of a graph of {self.nodes} nodes, the mouse first;"
            " the mouse wins in the hole, the cat by catching it; the cat may not enter the hole"
        )

    def parameters(self) -> dict[str, Any]:
        return {"edges": [list(edge) for edge in self.edges], "mouse": self.start[0], "cat": self.start[1]}

    # -- rules ---------------------------------------------------------------

    def tokens(self, state: int) -> tuple[int, int, int]:
        """``(mouse node, cat node, side)`` of ``state`` (side 0: the mouse to move)."""
        pair, side = divmod(state, 2)
        mouse, cat = divmod(pair, self.nodes)
        return mouse, cat, side

    def state(self, mouse: int, cat: int, side: int) -> int:
        return (mouse * self.nodes + cat) * 2 + side

    def initial_state(self) -> int:
        return self.state(*self.start, 0)

    def to_move(self, state: int) -> str:
        return PLAYERS[state & 1]

    def outcome(self, state: int) -> Outcome | None:
        mouse, cat, _ = self.tokens(state)
        if mouse == cat or mouse == HOLE or not self._steps(state):
            return LOSS  # caught (mouse to move), in the hole (cat to move), or no move left
        return None

    def _steps(self, state: int) -> list[int]:
        """The nodes the side to move can go to."""
        mouse, cat, side = self.tokens(state)
        if side == 0:
            return [node for node in self.neighbours[mouse] if node != cat]
        return [node for node in self.neighbours[cat] if node != HOLE]

    def legal_moves(self, state: int) -> list[int]:
        origin = self.tokens(state)[state & 1]
        return [origin * self.nodes + to for to in self._steps(state)]

    def apply(self, state: int, move: int) -> int:
        mouse, cat, side = self.tokens(state)
        to = move % self.nodes
        return self.state(to, cat, 1) if side == 0 else self.state(mouse, to, 0)

    def unmoves(self, state: int) -> list[tuple[int, int]]:
        mouse, cat, side = self.tokens(state)
        n = self.nodes
        if side == 0:  # the cat came from a neighbour (not the hole); the mouse was not in the hole yet
            if mouse == HOLE:
                return []
            return [(self.state(mouse, p, 1), p * n + cat) for p in self.neighbours[cat] if p not in (HOLE, mouse)]
        if mouse == cat:  # the mouse never moves onto the cat
            return []
        # the mouse came from a neighbour; a parent with the mouse in the hole was over already
        return [(self.state(p, cat, 0), p * n + mouse) for p in self.neighbours[mouse] if p not in (HOLE, cat)]

    def size_bound(self, symmetry: bool = True) -> int | None:
        return self.nodes * self.nodes * 2

    # -- symmetry ------------------------------------------------------------

    @property
    def num_symmetries(self) -> int:
        return len(self.perms)

    def transform(self, state: int, sym: int) -> int:
        mouse, cat, side = self.tokens(state)
        perm = self.perms[sym]
        return self.state(perm[mouse], perm[cat], side)

    def transform_move(self, move: int, sym: int) -> int:
        origin, to = divmod(move, self.nodes)
        perm = self.perms[sym]
        return perm[origin] * self.nodes + perm[to]

    def inverse_symmetry(self, sym: int) -> int:
        return self.inverses[sym]

    # -- notation ------------------------------------------------------------

    def parse_position(self, text: str) -> int:
        board, _, side = text.partition(" ")
        if len(board) != self.nodes or set(board) - set(".mc") or side not in PLAYERS:
            raise MalformedPositionError(
                f"invalid position {text!r}: {self.nodes} nodes of '.', 'm' or 'c', a space and"
                f" the side to move ('mouse' or 'cat'), e.g. {self.format_position(self.initial_state())!r}"
            )
        if board.count("c") != 1 or board.count("m") > 1:
            raise MalformedPositionError(f"invalid position {text!r}: one cat and at most one mouse")
        cat = board.index("c")
        if cat == HOLE:
            raise MalformedPositionError(f"invalid position {text!r}: the cat may not enter the hole (the first node)")
        if "m" not in board and side != "mouse":
            raise MalformedPositionError(f"invalid position {text!r}: the cat has caught the mouse, so the mouse is to move")
        mouse = board.index("m") if "m" in board else cat
        if mouse == HOLE and side != "cat":
            raise MalformedPositionError(f"invalid position {text!r}: the mouse is in the hole, so the cat is to move")
        return self.state(mouse, cat, PLAYERS.index(side))

    def format_position(self, state: int) -> str:
        mouse, cat, side = self.tokens(state)
        board = "".join("c" if node == cat else "m" if node == mouse else "." for node in range(self.nodes))
        return f"{board} {PLAYERS[side]}"

    def parse_move(self, state: int, text: str) -> int:
        found = re.fullmatch(r"([a-z0-9]+)-([a-z0-9]+)", text)
        ends = [self.names.index(part) for part in found.groups() if part in self.names] if found else []
        move = ends[0] * self.nodes + ends[1] if len(ends) == 2 else None
        if move is None or move not in self.legal_moves(state):
            legal = ", ".join(self.format_move(m) for m in self.legal_moves(state)) or "none"
            raise IllegalMoveError(f"illegal move {text!r}: name the node left and the node reached (legal: {legal})")
        return move

    def format_move(self, move: int) -> str:
        origin, to = divmod(move, self.nodes)
        return f"{self.names[origin]}-{self.names[to]}"

    def layout(self) -> Layout:
        return {
            "cells": [{"name": name, "x": x, "y": y} for name, (x, y) in zip(self.names, self.places)],
            "shape": "circle",
            "edges": [(self.names[a], self.names[b]) for a, b in self.edges],
            "separators": "",
            "empty": ".",
            "pieces": {"m": "mouse", "c": "cat"},
            "move_separator": "-",
        }


#: The first example of the puzzle: the hole on top, the mouse in the corner at the bottom right.
HOUSE = [(0, 2), (0, 5), (1, 3), (2, 4), (2, 5), (3, 4), (3, 5)]
HOUSE_PLACES = [(1.0, 0.0), (2.0, 3.0), (0.0, 1.0), (2.0, 2.0), (0.0, 2.0), (2.0, 1.0)]
#: The second example: a path with the hole between the mouse and the cat's side.
PATH = [(0, 1), (0, 3), (2, 3)]
PATH_PLACES = [(1.0, 0.0), (0.0, 0.0), (3.0, 0.0), (2.0, 0.0)]

#: A wheel: a ring of six nodes clockwise from the hole on top, and node 6 in the centre on a spoke
#: from the hole to the bottom node 3.
RING = [(node, (node + 1) % 6) for node in range(6)] + [(0, 6), (3, 6)]
RING_PLACES = [
    *((round(1.5 * math.sin(node * math.pi / 3), 3), round(-1.5 * math.cos(node * math.pi / 3), 3)) for node in range(6)),
    (0.0, 0.0),
]
#: The mirror image in the spoke: ring node k goes to node 6 - k, the spoke stays.
RING_MIRROR = [(6 - node) % 6 for node in range(6)] + [6]

VARIANTS = {
    "catmouse": lambda: CatMouse("catmouse", HOUSE, HOUSE_PLACES),
    "catmouse-small": lambda: CatMouse("catmouse-small", PATH, PATH_PLACES),
    "catmouse-ring": lambda: CatMouse("catmouse-ring", RING, RING_PLACES, mouse=3, cat=6, mirrors=[RING_MIRROR]),
}
CATALOG = ("catmouse", "catmouse-small", "catmouse-ring")
