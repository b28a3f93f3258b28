"""The progress callback that long steps (enumeration, labelling, writing, audits) report through."""

from __future__ import annotations

from typing import Callable

#: ``progress(phase, done, total)``; ``total`` is ``None`` when unknown.
Progress = Callable[[str, int, "int | None"], None]

#: How a build says where its tasks run: once, before its phases, as the phase ``on <where>``
#: (``on dask scheduler tcp://host:8786 (2 workers connected), ...``) with ``done`` 0 and ``total``
#: ``None``; a note, not a phase of the build.
RUNS_ON = "on "


def report_where(progress: Progress | None, where: str) -> None:
    """Tell ``progress`` where the build runs (see :data:`RUNS_ON`)."""
    if progress is not None:
        progress(RUNS_ON + where, 0, None)


__all__ = ["Progress", "RUNS_ON", "report_where"]
