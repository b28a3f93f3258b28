"""The progress callback the benchmark scripts share: seconds per kind of build phase."""

from __future__ import annotations

import sys
import time


class Phases:
    """Progress callback for ``Tablebase.build`` and the solvers: the seconds spent per kind of
    phase (the last word of its name), and with ``show`` a line on stderr every 5 s and at each
    phase's end. ``only`` counts just the phases whose names start with it; ``label`` prefixes the lines.
    """

    def __init__(self, label: str | None = None, *, only: str | None = None, show: bool = True) -> None:
        self.prefix = f"{label}: " if label else ""
        self.only = only
        self.show = show
        self.phase: str | None = None
        self.t0 = self.shown = 0.0
        self.seconds: dict[str, float] = {}

    def __call__(self, phase: str, done: int, total: int | None) -> None:
        now = time.perf_counter()
        if phase != self.phase:
            self.close(now)
            self.phase, self.t0, self.shown = phase, now, now
        elif self.show and now - self.shown > 5:
            self.shown = now
            shown = f"{done:,}/{total:,}" if total else f"{done:,}"
            sys.stderr.write(f"{self.prefix}{phase}: {shown}\n")
            sys.stderr.flush()

    def close(self, now: float | None = None) -> None:
        """End the current phase (call once more after the build)."""
        if self.phase is None:
            return
        now = time.perf_counter() if now is None else now
        if self.only is None or self.phase.startswith(self.only):
            kind = self.phase.split()[-1]
            self.seconds[kind] = self.seconds.get(kind, 0.0) + now - self.t0
            if self.show:
                sys.stderr.write(f"{self.prefix}{self.phase} {now - self.t0:.1f} s\n")
                sys.stderr.flush()
        self.phase = None
