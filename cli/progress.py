"""The progress lines of the command line's long commands (build, solve, opening, verify)."""

from __future__ import annotations

import sys
import time
from typing import Any, Optional

from tablebase.progress import RUNS_ON


class BuildProgress:
    """A progress line per build phase (enumerate, label, write) on stderr.

    On a terminal the line is redrawn in place; otherwise (a log file) a
    phase gets its final line, plus a line every :attr:`LOG_EVERY` seconds
    while it lasts longer than that. Where the build runs
    (:data:`tablebase.progress.RUNS_ON`) gets a line of its own and is no phase.
    """

    LOG_EVERY = 30.0

    def __init__(self, name: str, stream: Any = None):
        self.name = name
        self.stream = stream or sys.stderr
        self.live = bool(getattr(self.stream, "isatty", lambda: False)())
        self.phase: Optional[str] = None
        self.started = 0.0
        self.last = ""
        self.shown = 0.0
        #: Seconds of every finished phase, in order.
        self.seconds: dict[str, float] = {}

    def __call__(self, phase: str, done: int, total: Optional[int]) -> None:
        if phase.startswith(RUNS_ON) and total is None:
            self.close()
            self.stream.write(f"{self.name}: {phase}\n")
            self.stream.flush()
            return
        now = time.perf_counter()
        if phase != self.phase:
            if phase in self.seconds:  # reported finished already
                return
            self.close()
            self.phase, self.started, self.shown = phase, now, 0.0
        if total is None and not done:
            text = f"{self.name}: {phase}"
        elif total:
            pct = 100.0 * done / total
            rate = done / max(now - self.started, 1e-9)
            eta = (total - done) / rate if rate > 0 else 0.0
            text = f"{self.name}: {phase:<9} {done:>12,}/{total:,} {pct:5.1f}%  eta {eta:5.1f} s"
        else:
            text = f"{self.name}: {phase:<9} {done:>12,}"
        self.last = text
        if self.live and now - self.shown > 0.1:
            self.shown = now
            self.stream.write("\r" + text + " " * 4)
            self.stream.flush()
        elif not self.live and now - self.shown > self.LOG_EVERY:
            self.shown = now
            if now - self.started > self.LOG_EVERY:
                self.stream.write(text + "\n")
                self.stream.flush()
        if total and done >= total:
            # the phase ends with its last item, not when the next one starts (schema work may come between)
            self.close()

    def summary(self, wall: float) -> str:
        """``wall`` seconds split into the phases and the rest (schema, setup), which add up to it;
        the phases of a layered build (``layer N enumerate``, ...) summed by their kind."""
        kinds: dict[str, float] = {}
        for phase, seconds in self.seconds.items():
            kind = phase.split()[-1] if phase.startswith("layer ") else phase
            kinds[kind] = kinds.get(kind, 0.0) + seconds
        parts = [f"{kind} {seconds:.2f}" for kind, seconds in kinds.items()]
        rest = wall - sum(self.seconds.values())
        return " + ".join([*parts, f"other {max(rest, 0.0):.2f}"])

    def close(self) -> None:
        if self.phase is None:
            return
        elapsed = time.perf_counter() - self.started
        self.seconds[self.phase] = elapsed
        end = f"  done in {elapsed:.2f} s"
        self.stream.write(("\r" if self.live else "") + self.last + end + "\n")
        self.stream.flush()
        self.phase = None


def compile_note(phase: str, done: int, total: Optional[int]) -> None:
    """A note of :func:`tablebase.progress.compiling` (code compiled on first use) as a line on stderr."""
    sys.stderr.write(phase + "\n")
    sys.stderr.flush()
