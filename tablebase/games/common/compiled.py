"""Whether numba's cache holds a kernel's machine code, the note a first use sends otherwise, and
the compile of a first use shared with a second process.

Numba compiles a kernel at its first call and keeps the machine code on disk
(``cache=True``: beside the module in ``__pycache__``, or in ``NUMBA_CACHE_DIR``),
keyed by the module's modification time and size and by the processor; a fresh
install, an edited module or another processor finds nothing there and compiles
again, which for the large searches takes seconds. :func:`announce_compile` tells
the listener of :func:`tablebase.progress.compiling` when that is about to happen.
A kernel made by :func:`kernel` is compiled for the signatures it names, by :func:`ready`
(after the note, not on import); :class:`Beside` compiles some of them in another process
at the same time, into numba's cache, where :func:`ready` then finds them.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
from typing import Any, Callable, Iterable

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


def announce_compile(what: str, kernels: tuple[Any, ...], seconds: float) -> bool:
    """Note through :func:`tablebase.progress.compiling` that ``what`` is compiled now (about
    ``seconds``) when one of ``kernels``, the entry points its first use calls, is not cached;
    whether it did."""
    if all(is_cached(kernel) for kernel in kernels):
        return False
    compiling(what, seconds)
    return True


def kernel(*signatures: Any, python: bool = True, **options: Any) -> Callable[[Callable[..., Any]], Any]:
    """``numba.njit(cache=True, **options)``, a kernel that :func:`ready` compiles for
    ``signatures`` alone (``njit(signature)`` would compile them on import); ``python``: whether
    Python calls it (else only kernels do, and numba compiles no wrapper for Python's calls: a
    call from Python would crash the process)."""
    from numba import njit

    if not python:
        options = {**options, "no_cpython_wrapper": True, "no_cfunc_wrapper": True}

    def make(function: Callable[..., Any]) -> Any:
        dispatcher = njit(cache=True, **options)(function)
        dispatcher.declared = signatures
        return dispatcher

    return make


def ready(kernels: Iterable[Any]) -> None:
    """Compile each of ``kernels`` (made by :func:`kernel`, each after the ones it calls) for its
    signatures, or load them from numba's cache; from then on a call is converted to one of
    them (a literal argument, or an int8 where an int64 is declared, compiles nothing more)."""
    for each in kernels:
        if not each._can_compile:
            continue
        for signature in each.declared:
            each.compile(signature)
        each.disable_compile()


class Beside:
    """A second process that compiles the kernels of ``module``'s ``BESIDE`` (stages of
    :func:`kernel` kernels, each :func:`ready` in turn) into numba's cache, saying when each
    stage is done; :meth:`wait` waits for a stage and readies its kernels here (from the cache,
    or compiled here if that process failed)."""

    def __init__(self, module: str):
        self.stages: tuple[tuple[Any, ...], ...] = importlib.import_module(module).BESIDE
        self.done = -1
        command = f"from tablebase.games.common.compiled import _compile_beside; _compile_beside({module!r})"
        self.process = subprocess.Popen(
            [sys.executable, "-c", command], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, text=True,
        )

    def wait(self, stage: int) -> None:
        """Wait until stage ``stage`` is compiled (or the process has stopped), then ready its kernels."""
        out = self.process.stdout
        while out is not None and not out.closed and self.done < stage:
            line = out.readline()
            if line.strip().isdigit():
                self.done = int(line)
            else:
                out.close()
        if out is not None and not out.closed and stage == len(self.stages) - 1:
            out.close()
        if out is None or out.closed:
            self.process.wait()
        ready(self.stages[stage])


def _compile_beside(module: str) -> None:
    """What the process of :class:`Beside` runs: each stage of ``module``'s ``BESIDE``, its number
    printed when it is in numba's cache."""
    for stage, kernels in enumerate(importlib.import_module(module).BESIDE):
        ready(kernels)
        print(stage, flush=True)
