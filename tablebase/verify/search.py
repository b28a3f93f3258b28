"""The audit by search: stored positions re-proved from nothing, and their values and their moves'
compared with the stored ones."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tablebase.progress import Progress
    from tablebase.reader import StoredVariant
    from tablebase.results import VerifyReport


def verify_by_search(
    table: StoredVariant, count: int, report: VerifyReport, seed: int = 0, progress: Progress | None = None
) -> None:
    """Re-prove ``count`` stored positions with moves, drawn at random (with a fixed ``seed``), by
    the search from nothing (a compiled table of its own, no stored value), adding to ``report``
    each position whose value, or one of whose moves' values, differs from the stored one."""
    from tablebase.solve.search import SearchSession

    game = table.game
    with table.snapshot() as conn:
        if table.info.complete:
            rows = [row for row in table.storage.sample(conn, 4 * count, seed) if not row[3]]
        else:
            sources = {source for source, _, _ in table.storage.move_rows(conn)}
            expanded = [row for row in table.storage.rows(conn) if row[0] in sources]
            rows = random.Random(seed).sample(expanded, min(count, len(expanded)))
    picked = list({row[1]: row for row in rows}.values())[:count]
    session = SearchSession(game)
    for done, (_, key, _, _, outcome, distance) in enumerate(picked, 1):
        state = game.parse_position(key)
        result = session.prove(state, children=True)
        if (result.outcome, result.distance) != (outcome, distance):
            report.add(f"{key}: stored {outcome}/{distance}, the search says {result.outcome}/{result.distance}")
        with table.snapshot() as conn:
            _, stored = table.storage.probe(conn, state)
        for move, value in stored:
            found = result.moves.get(move)
            if value is None or found is None or tuple(found) != tuple(value):
                shown = "none" if value is None else f"{value[0]}/{value[1]}"
                said = "nothing" if found is None else f"{found[0]}/{found[1]}"
                report.add(f"{key}: move {game.format_move(move)} leads to a stored {shown}, the search says {said}")
        if len(stored) != len(result.moves):
            report.add(f"{key}: {len(stored)} moves stored, the search proved {len(result.moves)}")
        report.searched = done
        if progress is not None:
            progress("search", done, len(picked))
