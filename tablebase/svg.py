"""SVG drawings of positions, from a game's :class:`~tablebase.games.layout.Layout` (the web board's).

Any game with a layout draws; the drawing knows no rules. Jupyter shows a
:class:`Board` and a :class:`~tablebase.results.Probe` with their ``_repr_svg_``,
the probe with each move's value written on the cell it plays::

    >>> from tablebase import svg
    >>> svg.Board("tictactoe", "x../.o./...")          # doctest: +SKIP
    >>> tb.variant("tictactoe").probe("x../.o./...")   # doctest: +SKIP
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, Sequence

from tablebase.games import get
from tablebase.games.base import Game
from tablebase.games.layout import Layout, board_cells, split_move

#: Pixels per cell.
CELL = 48
#: Fill of a move's value by its outcome for the player making it.
COLOURS = {"win": "#1a7f37", "loss": "#cf222e", "draw": "#6e7781"}
_SHORT = {"win": "W", "loss": "L", "draw": "D"}


def escape(text: str) -> str:
    """``text`` safe inside an SVG element or a double-quoted attribute."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


class Valued(Protocol):
    """A move with its value (:class:`~tablebase.results.MoveValue` is one)."""

    @property
    def move(self) -> str: ...

    @property
    def position(self) -> str: ...

    @property
    def outcome(self) -> str | None: ...

    @property
    def distance(self) -> int | None: ...


def value_text(move: Valued) -> str:
    """A move's value in a few characters: ``W3`` (wins in 3 plies), ``L4``, ``D``, ``?`` when unknown."""
    if move.outcome is None:
        return "?"
    return _SHORT[move.outcome] + ("" if move.distance is None or move.outcome == "draw" else str(move.distance))


def _target(layout: Layout, before: dict[str, str | None], move: Valued) -> tuple[str, str] | None:
    """``(label, cell)`` a move's value is written on: the cell it fills, else the last cell it names."""
    after = board_cells(layout, move.position)
    filled = [name for name, piece in after.items() if piece is not None and before[name] != piece]
    try:
        label, cells = split_move(layout, move.move)
    except ValueError:
        label, cells = "", ()
    if filled:
        return label, filled[0]
    return (label, cells[-1]) if cells else None


def board_svg(game: Game | str, position: str | None = None, moves: Sequence[Valued] = ()) -> str | None:
    """The SVG of ``position`` (the start when ``None``) of ``game`` (a game or a variant name), with
    each of ``moves``' values on its cell; ``None`` when the game has no layout."""
    game = get(game) if isinstance(game, str) else game
    layout = game.layout()
    if layout is None:
        return None
    state = game.initial_state() if position is None else game.parse_position(position)
    text = game.format_position(state)
    pieces = board_cells(layout, text)
    marks = game.board_marks(state)
    spots = {cell["name"]: (cell["x"], cell["y"]) for cell in layout["cells"]}
    xs = [x for x, _ in spots.values()]
    ys = [y for _, y in spots.values()]
    left, top = min(xs) - 0.6, min(ys) - 0.6
    width, height = max(xs) - min(xs) + 1.2, max(ys) - min(ys) + 1.2
    round_cells = layout["shape"] == "circle"
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="{left:g} {top:g} {width:g} {height:g}"'
        f' width="{width * CELL:.0f}" height="{height * CELL:.0f}" font-family="sans-serif">',
        f"<title>{escape(game.name)} {escape(text)}</title>",
        f'<rect x="{left:g}" y="{top:g}" width="{width:g}" height="{height:g}" fill="#ffffff"/>',
    ]
    for a, b in layout["edges"]:
        (x1, y1), (x2, y2) = spots[a], spots[b]
        out.append(f'<line x1="{x1:g}" y1="{y1:g}" x2="{x2:g}" y2="{y2:g}" stroke="#57606a" stroke-width="0.04"/>')
    active, owners, line = set(marks["active"]), marks["owners"], set(marks.get("line", ()))
    for region in layout.get("regions", ()):
        corners = [spots[name] for name in region["cells"]]
        rx, ry = min(x for x, _ in corners) - 0.5, min(y for _, y in corners) - 0.5
        rw, rh = max(x for x, _ in corners) + 0.5 - rx, max(y for _, y in corners) + 0.5 - ry
        fill = "#fff8c5" if region["name"] in active else "none"
        out.append(f'<rect x="{rx:g}" y="{ry:g}" width="{rw:g}" height="{rh:g}" fill="{fill}" stroke="#24292f" stroke-width="0.08"/>')
        if region["name"] in owners:
            out.append(
                f'<text x="{rx + rw / 2:g}" y="{ry + rh / 2:g}" font-size="{min(rw, rh) * 0.8:g}" text-anchor="middle"'
                f' dominant-baseline="central" fill="#8c959f" opacity="0.5">{escape(owners[region["name"]])}</text>'
            )
    for name, (x, y) in spots.items():
        stroke = ' stroke="#bf8700" stroke-width="0.1"' if name in line else ' stroke="#57606a" stroke-width="0.03"'
        if round_cells:
            out.append(f'<circle cx="{x:g}" cy="{y:g}" r="0.34" fill="#f6f8fa"{stroke}/>')
        else:
            out.append(f'<rect x="{x - 0.5:g}" y="{y - 0.5:g}" width="1" height="1" fill="none"{stroke}/>')
        piece = pieces[name]
        if piece is not None:
            out.append(
                f'<text x="{x:g}" y="{y:g}" font-size="0.6" text-anchor="middle" dominant-baseline="central"'
                f' data-cell="{escape(name)}">{escape(piece)}</text>'
            )
    written: dict[str, int] = {}
    for move in moves:
        target = _target(layout, pieces, move)
        if target is None:
            continue
        label, cell = target
        x, y = spots[cell]
        row = written.get(cell, 0)
        written[cell] = row + 1
        colour = COLOURS.get(move.outcome or "", "#57606a")
        out.append(
            f'<text x="{x:g}" y="{y + 0.38 - 0.22 * row:g}" font-size="0.22" text-anchor="middle" fill="{colour}"'
            f' data-move="{escape(move.move)}">{escape(label + value_text(move))}</text>'
        )
    out.append("</svg>")
    return "".join(out)


@dataclass(frozen=True)
class Board:
    """A position of a variant that draws itself in a notebook (``position=None``: the start)."""

    variant: str
    position: str | None = None

    def _repr_svg_(self) -> str | None:
        return board_svg(self.variant, self.position)


__all__ = ["Board", "COLOURS", "Valued", "board_svg", "value_text"]
