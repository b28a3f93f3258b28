"""Ultimate tic-tac-toe: the family package registered as ``ultimate``.

The rules and seed 003's strategy are :mod:`.rules`; the compiled outcome and distance
searches :mod:`.search`; seed 004's lower-bound strategy checked by machine
:mod:`.lower_bound`; and :mod:`.strategies`, registered on its own, the registry's
strategy hook over both.
"""

from tablebase.games.ultimate.rules import (
    ANY,
    CATALOG,
    VARIANTS,
    StrategyReport,
    Ultimate,
    UltimateStrategy,
    check_strategy,
    field_span,
    move_name,
    ultimate,
    ultimate_classic,
    ultimate_strategy,
)

__all__ = [
    "ANY", "CATALOG", "VARIANTS", "StrategyReport", "Ultimate", "UltimateStrategy",
    "check_strategy", "field_span", "move_name", "ultimate", "ultimate_classic", "ultimate_strategy",
]
