"""What the audits share: one stored state against the rules, one label against its children's,
on arrays, and the report of what disagrees (the first few shown, the rest counted)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

import numpy as np

from tablebase.errors import TablebaseError
from tablebase.outcome import NAMES as _NAMES
from tablebase.outcome import NO_DISTANCE

if TYPE_CHECKING:
    from tablebase.games.common.kernels import VectorKernels
    from tablebase.reader import StoredVariant
    from tablebase.results import VerifyReport
    from tablebase.store.storage import StateChunk

NONE = NO_DISTANCE
#: Rows read, and states expanded, at a time.
CHUNK = 200_000
#: Shown disagreements per check; the rest are only counted.
SHOWN = 50


def parse_chunk(rows: StateChunk, parse: Callable[[list[str]], tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    """``(states, parsed)`` of a chunk: the storage's integers when it has them, else its keys parsed."""
    if rows.states is not None:
        return rows.states, np.ones(len(rows.states), dtype=bool)
    return parse(rows.keys)


def report_rows(report: VerifyReport, rows: np.ndarray, message: Callable[[int], str]) -> None:
    """Add a message for the first rows of ``rows`` and count the rest."""
    for i in rows[:SHOWN]:
        report.add(message(int(i)))
    report.error_count += max(0, len(rows) - SHOWN)


def check_states_vector(
    table: StoredVariant,
    kernels: VectorKernels,
    key: Callable[[int], str],
    states: np.ndarray,
    parsed: np.ndarray,
    to_move: list[str],
    terminal: np.ndarray,
    outcome: np.ndarray,
    distance: np.ndarray,
    report: VerifyReport,
) -> tuple[np.ndarray, np.ndarray]:
    """The rules on each stored state alone: its key parses, is canonical, and its side to move,
    terminal flag and terminal outcome agree with the kernels. Returns ``(valid, ends)``: the rows
    that parsed with the right terminal flag, and the rows the rules call terminal."""
    game = table.game
    n = len(states)
    valid = parsed.copy()

    def unparsed(i: int) -> str:
        try:
            game.parse_position(key(i))
        except TablebaseError as exc:
            return f"{key(i)}: stored key does not parse ({exc})"
        return f"{key(i)}: stored key does not parse"

    report_rows(report, np.flatnonzero(~valid), unparsed)
    chunks = [slice(lo, min(n, lo + CHUNK)) for lo in range(0, n, CHUNK)]
    if table.info.symmetry:
        canonical = np.concatenate([kernels.canonical(states[c]) for c in chunks]) if n else states
        report_rows(
            report,
            np.flatnonzero(valid & (canonical != states)),
            lambda i: f"{key(i)}: stored key is not the canonical form of its class",
        )
    rules_to_move = np.array([m for c in chunks for m in kernels.to_move(states[c])], dtype=object)
    wrong_side = np.flatnonzero(valid & (rules_to_move != np.array(to_move, dtype=object)))
    report_rows(
        report,
        wrong_side,
        lambda i: f"{key(i)}: stored side to move {to_move[i]!r}, rules say {rules_to_move[i]!r}",
    )
    result = np.concatenate([kernels.outcome(states[c]) for c in chunks]) if n else np.empty(0, dtype=np.int8)
    ends = result != 0
    report_rows(
        report,
        np.flatnonzero(valid & (terminal != ends)),
        lambda i: f"{key(i)}: stored terminal={bool(terminal[i])}, rules say {bool(ends[i])}",
    )
    valid &= terminal == ends

    def terminal_message(i: int) -> str:
        d = None if distance[i] == NONE else int(distance[i])
        return f"{key(i)}: terminal {_NAMES.get(int(outcome[i]))}/{d}, rules say {_NAMES[int(result[i])]}/0"

    report_rows(report, np.flatnonzero(valid & ends & ((outcome != result) | (distance != 0))), terminal_message)
    return valid, ends


