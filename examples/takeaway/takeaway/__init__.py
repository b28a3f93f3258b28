"""Take-away: one heap of tokens, each turn take 1, 2 or 3; who takes the last token wins.

Positions show the heap as one character per token place, ``*`` a token and
``.`` a place already emptied, then the side to move (``*******.............. x``);
the short form ``7 x`` (tokens and side) is read too. A move names the places
of the tokens it takes, from the lowest up (``5-6-7`` takes three of seven),
so the web board can show the heap and take tokens by clicking them.
"""

from __future__ import annotations

import re

from tablebase.errors import IllegalMoveError, MalformedPositionError
from tablebase.games.base import LOSS, Game, Outcome
from tablebase.games.layout import Layout

#: Token places per row of the drawn heap.
ROW = 7


class TakeAway(Game):
    """A state is ``tokens * 2 + side`` (side 0: x to move); a move is ``top * 4 + taken``."""

    def __init__(self, heap: int, name: str) -> None:
        self.heap = heap
        self.name = name
        self.rules = f"one heap of {heap} tokens; take 1, 2 or 3; who takes the last token wins"

    def parameters(self) -> dict[str, int]:
        return {"heap": self.heap}

    def initial_state(self) -> int:
        return self.heap * 2

    def to_move(self, state: int) -> str:
        return "xo"[state & 1]

    def outcome(self, state: int) -> Outcome | None:
        return LOSS if state >> 1 == 0 else None

    def legal_moves(self, state: int) -> list[int]:
        tokens = state >> 1
        return [tokens * 4 + take for take in (1, 2, 3) if take <= tokens]

    def apply(self, state: int, move: int) -> int:
        return ((state >> 1) - move % 4) * 2 + (1 - (state & 1))

    def parse_position(self, text: str) -> int:
        short = re.fullmatch(r"(\d+) ([xo])", text)
        board = re.fullmatch(r"(\**)(\.*) ([xo])", text)
        if short and int(short.group(1)) <= self.heap:
            return int(short.group(1)) * 2 + "xo".index(short.group(2))
        if board and len(board.group(1)) + len(board.group(2)) == self.heap:
            return len(board.group(1)) * 2 + "xo".index(board.group(3))
        raise MalformedPositionError(
            f"invalid position: {text!r} ({self.heap} places, '*' a token then '.', and the side; or e.g. '7 x')"
        )

    def format_position(self, state: int) -> str:
        tokens = state >> 1
        return "*" * tokens + "." * (self.heap - tokens) + " " + self.to_move(state)

    def parse_move(self, state: int, text: str) -> int:
        tokens = state >> 1
        places = [int(p) for p in text.split("-")] if re.fullmatch(r"\d+(-\d+)*", text) else []
        if not places or places != list(range(tokens - len(places) + 1, tokens + 1)) or len(places) > 3:
            raise IllegalMoveError(f"illegal move: {text!r} (name 1 to 3 top tokens from the lowest, e.g. {tokens!s})")
        return tokens * 4 + len(places)

    def format_move(self, move: int) -> str:
        top, taken = divmod(move, 4)
        return "-".join(str(place) for place in range(top - taken + 1, top + 1))

    def layout(self) -> Layout:
        return {
            "cells": [
                {"name": str(place), "x": float((place - 1) % ROW), "y": float((place - 1) // ROW)}
                for place in range(1, self.heap + 1)
            ],
            "shape": "circle",
            "edges": [],
            "separators": "",
            "empty": ".",
            "pieces": {"*": "*"},
            "move_separator": "-",
        }


VARIANTS = {"takeaway-21": lambda: TakeAway(21, "takeaway-21")}
CATALOG = ("takeaway-21",)
