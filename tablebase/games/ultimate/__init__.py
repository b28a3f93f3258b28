"""Ultimate tic-tac-toe: the family package registered as ``ultimate``.

The rules, notation and board drawing are :mod:`.rules`, over the lines of a field and the marks
each side still needs to make one (:mod:`.lines`); seed 004's winning strategy for X as
the game ``ultimate-strategy``, and its check, :mod:`.upper_bound`; O's strategy LBS checked by
machine :mod:`.lower_bound`; and :mod:`.strategies`, registered on its own, the registry's
strategy hook over both. The compiled searches (numba) are :mod:`.search` (the outcome, distance
and proof-number searches, written once over one explicit stack), over the compiled rules and
bounds of :mod:`.fields` and the tables of :mod:`.table`.
"""

from typing import Callable

from tablebase.games.base import Game
from tablebase.games.ultimate.rules import ANY, Ultimate, field_span, move_name, ultimate, ultimate_classic
from tablebase.games.ultimate.upper_bound import StrategyReport, UltimateStrategy, check_strategy, ultimate_strategy

VARIANTS: dict[str, Callable[[], Game]] = {
    "ultimate": ultimate,
    "ultimate-classic": ultimate_classic,
    "ultimate-strategy": ultimate_strategy,
}

#: Ultimate is far too large to build whole; the strategy game is small.
CATALOG = ("ultimate-strategy",)

__all__ = [
    "ANY", "CATALOG", "VARIANTS", "StrategyReport", "Ultimate", "UltimateStrategy",
    "check_strategy", "field_span", "move_name", "ultimate", "ultimate_classic", "ultimate_strategy",
]
