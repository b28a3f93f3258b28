"""Variants solved a position at a time: writing proved positions with all their moves, and
reading them back; also the ``variants`` and ``plies`` rows every write makes.

Plain :mod:`sqlite3` only, so that the first probe of a shipped opening table, which stores the
start position with its moves, stays quick.
"""

from __future__ import annotations

import json
import sqlite3
import time
from datetime import datetime, timezone
from typing import Any, Mapping

from tablebase.version import installed_version

#: Positions with their moves written between two looks at the clock by :func:`write_proved`.
GROUPS = 200

#: Columns of ``plies`` after ``variant_id`` and ``ply``.
PLY_COLUMNS = (
    "positions", "classes", "wins", "losses", "draws", "terminal", "win_positions", "loss_positions", "draw_positions",
)


def builder_version() -> str:
    """What the ``builder_version`` column records: the package and its version."""
    return f"tablebase {installed_version()}"


def insert_variant(
    cur: sqlite3.Cursor,
    variant_id: int,
    game: Any,
    root_key: str,
    *,
    symmetry: bool,
    storage: str,
    complete: bool = True,
    outcome: str | None = None,
    distance: int | None = None,
    states: int = 0,
    moves: int = 0,
    build_seconds: float = 0.0,
) -> None:
    """Insert the ``variants`` row of a build (the builder version and time are filled in here);
    ``symmetry`` is stored false for a game whose only symmetry is the identity (nothing is reduced)."""
    cur.execute(
        "INSERT INTO variants (id, name, family, rules, parameters, symmetry, complete, storage, root_key,"
        " outcome, distance, states_count, moves_count, build_seconds, builder_version, built_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            variant_id,
            game.name,
            game.family,
            game.rules,
            json.dumps(game.parameters()),
            symmetry and game.num_symmetries > 1,
            complete,
            storage,
            root_key,
            outcome,
            distance,
            states,
            moves,
            build_seconds,
            builder_version(),
            datetime.now(timezone.utc).replace(tzinfo=None).isoformat(sep=" "),
        ),
    )


#: SQL sums over ``states AS s JOIN variants AS v`` of the positions won, lost and drawn for the side to move
#: (a stored state of a symmetry-reduced variant stands for its whole orbit).
POSITION_OUTCOMES = ", ".join(
    f"SUM(CASE WHEN s.outcome = '{label}' THEN (CASE WHEN v.symmetry THEN s.orbit ELSE 1 END) ELSE 0 END)"
    for label in ("win", "loss", "draw")
)


def recount_plies(cur: sqlite3.Cursor, variant_id: int) -> None:
    """Recompute the variant's rows of ``plies`` from its stored states (variants solved a few positions at a
    time), leaving those of what it stores in blocks (a variant built tier by tier keeps its tiers' rows)."""
    cur.execute(
        "DELETE FROM plies WHERE variant_id = ? AND ply NOT IN (SELECT ply FROM blocks WHERE variant_id = ?)",
        (variant_id, variant_id),
    )
    cur.execute(
        f"INSERT INTO plies (variant_id, ply, {', '.join(PLY_COLUMNS)})"
        " SELECT s.variant_id, s.ply,"
        " CASE WHEN v.symmetry THEN SUM(s.orbit) ELSE COUNT(*) END,"
        " CASE WHEN v.symmetry THEN COUNT(*) ELSE SUM(s.representative) END,"
        " SUM(s.outcome = 'win'), SUM(s.outcome = 'loss'), SUM(s.outcome = 'draw'), SUM(s.terminal),"
        f" {POSITION_OUTCOMES}"
        " FROM states AS s JOIN variants AS v ON v.id = s.variant_id WHERE s.variant_id = ?"
        " AND s.ply NOT IN (SELECT ply FROM blocks WHERE variant_id = ?) GROUP BY s.ply",
        (variant_id, variant_id),
    )


