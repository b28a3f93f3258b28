"""Machine check of seed 004's winning strategy for X in Ultimate tic-tac-toe.

Builds ``ultimate-strategy`` (the ``ultimate`` rules with X bound to the
strategy, O free) with the ordinary builder, with and without symmetry
reduction, and reports: whether the prescribed move is always defined and
legal, whether every game ends in an X win, the number of positions, the
longest game in plies (seed 004: at most 43) and the time taken.

    python benchmarks/ultimate_strategy.py
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tablebase.games.ultimate import check_strategy  # noqa: E402
from tablebase.solve import solve  # noqa: E402


def main() -> None:
    for symmetry in (True, False):
        report = check_strategy(solve, symmetry=symmetry)
        print(report.summary())
        print()


if __name__ == "__main__":
    main()
