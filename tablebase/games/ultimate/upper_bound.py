"""Seed 004's upper bound checked by machine: Xavier's winning strategy as the game ``ultimate-strategy``.

Seed 004 (Bertholon, Géraud-Stewart, Kugelmann, Lenoir, Naccache, *At most 43
moves, at least 29*) gives X a strategy that wins under the ``ultimate`` rules
(a won field stays playable) against every O. :class:`UltimateStrategy` is those
rules with X bound to it: X's only legal move is the one the strategy
prescribes. :func:`check_strategy` solves that game whole, with the solver it
is given, and reads off whether every game ends in an X win and how long the
longest one is. O's strategy for the lower bound is :mod:`.lower_bound`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Protocol

from tablebase.errors import MalformedPositionError
from tablebase.games.base import DRAW, LOSS, Game, Outcome
from tablebase.games.notation import parse_cell
from tablebase.games.ultimate.rules import (
    ACTIVE,
    ANY,
    FIELD_OF,
    FULL,
    M162,
    MOVE_IMG,
    MOVE_OF_GRID,
    O_SHIFT,
    P3,
    SPOT_OF,
    Ultimate,
    move_name,
)

OPENING, MIDDLE, ENDGAME = 0, 1, 2
PHASE_NAMES = ("opening", "middle", "endgame")
PHASE = 184  # 2 bits
B_SHIFT = 186  # 4 bits: b, or NO_B
NO_B = 9
PRESC = 190  # 7 bits: 1 + the prescribed move, 0 when o is to move or none is defined
FAIL = 197  # 1 bit: x to move and the strategy prescribes no legal move


class UltimateStrategy(Ultimate):
    """The ``ultimate`` rules where X follows seed 004's winning strategy.

    X's only legal move is the one the strategy prescribes; O may play any
    legal move. The state carries what the strategy needs: the phase
    (opening, middle game, endgame), the field ``b`` and, when X is to move,
    the prescribed move, computed from O's last move when O plays.

    If the strategy prescribes nothing (O's move is not covered by its rules)
    or an illegal move, the position is marked as a *failure*: it is terminal,
    counted as a loss for X, and :func:`check_strategy` reports it. Nothing is
    patched.

    The strategy, with cells ``(field, spot)``:

    * opening: X plays (4,4); whenever O plays (4,a), X plays (a,4); O's
      eighth move (4,b) fills the centre field;
    * middle game: X plays (b,b). When O plays (b,i) with i not 4 nor 8-b,
      X plays (i,b); when O plays (b,4) or (b,8-b), X plays (8-b,b) if it is
      free, otherwise (8-b,8-b), which ends the middle game;
    * endgame: sent to field i, X plays (i,b) if free, otherwise (i,8-b).

    Position strings add three tokens: the phase the next O move is answered
    in (``opening``, ``middle``, ``endgame``), ``b=`` the field b (or ``-``)
    and ``next=`` X's prescribed move (a cell, ``-`` when O is to move, ``?``
    when none is defined, a cell followed by ``!`` when it is illegal).
    """

    enumerable = True

    def __init__(self) -> None:
        super().__init__(classic=False, name="ultimate-strategy")
        self.rules = "ultimate rules; x follows seed 004's winning strategy, o plays anything"

    def parameters(self) -> dict[str, Any]:
        return {"closed_fields": False, "strategy": "seed 004"}

    def initial_state(self) -> int:
        return (ANY << ACTIVE) | (OPENING << PHASE) | (NO_B << B_SHIFT) | ((40 + 1) << PRESC)

    def outcome(self, state: int) -> Outcome | None:
        result = super().outcome(state)
        if result is None and state >> FAIL & 1:
            return LOSS
        return result

    @staticmethod
    def phase(state: int) -> int:
        return (state >> PHASE) & 3

    @staticmethod
    def b(state: int) -> int | None:
        b = (state >> B_SHIFT) & 15
        return None if b == NO_B else b

    @staticmethod
    def prescribed(state: int) -> int | None:
        p = (state >> PRESC) & 127
        return None if p == 0 else p - 1

    @staticmethod
    def failed(state: int) -> bool:
        return bool(state >> FAIL & 1)

    def children(self, state: int) -> list[tuple[int, int]]:
        return Game.children(self, state)

    def successors(self, state: int) -> list[tuple[int, int, Outcome | None, int]]:
        return Game.successors(self, state)

    def outcome_table(self, state: int, time_limit: float | None = None, memory: int | None = None) -> None:
        return None

    def move_count(self, state: int) -> int:
        return len(self.legal_moves(state))

    def legal_moves(self, state: int) -> list[int]:
        if (state & M162).bit_count() & 1:
            return super().legal_moves(state)
        p = (state >> PRESC) & 127
        return [p - 1] if p and not state >> FAIL & 1 else []

    def apply(self, state: int, move: int) -> int:
        strategy = state >> PHASE << PHASE
        new = super().apply(state & ((1 << PHASE) - 1), move)
        if (state & M162).bit_count() & 1 == 0:
            # x played the prescribed move: keep phase and b, clear the prescription
            return new | (strategy & ~(127 << PRESC) & ~(1 << FAIL))
        phase = (state >> PHASE) & 3
        b = (state >> B_SHIFT) & 15
        presc, phase, b = self._prescribe(new, move, phase, b)
        new |= (phase << PHASE) | (b << B_SHIFT)
        if super().outcome(new) is not None:
            return new
        if presc is None:
            return new | (1 << FAIL)
        new |= (presc + 1) << PRESC
        if presc not in super().legal_moves(new):
            new |= 1 << FAIL
        return new

    @staticmethod
    def _prescribe(state: int, o_move: int, phase: int, b: int) -> tuple[int | None, int, int]:
        """X's reply to O's ``o_move``: ``(move or None, phase for the next O move, b)``."""
        g, i = FIELD_OF[o_move], SPOT_OF[o_move]
        occ = state | state >> O_SHIFT
        if phase == OPENING:
            if g != 4:
                return None, phase, b
            if (occ >> 36) & 511 == FULL:  # o's eighth move (4,b)
                return 9 * i + i, MIDDLE, i
            return 9 * i + 4, OPENING, b
        if phase == MIDDLE:
            if g != b:
                return None, phase, b
            if i != 4 and i != 8 - b:
                return 9 * i + b, MIDDLE, b
            first = 9 * (8 - b) + b
            if not occ >> first & 1:
                return first, MIDDLE, b
            return 9 * (8 - b) + (8 - b), ENDGAME, b
        # endgame: sent to field i
        first = 9 * i + b
        if not occ >> first & 1:
            return first, ENDGAME, b
        return 9 * i + (8 - b), ENDGAME, b

    def _high_image(self, high: int, sym: int) -> int:
        base = super()._high_image(high & ((1 << 22) - 1), sym)
        phase = (high >> 22) & 3
        b = (high >> 24) & 15
        presc = (high >> 28) & 127
        fail = high >> 35 & 1
        b_img = b if b == NO_B else P3[sym][b]
        p_img = 0 if presc == 0 else MOVE_IMG[sym][presc - 1] + 1
        return base | (phase << 22) | (b_img << 24) | (p_img << 28) | (fail << 35)

    # -- notation ------------------------------------------------------------

    def format_position(self, state: int) -> str:
        b = self.b(state)
        p = self.prescribed(state)
        if p is None:
            nxt = "?" if self.failed(state) else "-"
        else:
            nxt = move_name(p) + ("!" if self.failed(state) else "")
        return (
            f"{super().format_position(state)} {PHASE_NAMES[self.phase(state)]} "
            f"b={'-' if b is None else b} next={nxt}"
        )

    def parse_position(self, text: str) -> int:
        if not isinstance(text, str):
            raise MalformedPositionError(f"position must be a string, got {text!r}")
        tokens = text.split(" ")
        if len(tokens) < 6:
            raise MalformedPositionError(
                f"invalid position {text!r}: expected '<board> <side> <field> <phase> b=<field|-> next=<cell|-|?>'"
            )
        phase_text, b_text, next_text = tokens[-3:]
        state = self._parse_tokens(text, tokens[:-3])

        def bad(why: str) -> MalformedPositionError:
            return MalformedPositionError(f"invalid position {text!r}: {why}")

        if phase_text not in PHASE_NAMES:
            raise bad(f"phase must be one of {', '.join(PHASE_NAMES)}, got {phase_text!r}")
        phase = PHASE_NAMES.index(phase_text)
        if not b_text.startswith("b=") or b_text[2:] not in ("-",) + tuple("012345678"):
            raise bad(f"expected b=<field 0..8 or ->, got {b_text!r}")
        b = NO_B if b_text[2:] == "-" else int(b_text[2:])
        if (b == NO_B) != (phase == OPENING):
            raise bad("b is set exactly when the opening is over")
        if not next_text.startswith("next="):
            raise bad(f"expected next=<cell, - or ?>, got {next_text!r}")
        nxt = next_text[5:]
        fail = 0
        presc = 0
        if nxt == "?":
            fail = 1
        elif nxt != "-":
            if nxt.endswith("!"):
                fail, nxt = 1, nxt[:-1]
            grid = parse_cell(nxt, 9, 9)
            if grid is None:
                raise bad(f"next= must name a cell a1..i9, '-' or '?', got {next_text[5:]!r}")
            presc = MOVE_OF_GRID[grid] + 1
        x_to_move = self.to_move(state) == "x"
        if not x_to_move and (presc or fail):
            raise bad("next= names x's move, but o is to move")
        state |= (phase << PHASE) | (b << B_SHIFT) | (presc << PRESC) | (fail << FAIL)
        if x_to_move and Ultimate.outcome(self, state) is None and not presc and not fail:
            raise bad("x is to move: next= must name the prescribed move")
        if presc and bool(fail) == (presc - 1 in Ultimate.legal_moves(self, state)):
            raise bad(f"next={next_text[5:]} is marked {'illegal' if fail else 'legal'} but is {'legal' if fail else 'illegal'}")
        return state

    def _why_illegal(self, state: int, move: int) -> str:
        if self.to_move(state) == "x":
            p = self.prescribed(state)
            if p is None or self.failed(state):
                return "the strategy has no legal move here"
            return f"x follows the strategy, which plays {move_name(p)}"
        return super()._why_illegal(state, move)


@dataclass
class StrategyReport:
    """What :func:`check_strategy` found."""

    positions: int
    moves: int
    symmetry: bool
    #: Terminal positions by kind: ``x wins``, ``o wins``, ``draw``, ``failure``.
    terminals: dict[str, int]
    #: Every game ends in an X win (no draw, no O win, no failure is reachable).
    all_x_wins: bool
    #: The prescribed move is defined and legal in every reachable position.
    always_defined: bool
    #: The first failing position (breadth-first order), as a position string.
    first_failure: str | None
    #: Outcome of the start position for X and its distance: the longest game in plies.
    root_outcome: str
    longest_game: int | None
    seconds: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "positions": self.positions,
            "moves": self.moves,
            "symmetry": self.symmetry,
            "terminals": dict(self.terminals),
            "all_x_wins": self.all_x_wins,
            "always_defined": self.always_defined,
            "first_failure": self.first_failure,
            "root_outcome": self.root_outcome,
            "longest_game": self.longest_game,
            "seconds": {k: round(v, 3) for k, v in self.seconds.items()},
        }

    def summary(self) -> str:
        lines = [
            f"positions: {self.positions:,} ({'up to symmetry' if self.symmetry else 'no symmetry reduction'}), moves: {self.moves:,}",
            f"prescribed move always defined and legal: {'yes' if self.always_defined else 'NO'}",
            "terminal positions: " + ", ".join(f"{k} {v:,}" for k, v in self.terminals.items()),
            f"every game ends in an x win: {'yes' if self.all_x_wins else 'NO'}",
            f"start position: {self.root_outcome} for x; longest game: {self.longest_game} plies",
            "seconds: " + ", ".join(f"{k} {v:.1f}" for k, v in self.seconds.items()),
        ]
        if self.first_failure:
            lines.append(f"first failure: {self.first_failure}")
        return "\n".join(lines)


class Solved(Protocol):
    """What :func:`check_strategy` reads of a solved game (a :class:`tablebase.solve.Solution`)."""

    @property
    def states(self) -> Iterable[int]: ...

    @property
    def num_states(self) -> int: ...

    @property
    def num_moves(self) -> int: ...

    @property
    def seconds(self) -> dict[str, float]: ...

    def result(self) -> tuple[str, int | None]: ...


#: A solver of whole games, called as ``solve(game, symmetry=...)`` (:func:`tablebase.solve.solve`).
SolveFunction = Callable[..., Solved]


def check_strategy(solve: SolveFunction, symmetry: bool = True, game: UltimateStrategy | None = None) -> StrategyReport:
    """Enumerate and solve ``ultimate-strategy`` with ``solve``; check that seed 004's strategy always wins.

    Every game that can arise when X follows the strategy is a path in the
    state graph built by the ordinary builder; since X never has a choice,
    the start position is won for X exactly when every game ends in an X
    win, and its distance (the loser's slowest loss) is the longest game.
    The terminal positions are also counted directly. ``game`` replaces the
    strategy game (to check a variation of the strategy).
    """
    game = game or UltimateStrategy()
    t0 = time.perf_counter()
    solution = solve(game, symmetry=symmetry)
    seconds = dict(solution.seconds)
    terminals = {"x wins": 0, "o wins": 0, "draw": 0, "failure": 0}
    first_failure = None
    for state in solution.states:
        if Ultimate.outcome(game, state) is not None:
            if Ultimate.outcome(game, state) == DRAW:
                terminals["draw"] += 1
            elif game.to_move(state) == "o":
                terminals["x wins"] += 1
            else:
                terminals["o wins"] += 1
        elif game.failed(state):
            terminals["failure"] += 1
            if first_failure is None:
                first_failure = game.format_position(state)
    outcome, distance = solution.result()
    seconds["total"] = time.perf_counter() - t0
    return StrategyReport(
        positions=solution.num_states,
        moves=solution.num_moves,
        symmetry=symmetry,
        terminals=terminals,
        all_x_wins=terminals["x wins"] > 0 and sum(terminals.values()) == terminals["x wins"],
        always_defined=terminals["failure"] == 0,
        first_failure=first_failure,
        root_outcome=outcome,
        longest_game=distance,
        seconds=seconds,
    )


def ultimate_strategy() -> UltimateStrategy:
    """``ultimate`` with X bound to seed 004's winning strategy."""
    return UltimateStrategy()


__all__ = ["SolveFunction", "Solved", "StrategyReport", "UltimateStrategy", "check_strategy", "ultimate_strategy"]
