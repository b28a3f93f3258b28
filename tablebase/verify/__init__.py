"""The independent audit of a built variant.

Re-derives every stored label and distance from the stored moves, and checks
the stored moves and terminal outcomes against the rules, without using the
builder. Local agreement everywhere implies the labels are exact: by
induction on distance, every won or lost label is proved by its children, and
a state with a lost (or an only-won) set of children cannot pass as a draw.

The rules check runs on the game's array kernels when it has them (parsing
the stored keys, generating each state's moves and comparing the sorted edge
lists), and state by state otherwise; the label check is array code for
every game. Rows and moves are read in one snapshot, in chunks straight
into arrays.

Four audits, one module each: :mod:`~tablebase.verify.moves` (stored moves against the rules,
labels against the stored moves), :mod:`~tablebase.verify.children` (labels against the children
the rules derive), :mod:`~tablebase.verify.layers` (the same ply by ply) and
:mod:`~tablebase.verify.search` (positions re-proved by the search); :func:`check` chooses among
them, or the storage's own check (a variant built tier by tier: every class of each tier against
its children, by the game's compiled check).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tablebase.results import VerifyReport
from tablebase.verify.children import verify_children
from tablebase.verify.moves import verify
from tablebase.verify.search import verify_by_search

if TYPE_CHECKING:
    from tablebase.progress import Progress
    from tablebase.reader import StoredVariant


def check(table: StoredVariant, sample: int | None = None, progress: Progress | None = None) -> VerifyReport:
    """The check :meth:`tablebase.Tablebase.verify` runs: every label against its stored moves and the
    rules where the storage keeps moves, else (and for a ``sample`` of random states) against the
    children the rules derive, or by the storage's own check when it has one."""
    if sample is None:
        report = VerifyReport(table.name)
        with table.snapshot() as conn:
            checked = table.storage.check_labels(conn, report.add, progress)
        if checked is not None:
            report.states = checked
            return report
    if sample is not None or not table.storage.stores_moves:
        return verify_children(table, sample, progress=progress)
    return verify(table, progress=progress)


__all__ = ["check", "verify", "verify_by_search", "verify_children"]
