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
"""

from __future__ import annotations

import random
import sqlite3
from itertools import islice
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator

import numpy as np

from tablebase.errors import TablebaseError
from tablebase.outcome import NAMES as _NAMES
from tablebase.outcome import NO_DISTANCE, label_from_children
from tablebase.results import VerifyReport

if TYPE_CHECKING:
    from tablebase.games.common.kernels import VectorKernels
    from tablebase.reader import StoredVariant
    from tablebase.store.storage import Row, StateChunk
    from tablebase.progress import Progress

_NONE = NO_DISTANCE
_CHUNK = 200_000
#: Shown disagreements per check; the rest are only counted.
_SHOWN = 50


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
        for rows in table.storage.state_chunks(conn, _CHUNK):
            ids.append(rows.refs)
            to_move.extend(rows.to_move)
            terminal.append(rows.terminal)
            outcome.append(rows.outcome)
            distance.append(rows.distance)
            if keep_keys:
                keys.extend(rows.keys)
            if parse is not None:
                parsed.append(_parse(rows, parse))
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


def _parse(rows: StateChunk, parse: Callable[[list[str]], tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    """``(states, parsed)`` of a chunk: the storage's integers when it has them, else its keys parsed."""
    if rows.states is not None:
        return rows.states, np.ones(len(rows.states), dtype=bool)
    return parse(rows.keys)


