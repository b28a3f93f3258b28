"""The independent audit of a built variant.

Re-derives every stored label and distance from the stored moves, and checks
the stored moves and terminal outcomes against the rules, without using the
builder. Local agreement everywhere implies the labels are exact: by
induction on distance, every won or lost label is proved by its children, and
a state with a lost (or an only-won) set of children cannot pass as a draw.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from tablebase.errors import TablebaseError

if TYPE_CHECKING:
    from tablebase.query import VariantTable, VerifyReport

_CODES = {"win": 1, "loss": 2, "draw": 3}
_NAMES = {1: "win", 2: "loss", 3: "draw"}
_NONE = -1


def verify(table: VariantTable, rules: bool = True) -> VerifyReport:
    """Check every state of ``table``; the report lists each disagreement."""
    from tablebase.query import VerifyReport

    report = VerifyReport(table.name)
    rows, edges = table.dump()
    report.states, report.moves = len(rows), len(edges)
    if not rows:
        report.add("no states stored")
        return report
    ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    keys = [r[1] for r in rows]
    terminal = np.fromiter((bool(r[3]) for r in rows), dtype=bool, count=len(rows))
    outcome = np.fromiter((_CODES[r[4]] for r in rows), dtype=np.int8, count=len(rows))
    distance = np.fromiter((_NONE if r[5] is None else r[5] for r in rows), dtype=np.int64, count=len(rows))
    src = np.searchsorted(ids, np.fromiter((e[0] for e in edges), dtype=np.int64, count=len(edges)))
    dst_ids = np.fromiter((e[2] for e in edges), dtype=np.int64, count=len(edges))
    dst = np.searchsorted(ids, dst_ids)
    if edges and (np.any(dst >= len(ids)) or np.any(ids[np.minimum(dst, len(ids) - 1)] != dst_ids)):
        report.add("moves lead to states of another variant")
        return report
    if rules:
        _check_rules(table, rows, keys, edges, report)
    _check_labels(keys, terminal, outcome, distance, src, dst, table.info.complete, report)
    return report


def _check_rules(table: VariantTable, rows: list, keys: list[str], edges: list, report: VerifyReport) -> None:
    game = table.game
    symmetric = table.info.symmetry
    stored: dict[int, set[tuple[str, int]]] = {}
    for from_id, move, to_id in edges:
        stored.setdefault(from_id, set()).add((move, to_id))
    id_of = {key: r[0] for key, r in zip(keys, rows)}
    for (state_id, key, to_move, is_terminal, outcome, distance) in rows:
        try:
            state = game.parse_position(key)
        except TablebaseError as exc:
            report.add(f"{key}: stored key does not parse ({exc})")
            continue
        if symmetric and game.canonical(state)[0] != state:
            report.add(f"{key}: stored key is not the canonical form of its class")
        if game.to_move(state) != to_move:
            report.add(f"{key}: stored side to move {to_move!r}, rules say {game.to_move(state)!r}")
        result = game.outcome(state)
        if bool(is_terminal) != (result is not None):
            report.add(f"{key}: stored terminal={bool(is_terminal)}, rules say {result is not None}")
            continue
        if result is not None:
            if outcome != result or distance != 0:
                report.add(f"{key}: terminal {outcome}/{distance}, rules say {result}/0")
            continue
        if not table.info.complete and state_id not in stored:
            continue
        expected = set()
        for move, child in game.children(state):
            canon = game.canonical(child)[0] if symmetric else child
            expected.add((game.format_move(move), id_of.get(game.format_position(canon), -1)))
        have = stored.get(state_id, set())
        if table.info.complete and have != expected:
            missing = sorted(m for m, _ in expected - have)
            extra = sorted(m for m, _ in have - expected)
            report.add(f"{key}: stored moves differ from the rules (missing {missing}, extra {extra})")
        elif not have <= expected:
            report.add(f"{key}: stored moves are not legal: {sorted(m for m, _ in have - expected)}")


def _check_labels(
    keys: list[str],
    terminal: np.ndarray,
    outcome: np.ndarray,
    distance: np.ndarray,
    src: np.ndarray,
    dst: np.ndarray,
    complete: bool,
    report: VerifyReport,
) -> None:
    n = len(keys)
    child_outcome = outcome[dst]
    child_distance = distance[dst]
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
    endless = np.bincount(src[drawn & (child_distance == _NONE)], minlength=n) > 0
    max_drawn = np.full(n, -1, dtype=np.int64)
    np.maximum.at(max_drawn, src[drawn], child_distance[drawn])

    exp_outcome = np.where(has_lost_child, 1, np.where(all_won, 2, 3)).astype(np.int8)
    exp_distance = np.where(
        has_lost_child, min_lost + 1, np.where(all_won, max_won + 1, np.where(endless, _NONE, max_drawn + 1))
    )
    check = ~terminal & (outdeg > 0)
    if not complete:
        # only what was proved is stored: a win needs one stored losing child, a loss all children
        check &= ~(outcome == 1) | has_lost_child
    bad = np.flatnonzero(check & ((exp_outcome != outcome) | (exp_distance != distance)))
    for i in bad[:50]:
        d = None if distance[i] == _NONE else int(distance[i])
        e = None if exp_distance[i] == _NONE else int(exp_distance[i])
        report.add(f"{keys[i]}: stored {_NAMES[int(outcome[i])]}/{d}, children say {_NAMES[int(exp_outcome[i])]}/{e}")
    report.error_count += max(0, len(bad) - 50)
    orphan = np.flatnonzero(~terminal & (outdeg == 0))
    if complete:
        for i in orphan[:50]:
            report.add(f"{keys[i]}: not terminal but has no stored moves")
        report.error_count += max(0, len(orphan) - 50)