def check_labels(
    key: Callable[[int], str],
    terminal: np.ndarray,
    outcome: np.ndarray,
    distance: np.ndarray,
    src: np.ndarray,
    child_outcome: np.ndarray,
    child_distance: np.ndarray,
    complete: bool,
    report: VerifyReport,
) -> None:
    """Each state's label against the labels of its children (edge ``i`` leads from state ``src[i]``
    to a child labelled ``child_outcome[i]``/``child_distance[i]``)."""
    n = len(terminal)
    big = np.iinfo(np.int64).max
    outdeg = np.bincount(src, minlength=n)

    lost = child_outcome == 2
    has_lost_child = np.bincount(src[lost], minlength=n) > 0
    min_lost = np.full(n, big, dtype=np.int64)
    np.minimum.at(min_lost, src[lost], child_distance[lost])

    won = child_outcome == 1
    all_won = np.bincount(src[won], minlength=n) == outdeg
    max_won = np.full(n, -1, dtype=np.int64)
    np.maximum.at(max_won, src[won], child_distance[won])

    drawn = child_outcome == 3
    endless = np.bincount(src[drawn & (child_distance == NONE)], minlength=n) > 0
    max_drawn = np.full(n, -1, dtype=np.int64)
    np.maximum.at(max_drawn, src[drawn], child_distance[drawn])

    exp_outcome = np.where(has_lost_child, 1, np.where(all_won, 2, 3)).astype(np.int8)
    exp_distance = np.where(
        has_lost_child, min_lost + 1, np.where(all_won, max_won + 1, np.where(endless, NONE, max_drawn + 1))
    )
    # a position stored with moves has all of them (a variant solved position by position also
    # stores the children of those without their moves; their labels rest on the search)
    check = ~terminal & (outdeg > 0)

    def label_message(i: int) -> str:
        d = None if distance[i] == NONE else int(distance[i])
        e = None if exp_distance[i] == NONE else int(exp_distance[i])
        return f"{key(i)}: stored {_NAMES.get(int(outcome[i]))}/{d}, children say {_NAMES[int(exp_outcome[i])]}/{e}"

    report_rows(report, np.flatnonzero(check & ((exp_outcome != outcome) | (exp_distance != distance))), label_message)
    if complete:
        report_rows(
            report,
            np.flatnonzero(~terminal & (outdeg == 0)),
            lambda i: f"{key(i)}: not terminal but has no stored moves",
        )


def check_children_arrays(
    kernels: VectorKernels,
    symmetry: bool,
    state: np.ndarray,
    label: np.ndarray,
    dist: np.ndarray,
    rows_at: np.ndarray,
    target: np.ndarray,
    target_label: np.ndarray,
    target_dist: np.ndarray,
    key: Callable[[int], str],
    report: VerifyReport,
) -> None:
    """The labels of the live states ``state[rows_at]`` against their children's, found by binary search
    among the sorted states ``target``; parents with a child missing there are reported."""
    if not rows_at.size:
        return
    m = len(target)
    parent, _, child = kernels.children(state[rows_at])
    if symmetry:
        child = kernels.canonical(child)
    report.moves += len(child)
    by_child = np.argsort(child)
    pos = np.empty(len(child), dtype=np.int64)
    pos[by_child] = np.minimum(np.searchsorted(target, child[by_child]), max(m - 1, 0))
    found = target[pos] == child if m else np.zeros(len(child), dtype=bool)
    complete = np.ones(len(rows_at), dtype=bool)
    complete[parent[~found]] = False
    report_rows(report, rows_at[~complete], lambda i: f"{key(i)}: a position after one of its moves is not stored")
    keep = complete[parent]
    local = np.cumsum(complete) - 1
    checked = rows_at[complete]
    target_at = pos[keep]
    check_labels(
        lambda i: key(int(checked[i])),
        np.zeros(len(checked), dtype=bool),
        label[checked],
        dist[checked].astype(np.int64),
        local[parent[keep]],
        target_label[target_at],
        target_dist[target_at].astype(np.int64),
        True,
        report,
    )
