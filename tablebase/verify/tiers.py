"""The audit of a variant built tier by tier, one tier at a time: each stored label against its children's.

For every stored tier, in the order of the game's tiers: the tier's states
are read, with those of the tiers their moves lead to; terminal states must
hold the rules' outcome at distance 0, and every other state's label must
follow from its children's labels (found among those states) by the
builder's rule. Memory is that of one tier and the tiers below it that it
reads.
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING, Any

import numpy as np

from tablebase.outcome import NAMES
from tablebase.results import VerifyReport
from tablebase.verify.checks import check_children_arrays, report_rows

if TYPE_CHECKING:
    from tablebase.games.common.kernels import VectorKernels
    from tablebase.games.tiering import Tiering
    from tablebase.progress import Progress
    from tablebase.reader import StoredVariant


def stored_tier_numbers(table: StoredVariant, conn: sqlite3.Connection) -> list[int] | None:
    """The numbers of the variant's stored tiers, ``None`` when it is not stored tier by tier."""
    plies = [row[0] for row in table.storage.plies(conn)]
    if not plies or any(table.game.tier_name(p) is None for p in plies):
        return None
    return plies


def verify_tiers(table: StoredVariant, progress: Progress | None = None) -> VerifyReport:
    """Check every stored tier's labels against its children's (see the module notes)."""
    from tablebase.store.tiers import tier_arrays

    report = VerifyReport(table.name)
    game = table.game
    kernels = game.vector
    tiering = game.tiering()
    if kernels is None or tiering is None:
        report.add(f"{table.name} is not a game cut into tiers")
        return report
    order = list(tiering.tiers())
    with table.snapshot() as conn:
        stored = set(stored_tier_numbers(table, conn) or [])
        numbers = [tiering.number(t) for t in order if tiering.number(t) in stored]
        for done, tier in enumerate(t for t in order if tiering.number(t) in stored):
            number = tiering.number(tier)
            name = game.tier_name(number)
            states, outcome, distance = tier_arrays(conn, game, table.storage.variant_id, number)
            below = [tiering.number(c) for c in tiering.child_tiers(tier)]
            missing = [game.tier_name(n) for n in below if n not in stored]
            if missing:
                report.add(f"tier {name}: the tiers its moves lead to are not all stored ({', '.join(map(str, missing))})")
                continue
            parts = [(states, outcome, distance)] + [tier_arrays(conn, game, table.storage.variant_id, n) for n in below]
            _check_tier(kernels, tiering, order.index(tier), states, outcome, distance, parts, report)
            if progress is not None:
                progress("tiers", done + 1, len(numbers))
    return report


def _check_tier(
    kernels: VectorKernels,
    tiering: Tiering[Any],
    position: int,
    states: np.ndarray,
    outcome: np.ndarray,
    distance: np.ndarray,
    parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]],
    report: VerifyReport,
) -> None:
    """One tier's states: in the tier, sorted and distinct; terminal ones as the rules say; the rest by their children."""
    n = len(states)
    report.states += n

    def key(i: int) -> str:
        return str(kernels.format_positions(states[i : i + 1])[0])

    report_rows(report, np.flatnonzero(tiering.tier_of(states) != position), lambda i: f"{key(i)}: not a state of its tier")
    report_rows(report, np.flatnonzero(states[1:] <= states[:-1]) + 1, lambda i: f"{key(i)}: stored out of order or twice")
    rules = kernels.outcome(states)
    ends = rules != 0
    report_rows(
        report,
        np.flatnonzero(ends & ((outcome != rules) | (distance != 0))),
        lambda i: f"{key(i)}: terminal {NAMES.get(int(outcome[i]))}/{int(distance[i])}, rules say {NAMES[int(rules[i])]}/0",
    )
    target = np.concatenate([p[0] for p in parts])
    order = np.argsort(target, kind="stable")
    target = target[order]
    target_label = np.concatenate([p[1] for p in parts])[order]
    target_dist = np.concatenate([p[2] for p in parts])[order]
    live = np.flatnonzero(~ends)
    for lo in range(0, len(live), 1 << 16):
        check_children_arrays(
            kernels, True, states, outcome, distance, live[lo : lo + (1 << 16)],
            target, target_label, target_dist, key, report,
        )  # fmt: skip
