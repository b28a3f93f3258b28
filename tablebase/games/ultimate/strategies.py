"""The by-machine checks of seed 004's strategies for Ultimate tic-tac-toe, as the registry's
strategy hook (``STRATEGIES`` and ``check_strategies``; see :func:`tablebase.games.check_strategy`).

Registered in the ``tablebase.games`` entry point group on its own, with no
variants, so that the rules (:mod:`tablebase.games.ultimate.rules`) do not import
the checks written over them (:mod:`tablebase.games.ultimate.lower_bound`). The check that
solves a game whole is handed the solver (the rules sit below it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from tablebase.games.base import Game
from tablebase.games.ultimate.lower_bound import check_funnel, check_lower_bound
from tablebase.games.ultimate.upper_bound import SolveFunction, check_strategy

#: No variants of its own: the strategies are those of :mod:`tablebase.games.ultimate`'s variants.
VARIANTS: dict[str, Callable[[], Game]] = {}

#: Variants whose seed strategies :func:`check_strategies` checks.
STRATEGIES = ("ultimate",)


@dataclass
class StrategyChecks:
    """What :func:`check_strategies` ran: one strategy report, and the unpruned walk when asked."""

    report: Any
    walk: Any = None

    def to_dict(self) -> dict[str, Any]:
        """The report's dict, with the walk's under ``funnel_walk`` when there is one."""
        out: dict[str, Any] = self.report.to_dict()
        if self.walk is not None:
            out["funnel_walk"] = self.walk.to_dict()
        return out

    def summary(self) -> str:
        """The report's summary lines, then the walk's."""
        parts = [self.report.summary()] + ([self.walk.summary()] if self.walk is not None else [])
        return "\n".join(parts)


def check_strategies(solve: SolveFunction, lower_bound: bool = False, walk_to: int = 0) -> StrategyChecks:
    """Seed 004's strategies checked by machine: x's win within 43 moves (its game solved with
    ``solve``), or with ``lower_bound`` o's strategy LBS (no x win before turn 29), plus the
    unpruned LBS walk to ``walk_to`` when given."""
    if not lower_bound:
        return StrategyChecks(check_strategy(solve))
    return StrategyChecks(check_lower_bound(), check_funnel(walk_to) if walk_to else None)


__all__ = ["STRATEGIES", "VARIANTS", "StrategyChecks", "check_strategies"]
