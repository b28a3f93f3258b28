"""Helpers for the server tests: two toy games and a built tablebase holding them.

The toy games test the web board on the move shapes of the movement and
Wild variants with games small enough to reason about by hand (the real
``rota`` and ``wild`` are played in tests/test_web.py too): ``toy-wheel`` has
Rota's round spots, edges, placements ``3`` and slides ``3-4``; ``toy-wild``
has Wild tic-tac-toe's labelled moves ``xb1`` / ``ob1``. They are registered
with :func:`registered` only while a test runs.
"""

from __future__ import annotations

import contextlib
import math
import threading
import time
import types
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

import tablebase
from tablebase import games
from tablebase.errors import IllegalMoveError, MalformedPositionError
from tablebase.games.base import DRAW, LOSS, Game, Outcome
from tablebase.games.layout import Layout, grid_layout


def move_named(game: Game, state: int, text: str) -> int:
    """The legal move of ``state`` that ``game`` formats as ``text``."""
    for move in game.legal_moves(state):
        if game.format_move(move) == text:
            return move
    raise IllegalMoveError(f"illegal move {text!r}")

RIM = 4
CENTRE = RIM
UNPLACED = 7


class ToyWheel(Game):
    """Four rim spots and a centre; each player places one token on the rim, then slides.

    Sliding onto the centre wins. A state is ``x_spot | o_spot << 3 | side << 6``
    (spot 7: not placed yet). Positions: five spot characters (0..3 clockwise
    from the top, 4 the centre) and the side to move, ``"x.o.. x"``.
    """

    family = "toy"
    cyclic = True
    name = "toy-wheel"
    rules = "toy wheel: place one token on the rim, then slide; reaching the centre wins"

    def initial_state(self) -> int:
        return UNPLACED | UNPLACED << 3

    def spots(self, state: int) -> tuple[int, int]:
        return state & 7, state >> 3 & 7

    def to_move(self, state: int) -> str:
        return "o" if state >> 6 else "x"

    def outcome(self, state: int) -> Outcome | None:
        x, o = self.spots(state)
        return LOSS if CENTRE in (x, o) else None

    def neighbours(self, spot: int) -> list[int]:
        if spot == CENTRE:
            return list(range(RIM))
        return [(spot + 1) % RIM, (spot - 1) % RIM, CENTRE]

    def legal_moves(self, state: int) -> list[int]:
        x, o = self.spots(state)
        mine, theirs = (o, x) if state >> 6 else (x, o)
        if mine == UNPLACED:
            return [s for s in range(RIM) if s != theirs]
        return [10 + mine * 5 + to for to in self.neighbours(mine) if to != theirs]

    def apply(self, state: int, move: int) -> int:
        to = move if move < 10 else (move - 10) % 5
        side = state >> 6
        x, o = self.spots(state)
        if side:
            o = to
        else:
            x = to
        return x | o << 3 | (1 - side) << 6

    def parse_position(self, text: str) -> int:
        board, _, side = text.partition(" ")
        if len(board) != 5 or set(board) - set("xo.") or board.count("x") > 1 or board.count("o") > 1:
            raise MalformedPositionError(f"invalid position {text!r}")
        if side not in ("x", "o"):
            raise MalformedPositionError(f"invalid position {text!r}: name the side to move")
        x = board.index("x") if "x" in board else UNPLACED
        o = board.index("o") if "o" in board else UNPLACED
        return x | o << 3 | (side == "o") << 6

    def format_position(self, state: int) -> str:
        x, o = self.spots(state)
        board = "".join("x" if s == x else "o" if s == o else "." for s in range(5))
        return f"{board} {self.to_move(state)}"

    def parse_move(self, state: int, text: str) -> int:
        return move_named(self, state, text)

    def format_move(self, move: int) -> str:
        return str(move) if move < 10 else f"{(move - 10) // 5}-{(move - 10) % 5}"

    def layout(self) -> Layout:
        rim = [
            {"name": str(s), "x": round(1.5 * math.cos(math.pi * (s / 2 - 0.5)), 3),
             "y": round(1.5 * math.sin(math.pi * (s / 2 - 0.5)), 3)}
            for s in range(RIM)
        ]
        return {
            "cells": [*rim, {"name": str(CENTRE), "x": 0.0, "y": 0.0}],
            "shape": "circle",
            "edges": [(str(s), str((s + 1) % RIM)) for s in range(RIM)] + [(str(s), str(CENTRE)) for s in range(RIM)],
            "separators": "",
            "empty": ".",
            "pieces": {"x": "x", "o": "o"},
            "move_separator": "-",
        }