class _Refs:
    """The references of rows read chunk by chunk, kept as one range while they are consecutive."""

    def __init__(self) -> None:
        self.first: int | None = None
        self.count = 0
        self.parts: list[np.ndarray] | None = None

    def add(self, refs: np.ndarray) -> None:
        if not refs.size:
            return
        if self.parts is None:
            if self.first is None:
                self.first = int(refs[0])
            if int(refs[0]) == self.first + self.count and int(refs[-1]) - int(refs[0]) + 1 == refs.size:
                self.count += int(refs.size)
                return
            self.parts = [np.arange(self.first, self.first + self.count, dtype=np.int64)]
        self.parts.append(refs)

    def lookup(self) -> Callable[[int], int]:
        """The reference of the ``i``-th row added."""
        if self.parts is None:
            first = self.first or 0
            return lambda i: first + i
        refs = np.concatenate(self.parts)
        return lambda i: int(refs[i])


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
    for chunk in table.storage.edge_chunks(conn, _CHUNK) or ():
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
    _check_labels(
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
        distance = None if stored_rows.distance[i] == _NONE else int(stored_rows.distance[i])
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


def _report(report: VerifyReport, rows: np.ndarray, message: Callable[[int], str]) -> None:
    """Add a message for the first rows of ``rows`` and count the rest."""
    for i in rows[:_SHOWN]:
        report.add(message(int(i)))
    report.error_count += max(0, len(rows) - _SHOWN)


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
    valid, ends = _check_states_vector(
        table, kernels, stored.key, states, stored.parsed, stored.to_move, stored.terminal, stored.outcome,
        stored.distance, report,
    )
    chunks = [slice(lo, min(n, lo + _CHUNK)) for lo in range(0, n, _CHUNK)]

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

    _report(report, np.flatnonzero(differ), moves_message)


def _check_states_vector(
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

    _report(report, np.flatnonzero(~valid), unparsed)
    chunks = [slice(lo, min(n, lo + _CHUNK)) for lo in range(0, n, _CHUNK)]
    if table.info.symmetry:
        canonical = np.concatenate([kernels.canonical(states[c]) for c in chunks]) if n else states
        _report(
            report,
            np.flatnonzero(valid & (canonical != states)),
            lambda i: f"{key(i)}: stored key is not the canonical form of its class",
        )
    rules_to_move = np.array([m for c in chunks for m in kernels.to_move(states[c])], dtype=object)
    wrong_side = np.flatnonzero(valid & (rules_to_move != np.array(to_move, dtype=object)))
    _report(
        report,
        wrong_side,
        lambda i: f"{key(i)}: stored side to move {to_move[i]!r}, rules say {rules_to_move[i]!r}",
    )
    result = np.concatenate([kernels.outcome(states[c]) for c in chunks]) if n else np.empty(0, dtype=np.int8)
    ends = result != 0
    _report(
        report,
        np.flatnonzero(valid & (terminal != ends)),
        lambda i: f"{key(i)}: stored terminal={bool(terminal[i])}, rules say {bool(ends[i])}",
    )
    valid &= terminal == ends

    def terminal_message(i: int) -> str:
        d = None if distance[i] == _NONE else int(distance[i])
        return f"{key(i)}: terminal {_NAMES.get(int(outcome[i]))}/{d}, rules say {_NAMES[int(result[i])]}/0"

    _report(report, np.flatnonzero(valid & ends & ((outcome != result) | (distance != 0))), terminal_message)
    return valid, ends


def _check_labels(
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
    endless = np.bincount(src[drawn & (child_distance == _NONE)], minlength=n) > 0
    max_drawn = np.full(n, -1, dtype=np.int64)
    np.maximum.at(max_drawn, src[drawn], child_distance[drawn])

    exp_outcome = np.where(has_lost_child, 1, np.where(all_won, 2, 3)).astype(np.int8)
    exp_distance = np.where(
        has_lost_child, min_lost + 1, np.where(all_won, max_won + 1, np.where(endless, _NONE, max_drawn + 1))
    )
    # a position stored with moves has all of them (a variant solved position by position also
    # stores the children of those without their moves; their labels rest on the search)
    check = ~terminal & (outdeg > 0)

    def label_message(i: int) -> str:
        d = None if distance[i] == _NONE else int(distance[i])
        e = None if exp_distance[i] == _NONE else int(exp_distance[i])
        return f"{key(i)}: stored {_NAMES.get(int(outcome[i]))}/{d}, children say {_NAMES[int(exp_outcome[i])]}/{e}"

    _report(report, np.flatnonzero(check & ((exp_outcome != outcome) | (exp_distance != distance))), label_message)
    if complete:
        _report(
            report,
            np.flatnonzero(~terminal & (outdeg == 0)),
            lambda i: f"{key(i)}: not terminal but has no stored moves",
        )


def _verify_children_vector(
    conn: sqlite3.Connection,
    table: StoredVariant,
    kernels: VectorKernels,
    report: VerifyReport,
    progress: Progress | None = None,
) -> None:
    """:func:`verify_children` of every state on the array kernels.

    One pass reads the rows a chunk at a time and checks each state alone
    (:func:`_check_states_vector`), keeping the states and labels as arrays;
    these are sorted by state once, and then each chunk of parents has its
    children generated, found among the stored states by binary search, and
    its labels checked against theirs (:func:`_check_labels`). Memory is
    about 25 bytes per stored state.
    """
    refs = _Refs()
    states, outcome, distance, live = [], [], [], []
    for rows in table.storage.state_chunks(conn, _CHUNK):
        parsed, ok = _parse(rows, kernels.parse_positions)
        valid, ends = _check_states_vector(
            table, kernels, rows.keys.__getitem__, parsed, ok, rows.to_move, rows.terminal, rows.outcome,
            rows.distance, report,
        )
        report.states += len(rows.keys)
        if progress is not None:
            progress("read", report.states, table.info.states)
        refs.add(rows.refs)
        states.append(parsed)
        outcome.append(rows.outcome)
        distance.append(rows.distance.astype(np.int32))
        live.append(valid & ~ends)
    if not states:
        report.add("no states stored")
        return
    state = np.concatenate(states)
    del states
    order = np.argsort(state)
    state = state[order]
    label, dist, alive = (np.concatenate(parts)[order] for parts in (outcome, distance, live))
    del outcome, distance, live
    ref_of = refs.lookup()
    keys: dict[int, str] = {}

    def key(i: int) -> str:
        """The stored key of the ``i``-th state in sorted order."""
        if i not in keys:
            keys[i] = table.storage.key(conn, ref_of(int(order[i])))
        return keys[i]

    n = len(state)
    _report(report, np.flatnonzero(state[1:] == state[:-1]) + 1, lambda i: f"{key(i)}: stored twice")
    for lo in range(0, n, _CHUNK):
        rows_at = lo + np.flatnonzero(alive[lo : lo + _CHUNK])
        _check_children_arrays(kernels, table.info.symmetry, state, label, dist, rows_at, state, label, dist, key, report)
        if progress is not None:
            progress("children", min(n, lo + _CHUNK), n)


def verify_children(
    table: StoredVariant,
    sample: int | None = None,
    seed: int = 0,
    vector: bool | None = None,
    progress: Progress | None = None,
) -> VerifyReport:
    """Check stored states against their children derived from the rules (no moves table needed).

    Each checked state is parsed from its key; its terminal flag and outcome
    must match the rules, and its label must follow from the stored labels
    of its children (looked up by canonical key) by the rule of the builder.
    ``sample`` checks that many states drawn at random (with a fixed
    ``seed``); ``None`` checks every state, on the game's array kernels when
    it has them (``vector=False``: state by state). This is the check for
    states-only storage.
    """
    report = VerifyReport(table.name)
    with table.snapshot() as conn:
        count = table.info.states
        if not count:
            report.add("no states stored")
            return report
        kernels = table.game.vector
        if sample is None and kernels is not None and table.info.complete and vector is not False:
            layers = table.storage.sorted_layers(conn, report.add) if kernels.layered else None
            if layers is not None:
                _verify_layers_vector(table, kernels, layers, report, progress)
            else:
                _verify_children_vector(conn, table, kernels, report, progress)
            return report
        rows: Iterable[Row]
        if sample is None:
            rows = table.storage.rows(conn)
        else:
            rows = table.storage.sample(conn, min(sample, count), seed)
        total = count if sample is None else min(sample, count)
        empty = True
        for chunk in _chunks(rows, 2_000):
            empty = False
            _check_children(conn, table, chunk, report)
            if progress is not None:
                progress("check", report.states, total)
        if empty:
            report.add("no states stored")
    return report


def verify_by_search(
    table: StoredVariant, count: int, report: VerifyReport, seed: int = 0, progress: Progress | None = None
) -> None:
    """Re-prove ``count`` stored positions with moves, drawn at random (with a fixed ``seed``), by
    the search from nothing (a compiled table of its own, no stored value), adding to ``report``
    each position whose value, or one of whose moves' values, differs from the stored one."""
    from tablebase.solve.search import prove

    game = table.game
    with table.snapshot() as conn:
        if table.info.complete:
            rows = [row for row in table.storage.sample(conn, 4 * count, seed) if not row[3]]
        else:
            sources = {source for source, _, _ in table.storage.move_rows(conn)}
            expanded = [row for row in table.storage.rows(conn) if row[0] in sources]
            rows = random.Random(seed).sample(expanded, min(count, len(expanded)))
    picked = list({row[1]: row for row in rows}.values())[:count]
    compiled: Any = None
    for done, (_, key, _, _, outcome, distance) in enumerate(picked, 1):
        state = game.parse_position(key)
        result = prove(game, state, children=True, table=compiled)
        compiled = result.table if getattr(result.table, "reusable", False) else None
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


def _chunks(rows: Iterable[Row], size: int) -> Iterator[list[Row]]:
    it = iter(rows)
    while chunk := list(islice(it, size)):
        yield chunk


def _check_children(conn: sqlite3.Connection, table: StoredVariant, rows: list[Row], report: VerifyReport) -> None:
    game = table.game
    parsed = []
    for _, key, to_move, terminal, outcome, distance in rows:
        try:
            state = game.parse_position(key)
        except TablebaseError as exc:
            report.add(f"{key}: stored key does not parse: {exc}")
            continue
        report.states += 1
        result = game.outcome(state)
        if bool(terminal) != (result is not None):
            report.add(f"{key}: stored terminal={bool(terminal)}, rules say {result is not None}")
            continue
        if to_move != game.to_move(state):
            report.add(f"{key}: stored side to move {to_move!r}, rules say {game.to_move(state)!r}")
        if result is not None:
            if outcome != result or distance not in (0,):
                report.add(f"{key}: terminal {outcome}/{distance}, rules say {result}/0")
            continue
        parsed.append((key, outcome, distance, [child for _, child in game.children(state)]))
    children = [c for *_, kids in parsed for c in kids]
    report.moves += len(children)
    values = table.storage.values(conn, [table.canonical(c)[0] for c in children]) if children else []
    at = 0
    for key, outcome, distance, kids in parsed:
        mine = values[at : at + len(kids)]
        at += len(kids)
        if any(v is None for v in mine):
            report.add(f"{key}: a position after one of its moves is not stored")
            continue
        expected = label_from_children(v for v in mine if v is not None)
        if (outcome, distance) != expected:
            report.add(f"{key}: stored {outcome}/{distance}, children say {expected[0]}/{expected[1]}")


def _verify_layers_vector(
    table: StoredVariant,
    kernels: VectorKernels,
    layers: Iterator[tuple[int, np.ndarray, np.ndarray, np.ndarray]],
    report: VerifyReport,
    progress: Progress | None,
) -> None:
    """:func:`verify_children` of every state of a layered game whose storage hands out sorted plies:
    each ply is checked against the next one, where all its children lie (two plies in memory)."""
    game = table.game
    total = table.info.states
    current = next(layers, None)
    if current is None:
        report.add("no states stored")
        return
    while current is not None:
        ply, states, outcome, distance = current
        following = next(layers, None)
        if following is not None:
            _, target, t_outcome, t_distance = following
        else:
            target, t_outcome, t_distance = states[:0], outcome[:0], distance[:0]

        def key(i: int, states: np.ndarray = states) -> str:
            return game.format_position(int(states[i]))

        n = states.size
        report.states += n
        _report(report, np.flatnonzero(states[1:] <= states[:-1]) + 1, lambda i: f"{key(i)}: stored twice or out of order")
        layer = kernels.layer(states) if n else states
        _report(report, np.flatnonzero(layer != ply), lambda i: f"{key(i)}: stored in ply {ply}, rules say {int(layer[i])}")
        for lo in range(0, n, _CHUNK):
            part = states[lo : lo + _CHUNK]
            result = kernels.outcome(part)
            ends = result != 0
            if table.info.symmetry:
                _report(
                    report,
                    lo + np.flatnonzero(kernels.canonical(part) != part),
                    lambda i: f"{key(i)}: stored key is not the canonical form of its class",
                )
            wrong = ends & ((outcome[lo : lo + _CHUNK] != result) | (distance[lo : lo + _CHUNK] != 0))
            _report(
                report,
                lo + np.flatnonzero(wrong),
                lambda i: f"{key(i)}: terminal {_NAMES.get(int(outcome[i]))}/{int(distance[i])},"
                f" rules say {_NAMES[int(result[i - lo])]}/0",
            )
            rows_at = lo + np.flatnonzero(~ends)
            _check_children_arrays(
                kernels, table.info.symmetry, states, outcome, distance, rows_at, target, t_outcome, t_distance, key,
                report,
            )
            if progress is not None:
                progress("children", report.states - n + min(n, lo + _CHUNK), total)
        current = following


def _check_children_arrays(
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
    _report(report, rows_at[~complete], lambda i: f"{key(i)}: a position after one of its moves is not stored")
    keep = complete[parent]
    local = np.cumsum(complete) - 1
    checked = rows_at[complete]
    target_at = pos[keep]
    _check_labels(
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
