"""Text output of the CLI, shared by the typer app (:mod:`cli.main`) and the probe fast path (:mod:`cli.fast`).

Plain functions over the library's result types; importing this loads
neither typer nor numpy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

if TYPE_CHECKING:
    from tablebase.query import VariantTable
    from tablebase.results import Line, Predecessors, Probe, SolveReport, Stats, StoredKey, VariantInfo, VerifyReport


def show_distance(distance: Optional[int]) -> str:
    return "-" if distance is None else str(distance)


#: How a draw without a distance reads (perpetual play, where positions repeat); the web board says the same.
PERPETUAL_DRAW = "perpetual draw"


def value_text(outcome: str | None, distance: Optional[int]) -> str:
    """An outcome with its distance, ``win in 3``; a draw without a distance reads :data:`PERPETUAL_DRAW`."""
    if outcome == "draw" and distance is None:
        return PERPETUAL_DRAW
    return f"{outcome} in {show_distance(distance)}"


def start_text(info: VariantInfo) -> str:
    """What a build found of the start: its value, or that it is not stored (a build of some tiers)."""
    if info.outcome is None:
        return "start not stored"
    return f"start is a {value_text(info.outcome, info.distance)}"


def settled_text(report: SolveReport) -> str:
    """A solve's value given without every move proved."""
    return (
        f"{report.position}: {report.outcome} in {show_distance(report.distance)}, but only"
        f" {report.moves_proved} of its {report.moves} moves proved"
    )


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
        f"{result.position}: {result.to_move} to move, {value_text(result.outcome, result.distance)}"
        + (" (game over)" if result.terminal else ""),
    ]
    stored = vt.key(result.position)
    if stored.key != result.position:
        lines.append(f"stored as {stored.key} (symmetry {stored.symmetry}; see: tablebase key {vt.name} POSITION)")
    if result.moves:
        rows = [[m.move, m.outcome or "unproved", show_distance(m.distance), m.position] for m in result.moves]
        lines.append(table(["move", "outcome", "distance", "position"], rows))
    return "\n".join(lines)


def best_text(result: Probe) -> str:
    """What ``tablebase best`` prints: the best move, or that the game is over."""
    move = result.best_move
    if move is None:
        return f"{result.position}: the game is over ({result.to_move} to move: {result.outcome})"
    return f"{move.move}  {value_text(move.outcome, move.distance)}  -> {move.position}"


def line_text(result: Line) -> str:
    """What ``tablebase line`` prints: a numbered move and the position after it, a line each."""
    lines = [f"{result.position}: {result.outcome}"]
    lines += [f"{i:>3}. {move:<8} {pos}" for i, (move, pos) in enumerate(zip(result.moves, result.positions), start=1)]
    if result.repeats:
        lines.append("     (position repeats: perpetual play)")
    return "\n".join(lines)


def predecessors_text(preds: Predecessors) -> str:
    """What ``tablebase predecessors`` prints: each position one move before, and the move."""
    if not preds:
        return f"{preds.position}: no predecessors (the start position)"
    return "\n".join(f"{p.position}  {p.move}" for p in preds)


def key_text(stored: StoredKey) -> str:
    """What ``tablebase key`` prints: the stored key, the symmetry that maps to it, the moves renamed."""
    same = " (the identity: the position is its own key)" if stored.symmetry == 0 else ""
    lines = [
        f"position   {stored.position}",
        f"stored as  {stored.key}",
        f"symmetry   {stored.symmetry} of {stored.symmetries}{same}",
    ]
    if stored.moves:
        lines.append(table(["move", "stored as"], [list(pair) for pair in stored.moves]))
    return "\n".join(lines)


def moves_text(info: VariantInfo) -> str:
    """How many moves are stored, or that they come from the rules (a storage that keeps none)."""
    if info.moves_stored:
        return f"{info.moves:,} moves"
    return f"moves from the rules ({info.storage_label})"


def solved_text(report: SolveReport) -> str:
    """What ``tablebase solve`` prints of a position proved: its value, the nodes searched, the seconds
    and the positions stored."""
    return (
        f"{report.position}: {value_text(report.outcome, report.distance)}"
        f" ({report.nodes:,} nodes, {report.seconds:.1f} s; {report.stored:,} new positions stored)"
    )


def unproved_text(report: SolveReport, time_limit: float | None) -> str:
    """Why ``tablebase solve`` fails: the position not proved (or not every move) within the time limit."""
    what = "not proved" if report.outcome is None else settled_text(report)
    return f"{what} within {time_limit} s; stored only the {report.stored:,} positions that were proved"


def solve_line_text(report: SolveReport, time_limit: float | None) -> str:
    """What ``tablebase solve --file`` prints of each position: its value and seconds, or what was not
    proved within the time limit."""
    if report.proved:
        return f"{report.position}: {value_text(report.outcome, report.distance)} ({report.seconds:.1f} s)"
    if report.outcome is not None:
        return f"{settled_text(report)} within {time_limit} s"
    return f"{report.position}: not proved within {time_limit} s"


def stats_text(result: Stats) -> str:
    """What ``tablebase stats`` prints: positions and classes per ply (and outcomes when stored), the
    totals, then the outcomes of the stored states or the terminal classes counted."""
    tiered = any(p.tier is not None for p in result.plies)
    headers = ["tier" if tiered else "ply", "positions", "classes"]
    rows: list[list[Any]] = [[p.tier or p.ply if tiered else p.ply, p.positions, p.classes] for p in result.plies]
    rows.append(["total", result.positions, result.classes])
    if result.plies and all(p.outcomes is not None for p in result.plies):
        headers += ["win", "draw", "loss"]
        for row, p in zip(rows, result.plies):
            row += [p.outcomes[k] for k in ("win", "draw", "loss")] if p.outcomes else []
        rows[-1] += [sum(p.outcomes[k] for p in result.plies if p.outcomes) for k in ("win", "draw", "loss")]
    o = result.outcomes
    if o:
        summary = f"stored states: {o['win']} win, {o['loss']} loss, {o['draw']} draw; {result.terminal} terminal"
    else:
        summary = f"counted from the rules: {result.terminal} terminal classes"
    return table(headers, rows) + "\n" + summary


def verify_text(report: VerifyReport) -> str:
    """What ``tablebase verify`` prints of one variant: what was checked and whether it agrees, then
    each disagreement shown."""
    status = "ok" if report.ok else f"{report.error_count} disagreement(s)"
    searched = f", {report.searched:,} proved again by the search" if report.searched else ""
    lines = [f"{report.variant}: {report.states:,} states, {report.moves:,} moves{searched}: {status}"]
    lines += [f"  {e}" for e in report.errors]
    return "\n".join(lines)