class ToyWild(Game):
    """Wild tic-tac-toe on one row of three cells: either player places x or o; three alike wins.

    A state is two 3-bit boards (x marks, o marks). Moves are ``xa1`` ...
    ``oc1``, coded ``mark * 3 + cell``.
    """

    family = "toy"
    name = "toy-wild"
    rules = "toy wild: one row of three, place x or o, three alike wins"

    def initial_state(self) -> int:
        return 0

    def to_move(self, state: int) -> str:
        return "o" if (state & 7).bit_count() + (state >> 3).bit_count() & 1 else "x"

    def outcome(self, state: int) -> Outcome | None:
        if state & 7 == 7 or state >> 3 == 7:
            return LOSS
        return DRAW if (state | state >> 3) & 7 == 7 else None

    def legal_moves(self, state: int) -> list[int]:
        free = [c for c in range(3) if not (state | state >> 3) >> c & 1]
        return [mark * 3 + c for mark in (0, 1) for c in free]

    def apply(self, state: int, move: int) -> int:
        mark, cell = divmod(move, 3)
        return state | 1 << (cell + 3 * mark)

    def parse_position(self, text: str) -> int:
        if len(text) != 3 or set(text) - set("xo."):
            raise MalformedPositionError(f"invalid position {text!r}")
        return sum(1 << (c + (3 if ch == "o" else 0)) for c, ch in enumerate(text) if ch != ".")

    def format_position(self, state: int) -> str:
        return "".join("x" if state >> c & 1 else "o" if state >> (c + 3) & 1 else "." for c in range(3))

    def parse_move(self, state: int, text: str) -> int:
        return move_named(self, state, text)

    def format_move(self, move: int) -> str:
        mark, cell = divmod(move, 3)
        return f"{'xo'[mark]}{'abc'[cell]}1"

    def layout(self) -> Layout:
        return grid_layout(3, 1)


class ToyDrop(Game):
    """Discs dropped into two columns of two rows; two in a row (across or up) wins.

    Moves are the column digits ``1`` and ``2``; its layout's ``click_moves``
    lets a click on either cell of a column drop a disc there. A state is
    two 4-bit boards (x discs, o discs), cell ``row * 2 + column`` with row 0
    on top.
    """

    family = "toy"
    name = "toy-drop"
    rules = "toy drop: two columns of two rows, two in a row wins"
    LINES = (0b0011, 0b1100, 0b0101, 0b1010)

    def initial_state(self) -> int:
        return 0

    def to_move(self, state: int) -> str:
        return "o" if (state & 15).bit_count() + (state >> 4).bit_count() & 1 else "x"

    def outcome(self, state: int) -> Outcome | None:
        if any(state & line == line or state >> 4 & line == line for line in self.LINES):
            return LOSS
        return DRAW if (state | state >> 4) & 15 == 15 else None

    def legal_moves(self, state: int) -> list[int]:
        taken = (state | state >> 4) & 15
        return [column for column in (0, 1) if not taken >> column & 1]

    def apply(self, state: int, move: int) -> int:
        taken = (state | state >> 4) & 15
        cell = move + 2 if not taken >> (move + 2) & 1 else move
        return state | 1 << (cell + (4 if self.to_move(state) == "o" else 0))

    def parse_position(self, text: str) -> int:
        board = text.replace("/", "")
        if len(board) != 4 or set(board) - set("xo."):
            raise MalformedPositionError(f"invalid position {text!r}")
        return sum(1 << (c + (4 if ch == "o" else 0)) for c, ch in enumerate(board) if ch != ".")

    def format_position(self, state: int) -> str:
        cells = "".join("x" if state >> c & 1 else "o" if state >> (c + 4) & 1 else "." for c in range(4))
        return f"{cells[:2]}/{cells[2:]}"

    def parse_move(self, state: int, text: str) -> int:
        return move_named(self, state, text)

    def format_move(self, move: int) -> str:
        return str(move + 1)

    def layout(self) -> Layout:
        return {**grid_layout(2, 2), "click_moves": {"a1": "1", "a2": "1", "b1": "2", "b2": "2"}}


class ToyPlain(ToyWild):
    """:class:`ToyWild` without a board layout: clients can only list its moves."""

    name = "toy-plain"

    def layout(self) -> None:
        return None


TOY_FAMILY = types.ModuleType("toy")
TOY_FAMILY.VARIANTS = {"toy-wheel": ToyWheel, "toy-wild": ToyWild, "toy-plain": ToyPlain, "toy-drop": ToyDrop}  # type: ignore[attr-defined]
TOY_FAMILY.CATALOG = ()  # type: ignore[attr-defined]

#: What the test database holds.
BUILT = ("tictactoe", "mnk-2-2-2", "toy-plain", "toy-wheel", "toy-wild")


@contextlib.contextmanager
def registered() -> Iterator[None]:
    """The toy games in the registry for the duration of the block."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(games, "FAMILIES", (*games.FAMILIES, TOY_FAMILY))
        games.get.cache_clear()
        try:
            yield
        finally:
            games.get.cache_clear()


def build_database(path: Path, names: Iterable[str] = BUILT) -> Path:
    """A tablebase file with ``names``, by default :data:`BUILT` (call inside :func:`registered`)."""
    with tablebase.open(path) as tb:
        for name in names:
            tb.build(name)
    return path


def serving(app: Any) -> Iterator[int]:
    """Run the web ``app`` with uvicorn on a loopback port in a thread; yields the port, then stops it."""
    import uvicorn

    from tablebase.serve.launch import config

    server = uvicorn.Server(config(app, host="127.0.0.1", port=0, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    yield server.servers[0].sockets[0].getsockname()[1]
    server.should_exit = True
    thread.join(timeout=10)


def chromium_path() -> str | None:
    """Debian's chromium, if installed."""
    for candidate in ("/usr/bin/chromium", "/usr/bin/chromium-browser"):
        if Path(candidate).exists():
            return candidate
    return None


__all__ = ["BUILT", "ToyDrop", "ToyPlain", "ToyWheel", "ToyWild", "build_database", "chromium_path", "registered"]
