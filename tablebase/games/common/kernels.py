"""Array kernels: a game's rules applied to many encoded states at once.

The vectorised builder (:mod:`tablebase.solve.vector`) works on numpy arrays
of states, never on single Python integers, so a game that wants to be built
at scale provides a :class:`VectorKernels` object as its ``vector``
attribute. States are the game's own integer encodings stored as
``np.uint64``; a game whose states do not fit in 64 bits keeps
``vector = None`` and is built on the scalar path.

Every kernel must agree exactly with the scalar rules of its game (tests
compare the two paths on every small variant):

* :meth:`VectorKernels.outcome` is :meth:`Game.outcome` as codes
  (:data:`UNKNOWN_CODE` while play goes on, else :data:`WIN_CODE`/:data:`LOSS_CODE`/:data:`DRAW_CODE`
  for the side to move);
* :meth:`VectorKernels.children` lists, for every non-terminal state, the
  pairs of :meth:`Game.children` in the same order;
* :meth:`VectorKernels.canonical` is the first element of :meth:`Game.canonical`.

:class:`BitboardKernels` implements the symmetry kernels for every
:class:`~tablebase.games.bitboard.BitboardGame` from its cell permutations.
Kernels are called on chunks of a few thousand states at a time, so that
their temporary arrays stay in the processor's cache.
"""

from __future__ import annotations

import sys
from abc import ABC, abstractmethod
from typing import Protocol, Sequence

import numpy as np

from tablebase.outcome import Code


class ScalarRules(Protocol):
    """What the array kernels read of a :class:`~tablebase.games.base.Game` (its scalar rules and notation)."""

    @property
    def name(self) -> str: ...

    def to_move(self, state: int) -> str: ...

    def format_position(self, state: int) -> str: ...

    def parse_position(self, text: str) -> int: ...


class BoardRules(ScalarRules, Protocol):
    """What :class:`BitboardKernels` reads of a :class:`~tablebase.games.bitboard.BitboardGame`."""

    @property
    def cells(self) -> int: ...

    @property
    def num_symmetries(self) -> int: ...

    def cell_permutation(self, sym: int) -> Sequence[int]: ...

    def swaps_colours(self, sym: int) -> bool: ...

#: Outcome codes of the array kernels and the solver (:class:`tablebase.outcome.Code`): play goes on, or the
#: result for the side to move.
UNKNOWN_CODE, WIN_CODE, LOSS_CODE, DRAW_CODE = (int(c) for c in Code)

#: Bits of a state covered by one symmetry lookup table.
_SLICE = 16


