"""Take-away: one heap of tokens, each turn take 1, 2 or 3; who takes the last token wins."""

from __future__ import annotations

import re

from tablebase.errors import IllegalMoveError, MalformedPositionError
from tablebase.games.base import LOSS, Game, Outcome


class TakeAway(Game):
    """A state is ``tokens * 2 + side`` (side 0: x to move)."""

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
        return [t for t in (1, 2, 3) if t <= state >> 1]

    def apply(self, state: int, move: int) -> int:
        return ((state >> 1) - move) * 2 + (1 - (state & 1))

    def parse_position(self, text: str) -> int:
        match = re.fullmatch(r"(\d+) ([xo])", text)
        if not match or int(match.group(1)) > self.heap:
            raise MalformedPositionError(f"invalid position: {text!r} (tokens and side, e.g. '7 x')")
        return int(match.group(1)) * 2 + "xo".index(match.group(2))

    def format_position(self, state: int) -> str:
        return f"{state >> 1} {self.to_move(state)}"

    def parse_move(self, state: int, text: str) -> int:
        if text not in ("1", "2", "3") or int(text) not in self.legal_moves(state):
            raise IllegalMoveError(f"illegal move: {text!r}")
        return int(text)

    def format_move(self, move: int) -> str:
        return str(move)


VARIANTS = {"takeaway-21": lambda: TakeAway(21, "takeaway-21")}
CATALOG = ("takeaway-21",)
