"""Machine check of seed 004's lower bound for Ultimate tic-tac-toe (Lemmas 4 and 5).

Runs ``check_lower_bound`` (the earliest turn at which X can have won against
O's strategy LBS, with the line that reaches it) and then ``check_funnel``
(every LBS line, unpruned, until X is to move at the given turns; the
invariant behind the search's bound checked in every position), printing
positions and seconds.

    python benchmarks/ultimate_lower_bound.py [LAST_TURN ...]   # default: 5 7 9
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tablebase.games.ultimate.lower_bound import check_funnel, check_lower_bound  # noqa: E402


def main() -> None:
    turns = [int(a) for a in sys.argv[1:]] or [5, 7, 9]
    print(f"load average at start: {os.getloadavg()[0]:.2f}")
    print(check_lower_bound().summary())
    for turn in turns:
        print(check_funnel(turn).summary())
    print(f"load average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
