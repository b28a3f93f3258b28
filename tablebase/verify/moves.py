"""The audit of a variant that stores its moves: the stored moves and terminal outcomes against the
rules, and every stored label and distance against its children's."""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from tablebase.errors import TablebaseError
from tablebase.outcome import NAMES as _NAMES
from tablebase.results import VerifyReport
from tablebase.verify.checks import CHUNK, NONE, check_labels, check_states_vector, parse_chunk, report_rows

if TYPE_CHECKING:
    from tablebase.games.common.kernels import VectorKernels
    from tablebase.progress import Progress
    from tablebase.reader import StoredVariant


class _Stored:
    """The stored rows of one variant as arrays (keys kept only when asked for)."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        table: StoredVariant,
        keep_keys: bool,
        parse: Callable[[list[str]], Any] | None,
        progress: Progress | None = None,
    ):
        self.conn = conn
        self.storage = table.storage
        ids, to_move, terminal, outcome, distance, keys, parsed = [], [], [], [], [], [], []
        for rows in table.storage.state_chunks(conn, CHUNK):
            ids.append(rows.refs)
            to_move.extend(rows.to_move)
            terminal.append(rows.terminal)
            outcome.append(rows.outcome)
            distance.append(rows.distance)
            if keep_keys:
                keys.extend(rows.keys)
            if parse is not None:
                parsed.append(parse_chunk(rows, parse))
            if progress is not None:
                progress("read", sum(len(part) for part in ids), table.info.states)
        self.ids = np.concatenate(ids) if ids else np.empty(0, dtype=np.int64)
        self.to_move = to_move
        self.terminal = np.concatenate(terminal) if terminal else np.empty(0, dtype=bool)
        self.outcome = np.concatenate(outcome) if outcome else np.empty(0, dtype=np.int8)
        self.distance = np.concatenate(distance) if distance else np.empty(0, dtype=np.int64)
        self.keys: list[str] | None = keys if keep_keys else None
        if parse is not None and parsed:
            self.states = np.concatenate([s for s, _ in parsed])
            self.parsed = np.concatenate([ok for _, ok in parsed])
        else:
            self.states = np.empty(0, dtype=np.uint64)
            self.parsed = np.empty(0, dtype=bool)
        self._key_cache: dict[int, str] = {}

    def key(self, i: int) -> str:
        """The stored key of row ``i``."""
        if self.keys is not None:
            return self.keys[i]
        key = self._key_cache.get(i)
        if key is None:
            key = self._key_cache[i] = self.storage.key(self.conn, int(self.ids[i]))
        return key


def verify(
    table: StoredVariant, rules: bool = True, vector: bool | None = None, progress: Progress | None = None
) -> VerifyReport:
    """Check every state of ``table``; the report lists each disagreement.

    ``vector`` chooses the rules check: ``None`` uses the game's array
    kernels when it has them (and the variant is complete), ``False`` the
    state-by-state check. ``progress`` hears of each phase: ``read`` (the
    states), ``moves`` (the stored moves), ``rules`` and ``labels``.
    """
    with table.snapshot() as conn:
        return _verify(conn, table, rules, vector, progress)


def _verify(
    conn: sqlite3.Connection, table: StoredVariant, rules: bool, vector: bool | None, progress: Progress | None
) -> VerifyReport:
    report = VerifyReport(table.name)
    use_kernels = rules and table.info.complete and vector is not False
    kernels = table.game.vector if use_kernels else None
    stored = _Stored(
        conn, table, keep_keys=rules and kernels is None, parse=kernels.parse_positions if kernels else None, progress=progress
    )
    n = len(stored.ids)
    edges_read = 0
    move_ids: dict[str, int] = {}
    src_ids, dst_ids, moves = [], [], []
    for chunk in table.storage.edge_chunks(conn, CHUNK) or ():
        src_ids.append(chunk.from_refs)
        names, inverse = np.unique(np.array(chunk.moves, dtype=object).astype(str), return_inverse=True)
        codes = np.array([move_ids.setdefault(str(t), len(move_ids)) for t in names], dtype=np.int64)
        moves.append(codes[inverse.ravel()])
        dst_ids.append(chunk.to_refs)
        edges_read += len(chunk.to_refs)
        if progress is not None:
            progress("moves", edges_read, table.info.moves)
    src_id = np.concatenate(src_ids) if src_ids else np.empty(0, dtype=np.int64)
    dst_id = np.concatenate(dst_ids) if dst_ids else np.empty(0, dtype=np.int64)
    move = np.concatenate(moves) if moves else np.empty(0, dtype=np.int64)
    del src_ids, dst_ids, moves
    report.states, report.moves = n, len(src_id)
    if not n:
        if table.info.complete:
            report.add("no states stored")
        return report
    src = np.searchsorted(stored.ids, src_id)
    dst = np.searchsorted(stored.ids, dst_id)
    if len(src_id) and (
        np.any(dst >= n)
        or np.any(stored.ids[np.minimum(dst, n - 1)] != dst_id)
        or np.any(src >= n)
        or np.any(stored.ids[np.minimum(src, n - 1)] != src_id)
    ):
        report.add("moves lead to states of another variant")
        return report
    if rules:
        if progress is not None:
            progress("rules", 0, n)
        if kernels is not None:
            _check_rules_vector(table, kernels, stored, src, move, dst, move_ids, report)
        else:
            texts = {i: m for m, i in move_ids.items()}
            edges = [(int(a), texts[int(b)], int(c)) for a, b, c in zip(src_id, move, dst_id)]
            _check_rules(table, stored, edges, report)
        if progress is not None:
            progress("rules", n, n)
    if progress is not None:
        progress("labels", 0, n)
    check_labels(
        stored.key, stored.terminal, stored.outcome, stored.distance, src, stored.outcome[dst], stored.distance[dst],
        table.info.complete, report,
    )
    if progress is not None:
        progress("labels", n, n)
    return report


def _check_rules(table: StoredVariant, stored_rows: _Stored, edges: list[tuple[int, str, int]], report: VerifyReport) -> None:
    game = table.game
    symmetric = table.info.symmetry
    keys = stored_rows.keys or []
    stored: dict[int, set[tuple[str, int]]] = {}
    for from_id, move, to_id in edges:
        stored.setdefault(from_id, set()).add((move, to_id))
    id_of = {key: int(i) for key, i in zip(keys, stored_rows.ids)}
    for i, key in enumerate(keys):
        state_id = int(stored_rows.ids[i])
        to_move = stored_rows.to_move[i]
        is_terminal = bool(stored_rows.terminal[i])
        outcome = _NAMES.get(int(stored_rows.outcome[i]))
        distance = None if stored_rows.distance[i] == NONE else int(stored_rows.distance[i])
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
        if is_terminal != (result is not None):
            report.add(f"{key}: stored terminal={is_terminal}, rules say {result is not None}")
            continue
        if result is not None:
            if outcome != result or distance != 0:
                report.add(f"{key}: terminal {outcome}/{distance}, rules say {result}/0")
            continue
        if not table.info.complete and state_id not in stored:
            continue
        expected = set()
        for code, child in game.children(state):
            canon = game.canonical(child)[0] if symmetric else child
            expected.add((game.format_move(code), id_of.get(game.format_position(canon), -1)))
        have = stored.get(state_id, set())
        if have != expected:
            missing = sorted(m for m, _ in expected - have)
            extra = sorted(m for m, _ in have - expected)
            report.add(f"{key}: stored moves differ from the rules (missing {missing}, extra {extra})")


def _check_rules_vector(
    table: StoredVariant,
    kernels: VectorKernels,
    stored: _Stored,
    src: np.ndarray,
    move: np.ndarray,
    dst: np.ndarray,
    move_ids: dict[str, int],
    report: VerifyReport,
) -> None:
    """The rules check of :func:`_check_rules` on arrays, for a complete variant."""
    game = table.game
    n = len(stored.ids)
    states = stored.states
    valid, ends = check_states_vector(
        table, kernels, stored.key, states, stored.parsed, stored.to_move, stored.terminal, stored.outcome,
        stored.distance, report,
    )
    chunks = [slice(lo, min(n, lo + CHUNK)) for lo in range(0, n, CHUNK)]

    # the moves of every valid non-terminal state: generated by the rules, looked up among the stored states
    checked = valid & ~ends
    order = np.argsort(states)
    sorted_states = states[order]
    texts: dict[int, int] = {}
    exp_src, exp_move, exp_dst = [], [], []
    for c in chunks:
        live = np.flatnonzero(checked[c]) + c.start
        if not live.size:
            continue
        parent, codes, child = kernels.children(states[live])
        if table.info.symmetry:
            child = kernels.canonical(child)
        pos = np.minimum(np.searchsorted(sorted_states, child), n - 1)
        found = sorted_states[pos] == child
        for code in np.unique(codes).tolist():
            if code not in texts:
                texts[code] = move_ids.setdefault(game.format_move(code), len(move_ids))
        lookup = np.zeros(max(texts) + 1, dtype=np.int64)
        lookup[list(texts)] = list(texts.values())
        exp_src.append(live[parent])
        exp_move.append(lookup[codes])
        exp_dst.append(np.where(found, order[pos], -1))
    e_src = np.concatenate(exp_src) if exp_src else np.empty(0, dtype=np.int64)
    e_move = np.concatenate(exp_move) if exp_move else np.empty(0, dtype=np.int64)
    e_dst = np.concatenate(exp_dst) if exp_dst else np.empty(0, dtype=np.int64)
    keep = checked[src]
    s_src, s_move, s_dst = src[keep], move[keep], dst[keep]

    differ = np.bincount(s_src, minlength=n) != np.bincount(e_src, minlength=n)
    width = max(len(move_ids), 1)
    same_s, same_e = ~differ[s_src], ~differ[e_src]
    s_key, e_key = s_src[same_s] * width + s_move[same_s], e_src[same_e] * width + e_move[same_e]
    s_order, e_order = np.argsort(s_key, kind="stable"), np.argsort(e_key, kind="stable")
    s_key, e_key = s_key[s_order], e_key[e_order]
    unequal = (s_key != e_key) | (s_dst[same_s][s_order] != e_dst[same_e][e_order])
    differ[s_key[unequal] // width] = True

    names = {i: m for m, i in move_ids.items()}

    def moves_message(i: int) -> str:
        have = {(names[int(m)], int(d)) for m, d in zip(s_move[s_src == i], s_dst[s_src == i])}
        expected = {(names[int(m)], int(d)) for m, d in zip(e_move[e_src == i], e_dst[e_src == i])}
        missing = sorted(m for m, _ in expected - have)
        extra = sorted(m for m, _ in have - expected)
        return f"{stored.key(i)}: stored moves differ from the rules (missing {missing}, extra {extra})"

    report_rows(report, np.flatnonzero(differ), moves_message)
