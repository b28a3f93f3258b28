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


_compile_listener: Progress | None = None


def on_compile(progress: Progress | None) -> Progress | None:
    """Send the notes of :func:`compiling` to ``progress`` from now on (``None``: to nowhere, the
    default, so the library says nothing unless asked); returns the listener it replaces."""
    global _compile_listener
    before, _compile_listener = _compile_listener, progress
    return before


def compiling(what: str, seconds: float) -> None:
    """Note that ``what`` (``"the connect4 search"``) is being compiled for its first use and will
    take about ``seconds``: the phase ``compiling WHAT (first use, about N s)...`` with ``done`` 0
    and ``total`` ``None``, to the listener :func:`on_compile` set, if any."""
    if _compile_listener is not None:
        _compile_listener(f"compiling {what} (first use, about {seconds:.0f} s)...", 0, None)


__all__ = ["Progress", "RUNS_ON", "compiling", "on_compile", "report_where"]
