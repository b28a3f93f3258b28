"""Text output of the CLI, shared by the typer app (:mod:`cli.main`) and the probe fast path (:mod:`cli.fast`).

Plain functions over the library's result types; importing this loads
neither typer nor numpy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

if TYPE_CHECKING:
    from tablebase.query import VariantTable
    from tablebase.results import Probe, VariantInfo


def show_distance(distance: Optional[int]) -> str:
    return "-" if distance is None else str(distance)


def table(headers: list[str], rows: list[list[Any]]) -> str:
    """A plain aligned text table."""
    cells = [headers] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def probe_text(vt: VariantTable, result: Probe) -> str:
    """What ``tablebase probe`` prints without ``--json``: the board, the value, the moves best first."""
    lines = [
        vt.game.format_board(vt.parse(result.position)),
        f"{result.position}: {result.to_move} to move, {result.outcome}"
        f" in {show_distance(result.distance)}" + (" (game over)" if result.terminal else ""),
    ]
    stored = vt.key(result.position)
    if stored.key != result.position:
        lines.append(f"stored as {stored.key} (symmetry {stored.symmetry}; see: tablebase key {vt.name} POSITION)")
    if result.moves:
        rows = [[m.move, m.outcome or "unproved", show_distance(m.distance), m.position] for m in result.moves]
        lines.append(table(["move", "outcome", "distance", "position"], rows))
    return "\n".join(lines)


def moves_text(info: VariantInfo) -> str:
    """How many moves are stored, or that they come from the rules (a layout that stores none)."""
    if info.moves_stored:
        return f"{info.moves:,} moves"
    return f"moves from the rules ({info.storage_label})"
