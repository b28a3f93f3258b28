"""The rules protocol every game family implements.

A game is a set of rules for one variant (``tictactoe``, ``mnk-4-4-4``, ...).
States and moves are plain Python integers chosen by the game; everything
outside :mod:`tablebase.games` treats them as opaque values and talks to the
game only through the methods below, so the solver, the store, the query
layer and the CLI stay free of game-specific code.

Conventions:

* outcomes are from the point of view of the side to move: ``"win"``,
  ``"loss"`` or ``"draw"``;
* ``outcome(state)`` is ``None`` for a state where play goes on, and the
  result for the side to move once the game is over (a state with no legal
  move must be terminal);
* symmetries are numbered ``0 .. num_symmetries - 1`` with 0 the identity;
  ``transform(state, s)`` and ``transform_move(move, s)`` apply symmetry
  ``s``; the canonical form of a state is its smallest image. Every
  symmetry keeps the side to move (one stored position stands for its
  class); symmetries that exchange the players are not supported.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Sequence

from tablebase.outcome import DRAW as DRAW
from tablebase.outcome import LOSS as LOSS
from tablebase.outcome import WIN as WIN
from tablebase.outcome import Outcome as Outcome

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

    from tablebase.games.common.dense_index import DenseIndex
    from tablebase.games.compiled_search import CompiledSearch
    from tablebase.games.common.kernels import VectorKernels
    from tablebase.games.layout import BoardMarks, Layout
    from tablebase.games.tiering import DenseTiers


class Game(ABC):
    """Rules of one game variant."""

    #: Family module name, e.g. ``"mnk"``.
    family: ClassVar[str] = ""
    #: Names of the two players, first player first.
    players: ClassVar[tuple[str, str]] = ("x", "o")
    #: Whether positions can repeat (movement games); draws there have no distance.
    cyclic: ClassVar[bool] = False
    #: Whether ``tablebase build`` can enumerate every reachable state.
    enumerable: ClassVar[bool] = True

    #: Registered variant name, e.g. ``"mnk-4-4-4"``.
    name: str
    #: One line of rules for listings.
    rules: str = ""

    def parameters(self) -> dict[str, Any]:
        """The parameters that define this variant (stored as JSON)."""
        return {}

    # -- rules ---------------------------------------------------------------

    @abstractmethod
    def initial_state(self) -> int:
        """The start position."""

    @abstractmethod
    def to_move(self, state: int) -> str:
        """The player to move, one of :attr:`players`."""

    @abstractmethod
    def outcome(self, state: int) -> Outcome | None:
        """The result for the side to move if the game is over, else ``None``."""

    @abstractmethod
    def legal_moves(self, state: int) -> list[int]:
        """Every legal move in a non-terminal state, in a fixed order."""

    @abstractmethod
    def apply(self, state: int, move: int) -> int:
        """The state after ``move``; ``state`` itself is not changed."""

    def size_bound(self, symmetry: bool = True) -> int | None:
        """An upper bound on the number of states (classes with ``symmetry``), ``None`` if unknown."""
        return None

    def tiering(self, limit: int | None = None) -> DenseTiers | None:
        """The game's tiers of at most ``limit`` (the family's measure: Morris, stones a side; ``None``:
        every tier of the game) for a build tier by tier (:class:`~tablebase.games.tiering.DenseTiers`);
        ``None`` for a game not cut into tiers. A ``limit`` out of the game's range raises ``ValueError``."""
        return None

    def tier_name(self, number: int) -> str | None:
        """The name of the tier a build tier by tier stores under ``number`` (:meth:`DenseTiers.name
        <tablebase.games.tiering.DenseTiers.name>`); ``None`` when no tier is stored so."""
        return None

    def plies_played(self, state: int) -> int | None:
        """Moves made from the start to ``state`` when the position alone tells it
        (placement games: the number of marks), else ``None``."""
        return None

    def move_count(self, state: int) -> int:
        """``len(legal_moves(state))``; games may answer faster (search uses it to order moves)."""
        return len(self.legal_moves(state))

    def max_plies(self, state: int) -> int | None:
        """An upper bound on the plies left from ``state``, ``None`` if the game knows none (bounds searches)."""
        return None

    def draw_length(self, state: int) -> int | None:
        """The plies of every line from ``state`` that ends in a draw when the rules fix it (a game
        that can only be drawn on a full board), ``None`` otherwise (a search hint: a drawn
        position's distance without a search)."""
        return None

    def successors(self, state: int) -> list[tuple[int, int, Outcome | None, int]]:
        """``(move, next_state, its outcome or None, its move count)`` for every legal move of a
        non-terminal ``state`` (move count 0 when the game is over); what a search needs of each
        child, which games may compute faster together."""
        out = []
        for move, child in self.children(state):
            result = self.outcome(child)
            out.append((move, child, result, 0 if result is not None else self.move_count(child)))
        return out

    def outcome_table(
        self, state: int, time_limit: float | None = None, memory: int | None = None
    ) -> CompiledSearch | None:
        """A compiled win/draw/loss search for positions reached from ``state``, or ``None``
        (also when loading it would take a good part of ``time_limit`` seconds). A game that
        sizes its table keeps it within ``memory`` bytes when that is given.

        :mod:`tablebase.solve.search` then uses it for its outcome step, and for
        what else it offers (:class:`~tablebase.games.compiled_search.CompiledSearch`:
        a table of bounds, its negamax in node budgets, and the optional capabilities).
        A table that is ``reusable`` holds only facts exact for every position, whichever
        search stored them: a batch of proofs may share it
        (:class:`tablebase.solve.search.SearchSession`).
        """
        return None

    def key_patterns(self, state: int) -> list[str] | None:
        """SQL ``LIKE`` patterns, one of which the position string of every position reachable
        from ``state``, in every orientation, matches; ``None`` if the game gives none.

        A search seeded from stored positions reads only those that match.
        """
        return None

    def placed_patterns(self, state: int, board: Callable[[int], str], tail: str = "") -> list[str]:
        """:meth:`key_patterns` of a game whose marks stay where they are placed: ``board`` of each
        orientation of ``state`` with its empty cells (``.``) as wildcards, followed by ``tail``."""
        images = {self.transform(state, sym) for sym in range(self.num_symmetries)}
        return sorted({board(image).replace(".", "_") + tail for image in images})

    def children(self, state: int) -> list[tuple[int, int]]:
        """``(move, next_state)`` for every legal move (empty when terminal)."""
        if self.outcome(state) is not None:
            return []
        return [(m, self.apply(state, m)) for m in self.legal_moves(state)]

    def unmoves(self, state: int) -> list[tuple[int, int]]:
        """``(previous_state, move)`` for every legal move that leads to ``state`` (reachable or not).

        Needed only for states-only storage, where predecessors come from
        the rules instead of a moves table; games without it raise.
        """
        raise NotImplementedError(f"{self.name} cannot list the moves into a position")

    @property
    def has_unmoves(self) -> bool:
        """Whether :meth:`unmoves` is implemented (states-only storage needs it)."""
        return type(self).unmoves is not Game.unmoves

    def can_arise(self, state: int) -> bool:
        """Whether some sequence of legal moves from the start reaches ``state`` (for the states
        :meth:`parse_position` accepts, true unless the game says otherwise)."""
        return True

    def dense_index(self) -> DenseIndex | None:
        """The dense numbering of the positions, ply by ply, that the ``dense`` storage builds over
        (:class:`tablebase.games.common.dense_index.DenseIndex`), ``None`` if the game has none."""
        return None

    # -- symmetry ------------------------------------------------------------

    @property
    def num_symmetries(self) -> int:
        """Size of the symmetry group (1 when the game has none)."""
        return 1

    def transform(self, state: int, sym: int) -> int:
        """The image of ``state`` under symmetry ``sym``."""
        return state

    def transform_move(self, move: int, sym: int) -> int:
        """The image of ``move`` under symmetry ``sym``."""
        return move

    def inverse_symmetry(self, sym: int) -> int:
        """The symmetry that undoes ``sym``."""
        return sym

    def canonical(self, state: int) -> tuple[int, int]:
        """``(smallest image, symmetry that maps state onto it)``."""
        best, best_sym = state, 0
        for s in range(1, self.num_symmetries):
            image = self.transform(state, s)
            if image < best:
                best, best_sym = image, s
        return best, best_sym

    def orbit_size(self, state: int) -> int:
        """How many distinct positions are symmetric to ``state`` (itself included)."""
        return len({self.transform(state, s) for s in range(self.num_symmetries)})

    # -- notation ------------------------------------------------------------

    @abstractmethod
    def parse_position(self, text: str) -> int:
        """Parse a position string; raise :class:`MalformedPositionError` naming the problem."""

    @abstractmethod
    def format_position(self, state: int) -> str:
        """The position string of ``state`` (round-trips through :meth:`parse_position`)."""

    @abstractmethod
    def parse_move(self, state: int, text: str) -> int:
        """Parse a move in ``state``; raise :class:`IllegalMoveError` if malformed or illegal."""

    @abstractmethod
    def format_move(self, move: int) -> str:
        """The notation of ``move``.

        It depends on the move alone, and different moves have different
        notations, so a move string names the same move in every position
        where it is legal (the query layer relies on that).
        """

    def format_children(self, state: int, moves: Sequence[int]) -> list[str]:
        """The position string after each of ``moves`` (a probe formats every child; games may do it faster)."""
        return [self.format_position(self.apply(state, move)) for move in moves]

    def format_board(self, state: int) -> str:
        """A multi-line picture of the position for terminals."""
        return self.format_position(state)

    def layout(self) -> Layout | None:
        """The board as cells with coordinates, so a client can draw and play any variant.

        The web board and ``GET /api/{variant}/layout`` use only this; they
        know no rules. ``None`` (the default) means the game has no drawable
        board yet: clients then offer the list of moves only. The returned
        dict is JSON-ready and must satisfy this contract (the test suite
        checks it for every registered variant, see
        :func:`tablebase.games.layout.board_cells` and
        :func:`tablebase.games.layout.split_move`, the reference readers):

        ``cells``
            Every cell once, in *board order* (below), each
            ``{"name", "x", "y"}``: ``name`` is the cell exactly as move
            strings spell it (``"b2"``, Rota's ``"3"``), unique; ``x`` and
            ``y`` are the centre of the cell in units of one cell (neighbours
            on a grid are 1 apart), ``y`` growing downwards; gaps may show
            structure (between Ultimate's fields, say).
        ``shape``
            ``"square"``: cells tile the plane as 1x1 squares (grids);
            ``"circle"``: cells are round spots joined by ``edges`` (Rota's
            wheel).
        ``edges``
            Pairs of cell names to join with a line (Rota's rim and spokes);
            empty for grids. Drawing only: legality comes from the moves.
        ``separators``, ``empty``, ``pieces``
            How a position string shows what is on each cell: its first
            space-separated token, with every character of ``separators``
            removed (``"/"`` between grid rows), has exactly one character
            per cell, in board order. ``empty`` is the character of an empty
            cell (``"."``); ``pieces`` maps every other character that can
            appear to the name drawn on the cell: the player it belongs to
            (one of :attr:`players`), or the mark where marks belong to no
            one (Wild tic-tac-toe), e.g. ``{"x": "x", "o": "o"}``. The rest
            of the position string (side to move, active field, ...) is not
            part of the board.
        ``move_separator``
            Every move string is ``[label]cell(SEP cell)*`` with ``SEP`` this
            string (``"-"``): the cells the move involves in the order a user
            clicks them (placement ``b2``; slide ``a1-b2``, from then to; Rota
            ``3`` and ``3-8``), preceded by an optional label that tells apart
            moves on the same cells (Wild tic-tac-toe's mark in ``xb2`` /
            ``ob2``). The first cell is the longest suffix of the first part
            that is a cell name; the label is what comes before it. A move
            changes what is on no cell but those it names.

        ``regions`` (optional)
            Named groups of cells drawn as one unit, ``{"name", "cells"}``
            with ``cells`` a list of cell names (Ultimate's nine fields,
            named ``"0"`` .. ``"8"``); omitted or empty when the board has
            none. What a position shows on them comes from :meth:`board_marks`.
        ``click_moves`` (optional)
            Cell name -> the move one click on that cell plays at once,
            instead of composing the move from its cells (Connect Four: every
            cell of a column plays that column's digit, so a click anywhere in
            a column drops a disc there); a cell it does not name plays as usual.
            A move it names need not name cells, but changes only cells
            that map to it.
        ``gravity`` (optional)
            ``True`` when pieces fall to the lowest empty cell of a column
            (``y`` growing downwards) and every cell of a column plays that
            column's move through ``click_moves`` (Connect Four). A drawing
            then shows round discs in a frame, names each column under the
            board by its move instead of naming cells, writes each move's
            value once above its column, and lets a new disc fall into place.
            Omitted or ``False``: pieces stay where they are played.
        ``removal_separator`` (optional)
            A move may end in this string and one more cell, a piece of the
            other side taken off the board (Morris: ``d2-d3xg7`` after a
            mill, with ``"x"``): the cells of the move are then those before
            it followed by the removed one, clicked last.

        A client composes a move by clicks on its cells in order, and asks for
        the label when several moves share the same cells.
        """
        return None

    def board_marks(self, state: int) -> BoardMarks:
        """The regions of :meth:`layout` a drawing of ``state`` marks.

        ``active``: the regions the side to move must play in (empty when
        the rules name none, or the game is over); ``owners``: region name ->
        the player who owns it (a won field of Ultimate tic-tac-toe). Empty
        for games without regions. ``line`` (optional): the cells of the line
        that ended the game, for a drawing to highlight the winning line;
        absent while no line is complete.
        """
        return {"active": [], "owners": {}}

    # -- shipped data ----------------------------------------------------------

    def shipped_opening(self) -> Traversable | None:
        """The opening table the package ships for this variant (a file written by
        :meth:`tablebase.Tablebase.export_opening`), ``None`` if it ships none: probes of the
        positions a file lacks answer from it, and :meth:`tablebase.Tablebase.install_opening`
        copies it into a file."""
        return None

    # -- speed ---------------------------------------------------------------

    #: Array kernels for the vectorised builder, or ``None`` for the scalar path.
    vector: VectorKernels | None = None

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"
