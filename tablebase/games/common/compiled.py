"""Whether numba's cache holds a kernel's machine code, and the note a first use sends otherwise.

Numba compiles a kernel at its first call and keeps the machine code on disk
(``cache=True``: beside the module in ``__pycache__``, or in ``NUMBA_CACHE_DIR``),
keyed by the module's modification time and size and by the processor; a fresh
install, an edited module or another processor finds nothing there and compiles
again, which for the large searches takes seconds. :func:`announce_compile` tells
the listener of :func:`tablebase.progress.compiling` when that is about to happen.
"""

from __future__ import annotations

from typing import Any

from tablebase.progress import compiling


def is_cached(kernel: Any) -> bool:
    """Whether numba's on-disk cache holds machine code of ``kernel`` (a ``numba.njit(cache=True)``
    dispatcher) compiled from its module as it is now, for this processor; true where the cache
    cannot be read as this numba lays it out (nothing is known then, so nothing is said)."""
    try:
        index = kernel._cache._cache_file._load_index()
        machine = kernel.targetctx.codegen().magic_tuple()
    except Exception:
        return True
    return any(key[1] == machine for key in index)


def announce_compile(what: str, kernels: tuple[Any, ...], seconds: float) -> None:
    """Note through :func:`tablebase.progress.compiling` that ``what`` is compiled now (about
    ``seconds``) when one of ``kernels``, the entry points its first use calls, is not cached."""
    if not all(is_cached(kernel) for kernel in kernels):
        compiling(what, seconds)
