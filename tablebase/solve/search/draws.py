"""Step 3 of :func:`tablebase.solve.search.prove`: the draw length of a drawn position, the longest
line through drawn positions, searched from the long side where the game bounds the plies left."""

from __future__ import annotations

from typing import Callable, cast

from tablebase.games.base import DRAW
from tablebase.solve.search import base
from tablebase.scores import M
from tablebase.solve.search.base import _at_most_zero, _OverBudget
from tablebase.solve.search.distance import _DistanceSearch


class _DrawSearch(_DistanceSearch):
    def draw_length(self, state: int) -> int:
        """The longest line of drawn positions from the drawn ``state`` to the end."""
        known = self.draw_len.get(state)
        if known is not None:
            return known
        if self.game.outcome(state) is not None:
            return 0
        fixed = self.game.draw_length(state)
        if fixed is not None:
            self.draw_len[state] = fixed
            return fixed
        bound = self.max_plies(state)
        if bound is None:
            return self._draw_length_dfs(state)
        # from the long side: is there a drawn line of length >= L, for L = bound, bound - 1, ...
        length = min(bound, self.draw_ub.get(state, M))
        while not self._drawn_line_by_turns(state, length):
            length -= 1
        self.draw_len[state] = length
        return length

    def _drawn_line_by_turns(self, state: int, length: int) -> bool:
        """:meth:`_drawn_line` in both move orders by turns, each within a node budget that
        grows fourfold every round: one order can walk into a huge subtree without the line
        that the other finds in a few dozen nodes."""
        budget = base.DRAW_BUDGET
        try:
            while True:
                for order in base.DRAW_ORDERS:
                    self.draw_order, self.draw_budget = order, budget
                    try:
                        return self._drawn_line(state, length)
                    except _OverBudget:
                        pass
                budget *= 4
        finally:
            self.draw_order, self.draw_budget = 0, None

    def _drawn_line(self, state: int, length: int) -> bool:
        """Whether the drawn, non-terminal ``state`` starts a line of drawn positions at least ``length`` long."""
        if length <= self.draw_lb.get(state, 1):
            return True  # a drawn position always has a drawn move
        bound = self.draw_ub.get(state)
        if bound is None:
            bound = cast(int, self.max_plies(state))  # only called when the game gives bounds
        if bound < length:
            return False
        self._tick()
        self.draw_nodes += 1
        if self.draw_budget is not None:
            self.draw_budget -= 1
            if self.draw_budget < 0:
                raise _OverBudget
        game = self.game
        max_plies = cast(Callable[[int], int], self.max_plies)
        count = self.move_count
        wdl = self.wdl
        # longest bound first; among equal bounds, in order 0 the children the outcome table already
        # knows to be drawn (worth at most 0 to their mover, and at least 0 as the parent is drawn)
        # first, then those with the most replies; in order 1 those with the fewest replies first
        if self.draw_order == 0:
            kids = sorted(((max_plies(c), _at_most_zero(wdl.get(c)), count(c), c) for _m, c in self._children(state)), reverse=True)
        else:
            kids = sorted(((max_plies(c), True, -count(c), c) for _m, c in self._children(state)), reverse=True)
        found = False
        for plies, _, _, child in kids:
            if plies < length - 1:
                break  # sorted: no later child can be long enough
            if game.outcome(child) is not None:
                continue  # a terminal child makes a line of 1, and length > 1 here
            child_bound = self.draw_ub.get(child)
            if child_bound is not None and child_bound < length - 1:
                continue
            # the parent is drawn, so the child is worth >= 0 to its mover: drawn unless a win
            if self.wdl_search(child, 0, 1) > 0:
                continue
            if self._drawn_line(child, length - 1):
                found = True
                break
        if not found:
            self.draw_ub[state] = length - 1
            if length - 1 == self.draw_lb.get(state, 1):
                self.draw_len[state] = length - 1
            return False
        self.draw_lb[state] = length
        if length == bound:
            self.draw_len[state] = length
        return True

    def _draw_length_dfs(self, state: int) -> int:
        """:meth:`draw_length` without a length hint: every drawn child, depth first."""
        known = self.draw_len.get(state)
        if known is not None:
            return known
        self._tick()
        self.draw_nodes += 1
        game = self.game
        best = -1
        for _move, child in self._children(state):
            result = game.outcome(child)
            if result is not None:
                if result == DRAW:
                    best = max(best, 0)
                continue
            # the parent is drawn, so the child is worth >= 0 to its mover: drawn unless a win
            if self.wdl_search(child, 0, 1) <= 0:
                best = max(best, self._draw_length_dfs(child))
        if best < 0:
            raise AssertionError(f"drawn state {state} has no drawn child")
        self.draw_len[state] = best + 1
        return best + 1
