"""Wall time of one ``tablebase probe`` from the command line, against a bare interpreter start.

A probe from a script in a loop pays the interpreter start, the imports and
the registry lookup every time; this prints the median, minimum and 90th
percentile of ``--runs`` probes of tictactoe, and the same for ``python -c pass``
(the floor no change to the package can go under) and for
``python -c "import importlib.metadata"`` (what reading every installed
package's entry points would add). Run it with bytecode caches allowed
(``PYTHONDONTWRITEBYTECODE`` unset): otherwise every run compiles the package again.

    python benchmarks/cli_startup.py --runs 30
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import tablebase


def timed(command: list[str], runs: int) -> list[float]:
    """Milliseconds of each of ``runs`` runs of ``command`` (after one untimed run that writes bytecode caches)."""
    subprocess.run(command, stdout=subprocess.DEVNULL, check=True)
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, stdout=subprocess.DEVNULL, check=True)
        out.append((time.perf_counter() - start) * 1000)
    return sorted(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    script = shutil.which("tablebase") or str(Path(sys.executable).with_name("tablebase"))
    with tempfile.TemporaryDirectory() as folder:
        db = str(Path(folder) / "t.db")
        with tablebase.open(db) as tb:
            tb.build("tictactoe")
        rows = {
            "python -c pass": timed([sys.executable, "-c", "pass"], args.runs),
            "python -c 'import importlib.metadata'": timed([sys.executable, "-c", "import importlib.metadata"], args.runs),
            "tablebase probe tictactoe x../.o./...": timed([script, "probe", "tictactoe", "x../.o./...", "--db", db], args.runs),
        }
    floor = statistics.median(rows["python -c pass"])
    print(f"{'command':40} {'median ms':>10} {'min':>7} {'p90':>7} {'- python':>9}")
    for name, ms in rows.items():
        p90 = ms[int(0.9 * (len(ms) - 1))]
        print(f"{name:40} {statistics.median(ms):10.1f} {ms[0]:7.1f} {p90:7.1f} {statistics.median(ms) - floor:9.1f}")


if __name__ == "__main__":
    main()
