"""Pascal Pons' Connect Four score and the tablebase's value and distance.

Pons scores a position from the side to move: 0 for a draw; for a win,
``floor((W*H + 1 - m) / 2)`` where ``m`` is the number of discs on the board
just before the winning disc; a loss is the negated score of the winner.
With ``n`` discs on the board and the game ending ``d`` plies later, the last
disc is the ``(n + d)``-th, so the score is ``floor((W*H + 2 - n - d) / 2)``.
The side to move wins on odd ``d`` and loses on even ``d``, which makes the
mapping one-to-one.
"""

from __future__ import annotations

import time

from tablebase.games.compiled_search import CompiledSearch
from tablebase.games.connect4.bits import to_bitboards


def score_from_outcome(outcome: str, distance: int, discs: int, width: int, height: int) -> int:
    """Pons' score of a position with ``discs`` discs, given its outcome and distance."""
    if outcome == "draw":
        return 0
    magnitude = (width * height + 2 - discs - distance) // 2
    if outcome == "win":
        return magnitude
    if outcome == "loss":
        return -magnitude
    raise ValueError(f"unknown outcome: {outcome!r}")


def outcome_from_score(score: int, discs: int, width: int, height: int) -> tuple[str, int]:
    """Outcome and distance (plies to the end) of a position with ``discs`` discs and Pons' ``score``.

    >>> outcome_from_score(1, 0, 7, 6)
    ('win', 41)
    """
    cells = width * height
    if score == 0:
        return "draw", cells - discs
    magnitude = abs(score)
    parity = (discs + 1) % 2 if score > 0 else discs % 2
    for last in (cells + 2 - 2 * magnitude, cells + 1 - 2 * magnitude):
        if last % 2 == parity:
            distance = last - discs
            if distance < 1 or last > cells:
                break
            return ("win" if score > 0 else "loss"), distance
    raise ValueError(f"score {score} impossible with {discs} discs on {width}x{height}")


#: Nodes a search runs between looks at the clock, where it cannot be stopped at a deadline.
DEADLINE_CHUNK = 2_000_000


class ScoreSearch(CompiledSearch):
    """What a Connect Four search gives the generic search of :mod:`tablebase.solve.search` beyond
    :meth:`score`: labels and negamax values from scores, and no outcome entries of its own."""

    labels = True
    columns: int
    rows: int

    def score(self, state: int, budget: int | None = None) -> int | None:
        """Pons' score of a non-terminal state, ``None`` when ``budget`` nodes did not suffice."""
        raise NotImplementedError

    def mover(self, state: int) -> tuple[int, int, int]:
        """``(discs of the side to move, every disc, number of discs)`` of ``state`` as bitboards."""
        x_bits, mask = to_bitboards(state, self.columns, self.rows)
        moves = mask.bit_count()
        return (x_bits if moves % 2 == 0 else mask ^ x_bits), mask, moves

    def scores(self, states: list[int], budget: int | None = None, deadline: float | None = None) -> list[int | None]:
        """Pons' score of each non-terminal state of ``states``, ``None`` for those ``budget``
        nodes (all of them together) did not reach, or not reached by ``deadline``
        (:func:`time.perf_counter` seconds)."""
        found: list[int | None] = []
        left = budget
        for state in states:
            score = None
            while (left is None or left > 0) and (deadline is None or time.perf_counter() < deadline):
                before = self.nodes
                score = self.score(state, left if deadline is None else min(left or DEADLINE_CHUNK, DEADLINE_CHUNK))
                if left is not None:
                    left -= self.nodes - before
                if score is not None or deadline is None:
                    break
            found.append(score)
        return found

    def label(self, state: int, budget: int | None = None, deadline: float | None = None) -> tuple[str, int] | None:
        """``(outcome, distance)`` of a non-terminal state for its side to move, ``None`` when
        ``budget`` nodes or the time to ``deadline`` did not suffice."""
        return self.label_all([state], budget, deadline)[0]

    def label_all(
        self, states: list[int], budget: int | None = None, deadline: float | None = None
    ) -> list[tuple[str, int] | None]:
        """:meth:`label` of each non-terminal state of ``states``, proved together
        (:meth:`scores`); ``None`` for those ``budget`` nodes or the time to ``deadline`` did not reach."""
        return [self._label(state, score) for state, score in zip(states, self.scores(states, budget, deadline))]

    def _label(self, state: int, score: int | None) -> tuple[str, int] | None:
        if score is None:
            return None
        discs = to_bitboards(state, self.columns, self.rows)[1].bit_count()
        return outcome_from_score(score, discs, self.columns, self.rows)

    # what the generic search reads and writes of an outcome table: nothing is shared
    def get(self, state: int) -> tuple[int, int, int] | None:
        return None

    def __setitem__(self, state: int, entry: tuple[int, int, int], /) -> None:
        return None

    def search(self, state: int, alpha: int, beta: int, budget: int) -> tuple[int | None, int]:
        """Negamax value in -1..1 of a non-terminal state, ``None`` when ``budget`` nodes did not suffice."""
        before = self.nodes
        score = self.score(state, budget)
        nodes = self.nodes - before
        if score is None:
            return None, nodes
        return (score > 0) - (score < 0), nodes
