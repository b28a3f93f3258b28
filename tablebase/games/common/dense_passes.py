"""The build, check and read-back of a dense index, by the compiled passes of its family.

An index class mixes in :class:`CompiledPasses` and names its family's
kernels (:meth:`CompiledPasses.kernels`); numba is imported only when a pass
runs, so reading a dense file needs no numba.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Iterator

if TYPE_CHECKING:
    import numpy as np

    from tablebase.games.common.dense_index import PlyCounts
    from tablebase.games.common.dense_kernels import Kernels
    from tablebase.progress import Progress


class CompiledPasses:
    """``solve``, ``check`` and ``positions`` of :class:`tablebase.games.common.dense_index.DenseIndex` over the
    kernels of :meth:`kernels` (see :mod:`tablebase.games.common.dense_kernels`)."""

    cells: int
    sizes: np.ndarray

    def kernels(self) -> Kernels:
        """The compiled passes of one ply of this index's family."""
        raise NotImplementedError

    def child_windows(self, ply: int, first: int, end: int) -> list[tuple[int, int]]:
        """Ranges ``(first, end)`` of slots of ``ply + 1``, sorted and disjoint, that hold every child
        of the slots ``first:end`` of ``ply`` (here: the whole next ply)."""
        return [(0, int(self.sizes[ply + 1]))] if ply + 1 < len(self.sizes) else []

    def solve(self, progress: Progress | None = None) -> Iterator[tuple[int, np.ndarray, PlyCounts]]:
        """Per ply, last first: ``(ply, values, counts)``, the values one ``np.uint8`` a slot, 0 where
        nothing is stored (needs numba)."""
        from tablebase.games.common import dense_kernels

        return dense_kernels.solve(self, self.kernels(), progress)

    def check(
        self, read: Callable[[int], np.ndarray], progress: Progress | None = None
    ) -> Iterator[tuple[int, int, np.ndarray]]:
        """Per ply, last first: ``(ply, positions checked, slots whose stored label disagrees with
        their children's)``, ``read(p)`` giving the stored bytes of ply ``p`` (needs numba)."""
        from tablebase.games.common import dense_kernels

        return dense_kernels.check(self, self.kernels(), read, progress)

    def positions(
        self, read: Callable[[int], np.ndarray], plies: tuple[int, int] | None = None
    ) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
        """Per ply (in ``plies``, inclusive, if given): ``(ply, states, packed values)`` of one position
        of each class, in the rules' canonical form (needs numba)."""
        from tablebase.games.common import dense_kernels

        return dense_kernels.positions(self, self.kernels(), read, plies)
