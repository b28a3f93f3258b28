"""Rota, the Roman wheel game (seed 001).

The board is a wheel: eight spots on the rim, numbered ``0..7`` clockwise
from the top, and the centre ``8``. Each rim spot is joined to its two rim
neighbours and to the centre by a spoke. Each player has three tokens, x
first. While a player has fewer than three on the board, a turn places one
on an empty spot; after that, a turn slides one of their own tokens one step
along a joining line to an empty spot (no jumping). Passing is not allowed:
a player whose tokens are all blocked has no move and loses. Positions can
repeat, so perpetual play is a draw without a distance.

Variants, by what wins:

* ``rota`` — three in a line through the centre: spots ``i``, ``8``, ``i + 4``
  (the rule in seed 001);
* ``rota-circle`` — also three consecutive rim spots (``0 1 2``, ``7 0 1``, ...),
  as some reconstructions allow.

The symmetries are the 16 rotations and reflections of the wheel; the centre
stays put, and each one preserves the joining lines and the winning lines.

Notation: a position is the eight rim spots ``0..7`` in order, a ``/``, and
the centre, each ``x``, ``o`` or ``.``; in the movement phase (all six tokens
down) a trailing `` x`` or `` o`` names the side to move, as in Roman
tic-tac-toe. For example ``x...o.../x o`` has an x on the top spot and on the
centre, an o on the bottom spot, and o to move. In the placement phase the
suffix is not printed; it is accepted if it agrees with the counts. A
placement is the spot number, ``3``; a slide is ``from-to``, ``3-8``.
"""

from __future__ import annotations

import math
import re
from functools import partial
from typing import Any

from tablebase.errors import MalformedPositionError
from tablebase.games.layout import Layout, LayoutCell
from tablebase.games.common.tokens import TokenGame

RIM = 8
CENTRE = 8
#: Distance from the centre to the rim spots in :meth:`RotaGame.layout`, in cell units.
RADIUS = 2.0


def wheel_symmetries() -> tuple[tuple[int, ...], ...]:
    """The 16 rotations and reflections of the wheel as spot permutations (identity first)."""
    perms = []
    for k in range(RIM):
        perms.append(tuple((i + k) % RIM for i in range(RIM)) + (CENTRE,))
    for k in range(RIM):
        perms.append(tuple((k - i) % RIM for i in range(RIM)) + (CENTRE,))
    return tuple(perms)


def wheel_lines(circle: bool) -> list[int]:
    """Bitmasks of the winning lines: the four diameters, and with ``circle`` the eight rim triples."""
    lines = [1 << i | 1 << (i + 4) | 1 << CENTRE for i in range(4)]
    if circle:
        lines += [1 << i | 1 << ((i + 1) % RIM) | 1 << ((i + 2) % RIM) for i in range(RIM)]
    return lines


def wheel_reach() -> list[int]:
    """Bitmask of the spots joined to each spot."""
    reach = [1 << ((i + 1) % RIM) | 1 << ((i - 1) % RIM) | 1 << CENTRE for i in range(RIM)]
    reach.append((1 << RIM) - 1)
    return reach


class RotaGame(TokenGame):
    """Rota; with ``circle`` three consecutive rim spots win too."""

    family = "rota"
    line_word = "three in a line"

    def __init__(self, circle: bool = False, name: str | None = None):
        self.circle = circle
        self.cells = 9
        self.name = name or ("rota-circle" if circle else "rota")
        wins = "three through the centre or three along the rim win" if circle else "three through the centre win"
        self.rules = f"wheel of 8 spots and a centre, three tokens each, placed then slid one step; {wins}"
        self.perms = wheel_symmetries()
        self._init_tokens(wheel_lines(circle), wheel_reach())
        self._board_re = re.compile(r"^[xo.]{8}/[xo.]$")

    def parameters(self) -> dict[str, Any]:
        return {"circle": self.circle}

    # -- notation ------------------------------------------------------------

    def cell_label(self, cell: int) -> str:
        return str(cell)

    def parse_cell_label(self, text: str) -> int | None:
        if len(text) == 1 and text in "012345678":
            return int(text)
        return None

    def _mark(self, state: int, spot: int) -> str:
        return "x" if state >> spot & 1 else "o" if state >> (spot + 9) & 1 else "."

    def format_board_text(self, state: int) -> str:
        return "".join(self._mark(state, i) for i in range(RIM)) + "/" + self._mark(state, CENTRE)

    def parse_board_text(self, board: str, text: str) -> int:
        if not self._board_re.match(board):
            bad = next((ch for ch in board if ch not in "xo./"), None)
            if bad is not None:
                problem = f"bad character {bad!r} (spots are 'x', 'o' or '.')"
            elif board.count("/") != 1:
                problem = f"{board.count('/')} '/' separators, expected 1 between rim and centre"
            else:
                rim, _, centre = board.partition("/")
                problem = f"{len(rim)} rim spots and {len(centre)} centre spots, expected 8 and 1"
            raise MalformedPositionError(
                f"invalid position {text!r}: {problem}; write rim spots 0..7 then '/' and the centre"
            )
        state = 0
        for spot, ch in enumerate(board.replace("/", "")):
            if ch == "x":
                state |= 1 << spot
            elif ch == "o":
                state |= 1 << (spot + 9)
        return state

    def layout(self) -> Layout:
        """The wheel: round spots ``0..7`` clockwise from the top, the centre ``8``.

        The rim spots lie on a circle of radius :data:`RADIUS` around the
        centre (neighbours about 1.5 apart); the edges are the joining lines
        along which tokens slide, the rim and the spokes. The board part of a
        position (``x...o.../x``) lists the spots in that order once the
        ``/`` before the centre is dropped.
        """
        spots: list[LayoutCell] = []
        for spot in range(RIM):
            angle = 2 * math.pi * spot / RIM
            # + 0.0 turns a rounded -0.0 into 0.0
            x, y = round(RADIUS * math.sin(angle), 3) + 0.0, round(-RADIUS * math.cos(angle), 3) + 0.0
            spots.append({"name": str(spot), "x": x, "y": y})
        spots.append({"name": str(CENTRE), "x": 0.0, "y": 0.0})
        edges = [(str(a), str(b)) for a in range(self.cells) for b in range(a + 1, self.cells) if self.reach[a] >> b & 1]
        return {
            "cells": spots,
            "shape": "circle",
            "edges": edges,
            "separators": "/",
            "empty": ".",
            "pieces": {"x": "x", "o": "o"},
            "move_separator": "-",
        }

    def format_board(self, state: int) -> str:
        """The wheel, with the spot numbers beside it::

                x               0
            .   |   o       7   |   1
              \\ | /           \\ | /
            . - x - .       6 - 8 - 2
              / | \\           / | \\
            .   |   .       5   |   3
                .               4
            x moves
        """
        m = [self._mark(state, i) for i in range(9)]
        n = [str(i) for i in range(9)]
        rows = [
            "    {0}    ",
            "{7}   |   {1}",
            "  \\ | /  ",
            "{6} - {8} - {2}",
            "  / | \\  ",
            "{5}   |   {3}",
            "    {4}    ",
        ]
        lines = [(row.format(*m) + "       " + row.format(*n)).rstrip() for row in rows]
        lines.append(self.status_line(state))
        return "\n".join(lines)


#: Fixed names this module registers, with their factories (``build --all`` builds them all).
VARIANTS = {
    "rota": partial(RotaGame, circle=False),
    "rota-circle": partial(RotaGame, circle=True),
}