class VectorKernels(ABC):
    """The rules of one game over ``np.uint64`` arrays of encoded states."""

    #: ``True`` when every move adds one to :meth:`layer`, so the children of
    #: layer ``d`` all lie in layer ``d + 1`` and each layer can be
    #: deduplicated on its own (placement games: the layer is the number of
    #: marks). ``False`` for games whose positions can repeat.
    layered: bool = False

    def __init__(self, game: ScalarRules):
        self.game = game

    # -- rules ---------------------------------------------------------------

    @abstractmethod
    def outcome(self, states: np.ndarray) -> np.ndarray:
        """``np.int8`` outcome codes: :data:`UNKNOWN_CODE` where play goes on, else the result for the side to move."""

    @abstractmethod
    def children(self, states: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(parent, move, child)`` for every legal move of every state in ``states``.

        ``states`` holds non-terminal states only. ``parent`` indexes into
        ``states`` and is non-decreasing; within one parent the moves come in
        the order of :meth:`Game.legal_moves`. ``move`` holds the game's move
        codes, ``child`` the states after them (not canonicalised).
        """

    def layer(self, states: np.ndarray) -> np.ndarray:
        """The layer of each state (for :attr:`layered` games: moves played from the start)."""
        raise NotImplementedError(f"{type(self).__name__} has no layer function")

    # -- symmetry ------------------------------------------------------------

    def canonical(self, states: np.ndarray) -> np.ndarray:
        """The canonical form (smallest image under the symmetry group) of each state."""
        return np.array(states, dtype=np.uint64)

    def orbit_sizes(self, states: np.ndarray) -> np.ndarray:
        """How many distinct positions each state's symmetry class holds."""
        return np.ones(len(states), dtype=np.int64)

    # -- notation ------------------------------------------------------------

    def to_move(self, states: np.ndarray) -> list[str]:
        """The player to move in each state, as in :meth:`Game.to_move`."""
        game = self.game
        return [game.to_move(int(s)) for s in states]

    def format_positions(self, states: np.ndarray) -> list[str]:
        """The position string of each state, as in :meth:`Game.format_position`."""
        game = self.game
        return [game.format_position(int(s)) for s in states]

    def key_bytes(self, states: np.ndarray) -> np.ndarray:
        """The position strings of :meth:`format_positions` as a numpy ``S`` array of UTF-8 bytes (bulk writers)."""
        return np.array([text.encode() for text in self.format_positions(states)], dtype=bytes)

    def key_order(self, states: np.ndarray) -> np.ndarray | None:
        """An ``np.uint64`` per state that sorts like :meth:`format_positions` texts, or ``None`` if the game has none.

        Bulk writers insert rows in the order of the text key so that the
        unique index on it is appended to rather than updated at random.
        """
        return None

    def parse_positions(self, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """``(states, ok)``: each text parsed as by :meth:`Game.parse_position`; ``ok`` is ``False`` where that raises."""
        from tablebase.errors import TablebaseError

        game = self.game
        states = np.zeros(len(texts), dtype=np.uint64)
        ok = np.ones(len(texts), dtype=bool)
        for i, text in enumerate(texts):
            try:
                states[i] = game.parse_position(text)
            except TablebaseError:
                ok[i] = False
        return states, ok

    def __repr__(self) -> str:
        return f"<{type(self).__name__} of {self.game.name!r}>"


class BitboardKernels(VectorKernels):
    """Symmetry kernels of a :class:`~tablebase.games.bitboard.BitboardGame`.

    A symmetry permutes cells (and may exchange the colours, see
    :attr:`~tablebase.games.bitboard.BitboardGame.colour_swap`), so it maps the
    two bitboards bit by bit and leaves the bits above ``2 * cells`` alone. Each
    symmetry is applied with one lookup table per 16-bit slice of the
    bitboards: the image of a state is the OR of the images of its slices.
    Games whose states fit in 32 bits work in ``np.uint32`` throughout.
    """

    def __init__(self, game: BoardRules, state_bits: int = 64):
        """``state_bits``: how many low bits the game's states use (at least ``2 * cells``)."""
        super().__init__(game)
        self.cells = game.cells
        self.num_symmetries = game.num_symmetries
        width = 2 * game.cells
        self.slices = (width + _SLICE - 1) // _SLICE
        dtype = np.uint32 if state_bits <= 32 else np.uint64
        self.high_mask = dtype(((1 << state_bits) - 1) ^ ((1 << width) - 1))
        self.tables = np.zeros((self.num_symmetries, self.slices, 1 << _SLICE), dtype=dtype)
        values = np.arange(1 << _SLICE, dtype=np.uint64)
        n = game.cells
        for s in range(self.num_symmetries):
            perm, swap = game.cell_permutation(s), game.swaps_colours(s)
            image_bit = [((b >= n) != swap) * n + perm[b % n] for b in range(width)]
            for j in range(self.slices):
                image = np.zeros(1 << _SLICE, dtype=np.uint64)
                for b in range(_SLICE):
                    bit = j * _SLICE + b
                    if bit < width:
                        image |= ((values >> np.uint64(b)) & np.uint64(1)) << np.uint64(image_bit[bit])
                self.tables[s, j] = image.astype(dtype)

    def _slices(self, states: np.ndarray) -> list[np.ndarray]:
        """The 16-bit slices of each state, as table indices."""
        if sys.byteorder == "little":
            words = states.view(np.uint16).reshape(-1, 4)
            return [words[:, j].astype(np.intp) for j in range(self.slices)]
        mask = np.uint64(0xFFFF)
        return [((states >> np.uint64(_SLICE * j)) & mask).astype(np.intp) for j in range(self.slices)]

    def _image(self, states: np.ndarray, slices: list[np.ndarray], sym: int) -> np.ndarray:
        """The image under ``sym``, in the tables' dtype (``np.uint32`` for boards up to 16 cells)."""
        tables = self.tables[sym]
        out = np.take(tables[0], slices[0])
        for j in range(1, self.slices):
            out |= np.take(tables[j], slices[j])
        if self.high_mask:
            out |= (states & np.uint64(self.high_mask)).astype(out.dtype)
        return out

    def image(self, states: np.ndarray, sym: int) -> np.ndarray:
        """The image of each state under symmetry ``sym``."""
        states = np.ascontiguousarray(states, dtype=np.uint64)
        return self._image(states, self._slices(states), sym).astype(np.uint64)

    def canonical(self, states: np.ndarray) -> np.ndarray:
        states = np.ascontiguousarray(states, dtype=np.uint64)
        if self.num_symmetries == 1:
            return states.copy()
        slices = self._slices(states)
        best = states.astype(self.tables.dtype)
        for s in range(1, self.num_symmetries):
            np.minimum(best, self._image(states, slices, s), out=best)
        return best.astype(np.uint64)

    def orbit_sizes(self, states: np.ndarray) -> np.ndarray:
        states = np.ascontiguousarray(states, dtype=np.uint64)
        if self.num_symmetries == 1:
            return np.ones(len(states), dtype=np.int64)
        images = np.empty((len(states), self.num_symmetries), dtype=np.uint64)
        images[:, 0] = states
        slices = self._slices(states)
        for s in range(1, self.num_symmetries):
            images[:, s] = self._image(states, slices, s)
        images.sort(axis=1)
        sizes: np.ndarray = 1 + np.count_nonzero(images[:, 1:] != images[:, :-1], axis=1)
        return sizes


_BYTE_COUNTS = np.array([bin(b).count("1") for b in range(256)], dtype=np.uint8)


def popcount(values: np.ndarray) -> np.ndarray:
    """Number of set bits of each ``np.uint64`` value, as ``np.uint8``."""
    counts: np.ndarray
    if hasattr(np, "bitwise_count"):
        counts = np.bitwise_count(values)
    else:
        as_bytes = np.ascontiguousarray(values, dtype=np.uint64).view(np.uint8).reshape(-1, 8)
        counts = _BYTE_COUNTS[as_bytes].sum(axis=1, dtype=np.uint8)
    return counts
