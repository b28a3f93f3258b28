"""What queries return: small frozen value types, each with the one ``to_dict`` that is its JSON.

These dictionaries are the JSON contract: ``tablebase ... --json`` prints
them and the HTTP API (:mod:`tablebase.serve`) replies with them, so the two
cannot drift apart (a test checks each against the HTTP reply model).
Outcomes are for the side to move (for a move: for the player making it);
distances are plies to the end under perfect play, ``None`` for a draw that
can go on for ever.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple, cast

from tablebase.svg import board_svg

if TYPE_CHECKING:
    from tablebase.games.base import Game


def _pick(value: object, *names: str) -> dict[str, Any]:
    """The named attributes of ``value``, in that order."""
    return {name: getattr(value, name) for name in names}


class MoveValue(NamedTuple):
    """A legal move and what it achieves for the player making it."""

    move: str
    #: The position after the move.
    position: str
    #: ``None`` only for a move of a position stored by ``solve`` with its value alone
    #: that a probe could not prove within :data:`tablebase.query.PROBE_BUDGET` seconds.
    outcome: str | None
    #: Plies to the end counted from the position before the move.
    distance: int | None

    def to_dict(self) -> dict[str, Any]:
        return _pick(self, "move", "position", "outcome", "distance")


@dataclass(frozen=True)
class Probe:
    """The value of a position and of every legal move, best first."""

    variant: str
    position: str
    to_move: str
    outcome: str
    distance: int | None
    terminal: bool
    moves: tuple[MoveValue, ...]

    @property
    def best_move(self) -> MoveValue | None:
        """The best move, or ``None`` when the game is over."""
        return self.moves[0] if self.moves else None

    def proves_every_move(self, legal: int) -> bool:
        """Whether the probe gives the value of every one of the position's ``legal`` moves (or the game is over)."""
        return self.terminal or (len(self.moves) == legal and all(m.outcome is not None for m in self.moves))

    def _head(self) -> dict[str, Any]:
        return _pick(self, "variant", "position", "to_move", "outcome", "distance")

    def to_dict(self) -> dict[str, Any]:
        """``tablebase probe --json`` and ``GET /api/{variant}``."""
        return {**self._head(), "moves": [m.to_dict() for m in self.moves]}

    def _repr_svg_(self) -> str | None:
        """The board with each move's value on the cell it plays (Jupyter); ``None`` without a layout."""
        return board_svg(self.variant, self.position, self.moves)

    def best_dict(self) -> dict[str, Any]:
        """``tablebase best --json``: the probe with only the best move (``None`` at the end)."""
        best = self.best_move
        return {**self._head(), "best": None if best is None else best.to_dict()}


@dataclass(frozen=True)
class Line:
    """The principal variation from a position: best moves to the end."""

    variant: str
    position: str
    outcome: str
    moves: tuple[str, ...]
    #: The position after each move.
    positions: tuple[str, ...]
    #: True when the line stopped at a repeated position (perpetual draw).
    repeats: bool = False

    def to_dict(self) -> dict[str, Any]:
        """``tablebase line --json`` and ``GET /api/{variant}/line``."""
        return {
            **_pick(self, "variant", "position", "outcome"),
            "moves": list(self.moves),
            "positions": list(self.positions),
            "repeats": self.repeats,
        }


@dataclass(frozen=True)
class Predecessor:
    """A position one move before the given one, and the move that leads from it."""

    position: str
    move: str

    def to_dict(self) -> dict[str, Any]:
        return {"position": self.position, "move": self.move}


class Predecessors(list[Predecessor]):
    """The positions one move before ``position`` (a list of :class:`Predecessor`, sorted)."""

    def __init__(self, variant: str, position: str, items: list[Predecessor]):
        super().__init__(items)
        self.variant = variant
        #: The queried position, normalised.
        self.position = position

    def to_dict(self) -> dict[str, Any]:
        """``tablebase predecessors --json`` and ``GET /api/{variant}/predecessors``."""
        return {"variant": self.variant, "position": self.position, "predecessors": [p.to_dict() for p in self]}


@dataclass(frozen=True)
class PlyCount:
    """Positions and symmetry classes after ``ply`` moves, and how many of the positions are won,
    drawn and lost for the side to move (``None`` when not known: counted from the rules, or a
    packed file built before these counts were kept)."""

    ply: int
    positions: int
    classes: int
    outcomes: dict[str, int] | None = None
    #: The tier stored under the number ``ply`` (a build tier by tier: :meth:`~tablebase.games.base.Game.tier_name`).
    tier: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data = _pick(self, "ply", "positions", "classes")
        if self.tier is not None:
            data["tier"] = self.tier
        if self.outcomes is not None:
            data["outcomes"] = dict(self.outcomes)
        return data


@dataclass(frozen=True)
class Stats:
    """Per-ply counts of positions, symmetry classes and outcomes, and label totals."""

    variant: str
    plies: tuple[PlyCount, ...]
    outcomes: dict[str, int]
    terminal: int

    @property
    def positions(self) -> int:
        return sum(p.positions for p in self.plies)

    @property
    def classes(self) -> int:
        return sum(p.classes for p in self.plies)

    def to_dict(self) -> dict[str, Any]:
        """``tablebase stats --json``."""
        return {
            "variant": self.variant,
            "plies": [p.to_dict() for p in self.plies],
            **_pick(self, "positions", "classes"),
            "outcomes": dict(self.outcomes),
            "terminal": self.terminal,
        }


