"""The progress callback that long steps (enumeration, labelling, writing, audits) report through."""

from __future__ import annotations

from typing import Callable

#: ``progress(phase, done, total)``; ``total`` is ``None`` when unknown.
Progress = Callable[[str, int, "int | None"], None]

__all__ = ["Progress"]