def write_proved(
    conn: sqlite3.Connection,
    game: Any,
    positions: Mapping[int, tuple[str, int | None]],
    edges: list[tuple[int, int, int]],
    seconds: float,
    deadline: float | None = None,
) -> int:
    """Add proved positions (canonical states) and the moves between them to a
    variant solved from positions, in one transaction; returns how many states were new.

    ``edges`` come grouped by their first state, each group all the moves of
    that position (a position stored with moves has every legal move); they
    are written group by group with their children, in the order given, and
    at ``deadline`` (a :func:`time.perf_counter` value) the rest is left out,
    so every position written keeps a complete move list. Positions already
    stored are not stored again. The variant is created on first use with
    ``complete`` false; the start position's value is filled in once it is proved.
    """
    started = time.perf_counter()
    groups: dict[int, list[tuple[int, int]]] = {}
    for a, m, b in edges:
        groups.setdefault(a, []).append((m, b))
    in_groups = set(groups).union(b for _, _, b in edges)
    alone = [s for s in positions if s not in in_groups]
    keys: dict[int, str] = {}

    def key(state: int) -> str:
        text = keys.get(state)
        if text is None:
            text = keys[state] = game.format_position(state)
        return text

    conn.isolation_level = None
    cur = conn.cursor()
    cur.execute("BEGIN IMMEDIATE")
    try:
        cur.execute("SELECT id, build_seconds FROM variants WHERE name = ?", (game.name,))
        row = cur.fetchone()
        root = game.canonical(game.initial_state())[0]
        if row is None:
            cur.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM variants")
            variant_id = cur.fetchone()[0]
            insert_variant(cur, variant_id, game, game.format_position(root), symmetry=True, storage="moves", complete=False)
        else:
            variant_id = row[0]
        before = cur.execute("SELECT COUNT(*) FROM states WHERE variant_id = ?", (variant_id,)).fetchone()[0]
        moves_before = cur.execute(
            "SELECT COUNT(*) FROM moves WHERE from_state IN (SELECT id FROM states WHERE variant_id = ?)",
            (variant_id,),
        ).fetchone()[0]
        ids: dict[int, int] = {}

        def store(states: list[int]) -> None:
            """Insert the rows of ``states`` not stored yet, and learn the ids of all of them."""
            states = [s for s in dict.fromkeys(states) if s not in ids]
            known: dict[str, int] = {}

            def look_up(keys: list[str]) -> None:
                for lo in range(0, len(keys), 500):
                    part = keys[lo : lo + 500]
                    known.update(
                        cur.execute(
                            f"SELECT key, id FROM states WHERE variant_id = ? AND key IN ({','.join('?' * len(part))})",
                            (variant_id, *part),
                        ).fetchall()
                    )

            look_up([key(s) for s in states])
            rows = []
            for state in states:
                if key(state) in known:
                    continue
                ply = game.plies_played(state)
                if ply is None:
                    raise ValueError(f"{game.name} does not tell the ply of a position")
                outcome, distance = positions[state]
                rows.append(
                    (
                        variant_id,
                        key(state),
                        game.to_move(state),
                        ply,
                        game.outcome(state) is not None,
                        outcome,
                        distance,
                        game.orbit_size(state),
                    )
                )
            cur.executemany(
                "INSERT INTO states (variant_id, key, to_move, ply, terminal, outcome, distance, orbit,"
                " representative) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1)",
                rows,
            )
            look_up([r[1] for r in rows])
            for state in states:
                ids[state] = known[key(state)]

        store(alone)
        order = list(groups)
        for lo in range(0, len(order), GROUPS):
            if lo and deadline is not None and time.perf_counter() > deadline:
                break
            part = order[lo : lo + GROUPS]
            store([s for a in part for s in (a, *(b for _, b in groups[a]))])
            cur.executemany(
                "INSERT OR IGNORE INTO moves (from_state, move, to_state) VALUES (?, ?, ?)",
                [(ids[a], game.format_move(m), ids[b]) for a in part for m, b in groups[a]],
            )
        recount_plies(cur, variant_id)
        after = cur.execute("SELECT COUNT(*) FROM states WHERE variant_id = ?", (variant_id,)).fetchone()[0]
        moves = cur.execute(
            "SELECT COUNT(*) FROM moves WHERE from_state IN (SELECT id FROM states WHERE variant_id = ?)",
            (variant_id,),
        ).fetchone()[0]
        start = cur.execute(
            "SELECT outcome, distance FROM states WHERE variant_id = ? AND key = ?",
            (variant_id, game.format_position(root)),
        ).fetchone()
        cur.execute(
            "UPDATE variants SET states_count = states_count + ?, moves_count = moves_count + ?,"
            " build_seconds = build_seconds + ?, outcome = ?, distance = ? WHERE id = ?",
            (
                after - before,
                moves - moves_before,
                seconds + time.perf_counter() - started,
                start[0] if start else None,
                start[1] if start else None,
                variant_id,
            ),
        )
        cur.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            cur.execute("ROLLBACK")
        raise
    return int(after - before)


def read_proved(
    conn: sqlite3.Connection, game: Any, variant_id: int, state: int, seconds: float | None
) -> dict[int, tuple[str, int | None]]:
    """The stored labels of a variant solved from positions (by :func:`write_proved`) that are at
    least as far into the game as ``state`` and match one of its key patterns, nearest first,
    read for at most ``seconds``."""
    stop = None if seconds is None else time.perf_counter() + seconds
    ply = game.plies_played(state) or 0
    patterns = game.key_patterns(state) or ["%"]
    known: dict[int, tuple[str, int | None]] = {}
    rows = conn.execute(
        "SELECT key, outcome, distance FROM states WHERE variant_id = ? AND ply >= ? AND NOT terminal"
        f" AND ({' OR '.join(['key LIKE ?'] * len(patterns))}) ORDER BY ply",
        (variant_id, ply, *patterns),
    )
    for key, outcome, distance in rows:
        known[game.parse_position(key)] = (outcome, distance)
        if stop is not None and len(known) & 63 == 0 and time.perf_counter() > stop:
            break
    return known
