"""The shapes of the server's replies, for the OpenAPI description (tests check replies against them)."""

from __future__ import annotations

from typing import Any, get_type_hints

from pydantic import BaseModel, Field, create_model

from tablebase.games.layout import Layout
from tablebase.outcome import Outcome


class ErrorReply(BaseModel):
    """An error: a stable kind for programs and a one-line message for people."""

    error: str = Field(description="malformed_position, illegal_move, unknown_variant, variant_not_built, ...")
    detail: str


class MoveReply(BaseModel):
    """A legal move and what it achieves for the player making it."""

    move: str
    position: str = Field(description="The position after the move.")
    outcome: Outcome | None = Field(
        description="null only for a move of a position solved with its value alone that the probe could not prove in time."
    )
    distance: int | None = Field(description="Plies to the end from the probed position; null: perpetual draw.")


class ProbeReply(BaseModel):
    """The value of a position for the side to move, and every legal move, best first."""

    variant: str
    position: str
    to_move: str
    outcome: Outcome
    distance: int | None
    moves: list[MoveReply] = Field(
        description="Fastest win first, then draws, then the slowest loss; empty at the end."
    )


class VariantReply(BaseModel):
    """A built variant."""

    variant: str
    states: int
    moves: int = Field(description="Stored moves (0 when the storage derives them from the rules).")
    storage: str = Field(description="How the variant is stored: the name of its storage.")
    symmetry: bool
    complete: bool = Field(
        description="Every reachable position is stored; false for variants explored by search (`/solve`)."
    )
    outcome: Outcome | None = Field(description="Value of the start for the first player; null while unproved.")
    distance: int | None
    family: str
    rules: str
    parameters: dict[str, Any]
    players: list[str] = Field(description="The two players, first player first.")
    start: str = Field(description="The start position.")
    tiers: list[str] = Field(
        default_factory=list,
        description="The tiers the file holds of a variant built tier by tier (`tablebase build --stones`);"
        " a position in one of them is answered by `GET /api/{variant}`.",
    )


class LineReply(BaseModel):
    """The perfect line: best moves to the end or to the first repeated position."""

    variant: str
    position: str
    outcome: Outcome
    moves: list[str]
    positions: list[str] = Field(description="The position after each move.")
    repeats: bool = Field(description="True when the line stopped at a repetition (perpetual play).")


class PredecessorReply(BaseModel):
    position: str
    move: str = Field(description="The move that leads from `position` to the queried position.")


class PredecessorsReply(BaseModel):
    variant: str
    position: str
    predecessors: list[PredecessorReply]


class CellReply(BaseModel):
    name: str
    x: float
    y: float


class RegionReply(BaseModel):
    name: str
    cells: list[str]


def typed_dict_model(name: str, shape: type, doc: str, **fields: Any) -> type[BaseModel]:
    """A reply model with the keys of the TypedDict ``shape`` in its order, after the extra ``fields``
    (``name=(type, default)``); a field of ``fields`` that ``shape`` also has replaces its plain form."""
    keys = {key: (hint, ...) for key, hint in get_type_hints(shape).items()}
    ordered = {**{k: v for k, v in fields.items() if k not in keys}, **keys}
    return create_model(name, __doc__=doc, **{k: fields.get(k, v) for k, v in ordered.items()})


LayoutReply = typed_dict_model(
    "LayoutReply",
    Layout,
    "Board geometry; the contract is the docstring of ``Game.layout`` (tablebase/games/base.py).",
    variant=(str, ...),
    cells=(list[CellReply], Field(description="Cells in the order of the board characters of a position.")),
    regions=(list[RegionReply], Field(default=[], description="Named groups of cells (Ultimate's fields).")),
    click_moves=(dict[str, str], Field(default={}, description="Cell name -> the move one click on it plays.")),
    gravity=(bool, Field(default=False, description="Pieces fall to the lowest empty cell of their column.")),
    removal_separator=(
        str | None, Field(default=None, description="Before the cell of the piece a move removes (Morris: d2-d3xg7).")
    ),
)


class BoardMoveReply(BaseModel):
    move: str
    position: str = Field(description="The position after the move.")


class BoardReply(BaseModel):
    """A position as the rules see it, whether the tablebase holds it or not."""

    variant: str
    position: str
    to_move: str
    outcome: Outcome | None = Field(description="The result for the side to move when the game is over, else null.")
    active: list[str] = Field(description="Regions of the layout the side to move must play in.")
    owners: dict[str, str] = Field(description="Region name -> the player who owns it (a won field).")
    line: list[str] = Field(default=[], description="Cells of the line that ended the game (empty if none).")
    moves: list[BoardMoveReply] = Field(description="Every legal move, in the rules' order.")


class SolveReply(ProbeReply):
    """A proved position: the probe, and whether the tablebase file holds it; with ``partial``, what
    is proved so far of a position whose search ran out of time."""

    outcome: Outcome | None = Field(  # type: ignore[assignment]
        description="Value for the side to move; null only in a partial reply, while it is not proved."
    )
    stored: bool = Field(description="The file holds the position; false: proved by this server, kept in memory.")
    proved: bool = Field(
        default=True,
        description="The position and every move are proved; false only in a partial reply (`partial=true`),"
        " whose unproved moves have outcome null and come last.",
    )


class HealthReply(BaseModel):
    """Whether the server can read its file."""

    status: str = Field(description="ok or error")
    file: str = Field(description="The tablebase file's name.")
    variants: int = Field(description="Variants built into the file.")
    detail: str | None = Field(default=None, description="What could not be read.")


ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorReply, "description": "Malformed position or illegal move."},
    404: {"model": ErrorReply, "description": "Unknown or unbuilt variant, or a position not in the tablebase."},
    414: {"model": ErrorReply, "description": "Request address (path and query) over 64 KiB: error `uri_too_long`."},
}