@dataclass(frozen=True)
class VariantInfo:
    """What the ``variants`` table says about one built variant."""

    name: str
    family: str
    rules: str
    parameters: dict[str, Any]
    #: Stored one position per symmetry class (false for a game whose only symmetry is the identity).
    symmetry: bool
    complete: bool
    states: int
    moves: int
    outcome: str | None
    distance: int | None
    build_seconds: float
    builder_version: str
    built_at: str
    #: The storage (:mod:`tablebase.store.storage`): ``"moves"`` when the moves table holds the
    #: variant's moves, ``"states"`` when they come from the rules.
    storage: str = "moves"
    #: The numbers of the ``plies`` rows: the plies, or a build tier by tier's tier numbers.
    plies: tuple[int, ...] = ()

    @property
    def moves_stored(self) -> bool:
        """Whether the file holds the variant's moves (else they are derived from the rules)."""
        from tablebase.store.storage import storage_info

        return storage_info(self.storage).stores_moves

    @property
    def storage_label(self) -> str:
        """How listings name the storage of a variant whose moves are not stored (``"states only"``)."""
        from tablebase.store.storage import storage_info

        return storage_info(self.storage).label

    @classmethod
    def unbuilt(cls, game: Game) -> VariantInfo:
        """The entry of a variant with nothing built (one explored position by position by search)."""
        return cls(
            name=game.name,
            family=game.family,
            rules=game.rules,
            parameters=game.parameters(),
            symmetry=game.num_symmetries > 1,
            complete=False,
            states=0,
            moves=0,
            outcome=None,
            distance=None,
            build_seconds=0.0,
            builder_version="",
            built_at="",
        )

    def to_dict(self, game: Game | None = None) -> dict[str, Any]:
        """``tablebase list --json``; with the variant's ``game``, ``GET /api/variants`` (adds the
        rules, the players, the start position and the tiers stored)."""
        data = {
            "variant": self.name,
            **_pick(self, "states", "moves", "storage", "symmetry", "complete", "outcome", "distance"),
        }
        if game is not None:
            data.update(
                family=self.family,
                rules=self.rules,
                parameters=self.parameters,
                players=list(game.players),
                start=game.format_position(game.initial_state()),
                tiers=[name for name in map(game.tier_name, self.plies) if name is not None],
            )
        return data


@dataclass
class VerifyReport:
    """What ``verify`` found: counts checked and every disagreement (the first :data:`SHOWN` in full)."""

    SHOWN = 50

    variant: str
    states: int = 0
    moves: int = 0
    errors: list[str] = field(default_factory=list)
    error_count: int = 0
    #: Positions re-proved by the search (``verify --search``).
    searched: int = 0

    @property
    def ok(self) -> bool:
        return self.error_count == 0

    def add(self, message: str) -> None:
        self.error_count += 1
        if len(self.errors) < self.SHOWN:
            self.errors.append(message)

    def to_dict(self) -> dict[str, Any]:
        """One entry of ``tablebase verify --json``."""
        return {
            **_pick(self, "variant", "states", "moves", "searched", "ok", "error_count"), "errors": list(self.errors)
        }


class _AsDict:
    """A report whose JSON form is its fields."""

    def to_dict(self) -> dict[str, Any]:
        """The report as the command's ``--json`` prints it."""
        return asdict(cast(Any, self))


@dataclass(frozen=True)
class SolveReport(_AsDict):
    """What ``solve`` proved about one position and how many positions it stored."""

    variant: str
    position: str
    #: The position's outcome and distance as far as they were proved (``None``: not proved), even
    #: when some of its moves were not.
    outcome: str | None
    distance: int | None
    #: The position and every one of its moves were proved.
    proved: bool
    timed_out: bool
    stored: int
    nodes: int
    seconds: float
    #: The position's legal moves, and how many of them were proved.
    moves: int = 0
    moves_proved: int = 0


@dataclass(frozen=True)
class OpeningReport(_AsDict):
    """What ``opening`` did: the positions of a variant's opening table, how many were solved now
    and how many were stored already."""

    variant: str
    #: The table reaches positions with at most this many plies played.
    plies: int
    #: Every position up to :attr:`plies` (both sides any move), not only those reached against perfect play.
    every: bool
    #: Positions of the table (each stored with every move once done).
    positions: int
    #: Positions solved by this call, and those stored with every move before it.
    solved: int
    stored: int
    nodes: int
    seconds: float


@dataclass(frozen=True)
class StoredKey:
    """A position, the key it is stored under, and how the two correspond."""

    variant: str
    position: str
    key: str
    #: The symmetry that maps the position onto the key (0: the identity, the position is its own key).
    symmetry: int
    #: How many symmetries the variant has (1 without symmetry reduction).
    symmetries: int
    #: ``(move here, the same move in the key's orientation)`` for every legal move.
    moves: tuple[tuple[str, str], ...]

    def to_dict(self) -> dict[str, Any]:
        """``tablebase key --json``."""
        return {
            **_pick(self, "variant", "position", "key", "symmetry", "symmetries"),
            "moves": [{"move": here, "stored": there} for here, there in self.moves],
        }


__all__ = [
    "Line",
    "MoveValue",
    "PlyCount",
    "Predecessor",
    "Predecessors",
    "Probe",
    "SolveReport",
    "Stats",
    "StoredKey",
    "VariantInfo",
    "VerifyReport",
]
