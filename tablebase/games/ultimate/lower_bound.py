"""Seed 004's lower bound checked by machine: Olivia's strategy LBS against every Xavier.

Seed 004 (Bertholon, Géraud-Stewart, Kugelmann, Lenoir, Naccache, *At most 43
moves, at least 29*) gives O (Olivia) a strategy, LBS, and claims that with it
X (Xavier) cannot win before turn 29 (Lemma 4), through Lemma 5: after turn
18 (nine marks each) every field holds exactly one X. Turns count plies: turn
1 is X's first move, X moves on odd turns.

LBS, under seed 004's rules (a won field stays playable), when O plays in field
``i``:

1. if O is the first to play in field ``i`` (the field is empty), she plays
   ``(i, i)``, sending X back to field ``i``;
2. otherwise (X has a mark in field ``i``) she plays a free ``(i, j)`` such
   that field ``j`` holds no X; when there is no such spot she plays any free
   spot of field ``i``;
3. sent to a full field, she picks any field that is not full and plays in it
   by rules 1 and 2.

Wherever LBS leaves a choice (several ``j`` in rule 2, any spot in its last
clause, any field in rule 3) every choice is taken: :func:`lbs_moves` lists
them all. :func:`check_lower_bound` then finds the earliest turn at which X can
have won, over every X move and every LBS choice (both sides cooperating: a
shortest path, not a game), by iterative deepening on the target turn with a
transposition table over the eight symmetries of the board and a sound lower
bound on the turn of X's win (see :func:`win_bound` and docs/ultimate-solve.md).

    >>> report = check_lower_bound()          # doctest: +SKIP
    >>> report.holds, report.earliest_x_win   # doctest: +SKIP
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from tablebase.games.base import DRAW, LOSS
from tablebase.games.ultimate.lines import LINES, need_table
from tablebase.games.ultimate.rules import (
    ACTIVE,
    ANY,
    M81,
    O_SHIFT,
    WON_O,
    WON_X,
    Ultimate,
    move_name,
)

#: Seed 004, Lemma 4: LBS holds out at least this many turns (X cannot win before it).
CLAIMED_TURN = 29
#: Seed 004, Lemma 5: the turn after which every field holds exactly one X.
LEMMA5_TURN = 18

#: More X marks than any field can need: a field X can no longer win.
NEVER = 9


def field_needs(state: int) -> list[int]:
    """For each field, the fewest X marks still to place there before X has won it.

    0 for a field X has won; :data:`NEVER` for a field O has won or whose every
    line holds an O (won fields stay playable, but cannot be won again).
    """
    xs = state & M81
    os_ = (state >> O_SHIFT) & M81
    won_x = (state >> WON_X) & 511
    won_o = (state >> WON_O) & 511
    need = need_table()
    needs = []
    for f in range(9):
        if won_x >> f & 1:
            needs.append(0)
        elif won_o >> f & 1:
            needs.append(NEVER)
        else:
            needs.append(min(need[((xs >> (9 * f)) & 511) << 9 | ((os_ >> (9 * f)) & 511)], NEVER))
    return needs


def line_need(needs: list[int]) -> int:
    """The fewest X marks that win three fields in a line, given each field's need."""
    return min(needs[a] + needs[b] + needs[c] for a, b, c in META_LINES)


META_LINES = tuple(tuple(f for f in range(9) if line >> f & 1) for line in LINES)


def lbs_field_moves(state: int, f: int) -> list[int]:
    """The moves LBS allows O in field ``f`` (which must not be full)."""
    occ = (state | state >> O_SHIFT) & M81
    xs = state & M81
    here = (occ >> (9 * f)) & 511
    if here == 0:
        return [9 * f + f]
    wanted = [9 * f + j for j in range(9) if not here >> j & 1 and not (xs >> (9 * j)) & 511]
    if wanted:
        return wanted
    return [9 * f + j for j in range(9) if not here >> j & 1]


def lbs_moves(state: int) -> list[int]:
    """Every move LBS allows O in ``state`` (O to move, game not over), each free choice included."""
    active = (state >> ACTIVE) & 15
    if active != ANY:
        return lbs_field_moves(state, active)
    occ = (state | state >> O_SHIFT) & M81
    moves: list[int] = []
    for f in range(9):
        if (occ >> (9 * f)) & 511 != 511:
            moves += lbs_field_moves(state, f)
    return moves


def x_counts(state: int) -> tuple[int, ...]:
    """The number of X marks in each field."""
    xs = state & M81
    return tuple(((xs >> (9 * f)) & 511).bit_count() for f in range(9))


def funnel_invariant(state: int) -> bool:
    """Whether X, to move, is inside LBS's funnel (the invariant of docs/ultimate-solve.md).

    With Z the fields holding no X and ``f`` the active field: every field holds
    at most one X; ``f`` is in Z and holds nothing but maybe an O on ``(f, f)``;
    every other field of Z is empty; and no field has a mark on a spot ``(i, j)``
    with ``j`` in Z other than ``f``. The empty board qualifies. From such a
    position X's next ``|Z|`` moves go one into each field of Z, whatever X and
    LBS choose.
    """
    occ = (state | state >> O_SHIFT) & M81
    if occ == 0:
        return True
    active = (state >> ACTIVE) & 15
    if active == ANY:
        return False
    xs = state & M81
    counts = x_counts(state)
    if max(counts) > 1 or counts[active]:
        return False
    if (occ >> (9 * active)) & 511 not in (0, 1 << active) or (xs >> (9 * active + active)) & 1:
        return False
    for j in range(9):
        if counts[j] or j == active:
            continue
        if (occ >> (9 * j)) & 511:
            return False
        for i in range(9):
            if occ >> (9 * i + j) & 1:
                return False
    return True


def win_bound(state: int) -> int:
    """A turn before which X cannot have won from ``state`` (X to move), whatever either side plays
    within LBS.

    Each X move adds one mark to one field, so X needs at least
    :func:`line_need` more moves, one every other turn. Inside LBS's funnel
    (:func:`funnel_invariant`) the next ``z`` moves (``z`` = fields without an
    X) put one X in each of those fields and none elsewhere, so the fields that
    have an X gain nothing meanwhile: the bound counts those ``z`` moves first.
    """
    turn = (state & ((1 << 162) - 1)).bit_count() + 1
    needs = field_needs(state)
    plain = turn + 2 * (line_need(needs) - 1)
    if not funnel_invariant(state):
        return plain
    counts = x_counts(state)
    empty = [f for f in range(9) if not counts[f]]
    after = [max(needs[f] - 1, 0) if not counts[f] else needs[f] for f in range(9)]
    funnel = turn + 2 * (len(empty) - 1) + 2 * line_need(after)
    return max(plain, funnel)


def _report_dict(report: Any, names: tuple[str, ...]) -> dict[str, Any]:
    """The JSON of a report: its fields ``names``, then its seconds to the millisecond."""
    return {**{name: getattr(report, name) for name in names}, "seconds": round(report.seconds, 3)}


@dataclass
class LowerBoundReport:
    """What :func:`check_lower_bound` found."""

    #: Whether X cannot win before :data:`CLAIMED_TURN` against LBS (seed 004's Lemma 4).
    holds: bool
    #: The earliest turn (ply) at which X can have won against LBS; None if X can never win.
    earliest_x_win: int | None
    #: A line (cells, from the start) that reaches that win.
    line: list[str]
    #: Positions examined (nodes of the search, transpositions counted once per visit).
    positions: int
    seconds: float
    #: The fields' X counts (sorted, most first) after turn 18 over the positions the search reached there.
    lemma5_counts: dict[str, int] = field(default_factory=dict)
    #: Whether every field held exactly one X in every position reached after turn 18.
    lemma5_holds: bool = True
    #: Positions with X to move reached by the search, and how many of those were inside the funnel.
    x_nodes: int = 0
    funnel_nodes: int = 0
    #: The target turns tried, in order, and the positions examined for each.
    iterations: list[tuple[int, int]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            **_report_dict(self, ("holds", "earliest_x_win", "line", "positions")),
            "claimed": CLAIMED_TURN,
            "lemma5": {"holds": self.lemma5_holds, "x_counts_after_turn_18": self.lemma5_counts},
            "iterations": [{"target_turn": t, "positions": n} for t, n in self.iterations],
        }

    def summary(self) -> str:
        verdict = "holds" if self.holds else "FAILS"
        win = "never" if self.earliest_x_win is None else f"turn {self.earliest_x_win}"
        lines = [
            f"seed 004 lemma 4 (x cannot win before turn {CLAIMED_TURN} against LBS): {verdict}",
            f"earliest x win against LBS: {win}",
            f"line: {' '.join(self.line) if self.line else '-'}",
            f"lemma 5 (one x in every field after turn {LEMMA5_TURN}): "
            + ("holds" if self.lemma5_holds else "FAILS")
            + " on every position reached ("
            + ", ".join(f"{k}: {v:,}" for k, v in self.lemma5_counts.items())
            + ")",
            f"positions examined: {self.positions:,} (x to move {self.x_nodes:,}, inside the funnel {self.funnel_nodes:,})",
            "target turns: " + ", ".join(f"{t} ({n:,} positions)" for t, n in self.iterations),
            f"seconds: {self.seconds:.1f}",
        ]
        return "\n".join(lines)


class _Search:
    """Iterative deepening on the turn of X's win; X and LBS's choices both taken as OR nodes."""

    def __init__(self) -> None:
        self.game = Ultimate(classic=False)
        #: canonical state -> the largest target turn proved out of reach from it.
        self.failed: dict[int, int] = {}
        self.positions = 0
        self.x_nodes = 0
        self.funnel_nodes = 0
        self.lemma5: Counter[tuple[int, ...]] = Counter()

    def canonical(self, state: int) -> int:
        return min(self.game.transform(state, sym) for sym in range(8))

    def x_turn(self, state: int, target: int) -> list[int] | None:
        """A line of moves from ``state`` (X to move) to an X win by turn ``target``, or None."""
        self.positions += 1
        self.x_nodes += 1
        turn = (state & ((1 << 162) - 1)).bit_count() + 1
        if turn == LEMMA5_TURN + 1:
            self.lemma5[tuple(sorted(x_counts(state), reverse=True))] += 1
        if funnel_invariant(state):
            self.funnel_nodes += 1
        if win_bound(state) > target:
            return None
        key = self.canonical(state)
        if self.failed.get(key, 0) >= target:
            return None
        game = self.game
        for move in game.legal_moves(state):
            child = game.apply(state, move)
            result = game.outcome(child)
            if result == LOSS:
                return [move]
            if result == DRAW:
                continue
            self.positions += 1
            for reply in lbs_moves(child):
                grand = game.apply(child, reply)
                if game.outcome(grand) is not None:
                    continue  # O won or the board is full: no X win on this line
                rest = self.x_turn(grand, target)
                if rest is not None:
                    return [move, reply, *rest]
        self.failed[key] = target
        return None


@dataclass
class FunnelReport:
    """What :func:`check_funnel` found: every LBS line up to a turn, without pruning."""

    last_turn: int
    #: Distinct positions up to symmetry with X to move at turn ``last_turn`` or before.
    x_positions: int
    #: Of those, how many had fields without an X yet; and how many of these were outside the funnel.
    open_positions: int
    outside_funnel: int
    #: A position outside the funnel (position string), if any.
    first_outside: str | None
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        return _report_dict(self, ("last_turn", "x_positions", "open_positions", "outside_funnel", "first_outside"))

    def summary(self) -> str:
        return (
            f"every LBS line until x is to move at turn {self.last_turn}: {self.x_positions:,} positions with x to move"
            f" (up to symmetry), {self.open_positions:,} with a field still without x,"
            f" {self.outside_funnel:,} of them outside the funnel; {self.seconds:.1f} s"
        )


def check_funnel(last_turn: int) -> FunnelReport:
    """Walk every line of X moves and LBS replies until X is to move at turn ``last_turn`` (no pruning, transpositions
    and symmetric positions once) and check :func:`funnel_invariant` wherever X is to move while
    some field has no X: the induction behind :func:`win_bound`, checked position by position."""
    start = time.perf_counter()
    game = Ultimate(classic=False)
    seen: set[int] = set()
    counts = {"open": 0, "outside": 0}
    first: list[str] = []

    def visit(state: int) -> None:
        key = min(game.transform(state, sym) for sym in range(8))
        if key in seen:
            return
        seen.add(key)
        if 0 in x_counts(state):
            counts["open"] += 1
            if not funnel_invariant(state):
                counts["outside"] += 1
                if not first:
                    first.append(game.format_position(state))
        if (state & ((1 << 162) - 1)).bit_count() + 3 > last_turn:
            return
        for move in game.legal_moves(state):
            child = game.apply(state, move)
            if game.outcome(child) is not None:
                continue
            for reply in lbs_moves(child):
                grand = game.apply(child, reply)
                if game.outcome(grand) is None:
                    visit(grand)

    visit(game.initial_state())
    return FunnelReport(
        last_turn=last_turn,
        x_positions=len(seen),
        open_positions=counts["open"],
        outside_funnel=counts["outside"],
        first_outside=first[0] if first else None,
        seconds=time.perf_counter() - start,
    )


def check_lower_bound(max_turn: int = 81) -> LowerBoundReport:
    """Play LBS for O against every sequence of X moves; find the earliest turn X can have won.

    The target turn starts at the bound of the empty board and grows by two
    (X wins on odd turns) until a line reaches an X win or ``max_turn`` is
    passed. The first target reached is the earliest win: every smaller target
    was searched in full, and pruning only drops positions whose bound
    (:func:`win_bound`) exceeds the target.
    """
    start = time.perf_counter()
    search = _Search()
    root = search.game.initial_state()
    target = win_bound(root)
    if target % 2 == 0:
        target += 1
    iterations: list[tuple[int, int]] = []
    line: list[int] | None = None
    while target <= max_turn:
        before = search.positions
        line = search.x_turn(root, target)
        iterations.append((target, search.positions - before))
        if line is not None:
            break
        target += 2
    earliest = len(line) if line is not None else None
    lemma5 = {"".join(map(str, k)): v for k, v in sorted(search.lemma5.items(), reverse=True)}
    return LowerBoundReport(
        holds=earliest is None or earliest >= CLAIMED_TURN,
        earliest_x_win=earliest,
        line=[move_name(m) for m in line] if line is not None else [],
        positions=search.positions,
        seconds=time.perf_counter() - start,
        lemma5_counts=lemma5,
        lemma5_holds=all(k == (1,) * 9 for k in search.lemma5),
        x_nodes=search.x_nodes,
        funnel_nodes=search.funnel_nodes,
        iterations=iterations,
    )


__all__ = [
    "CLAIMED_TURN",
    "LEMMA5_TURN",
    "FunnelReport",
    "LowerBoundReport",
    "check_funnel",
    "check_lower_bound",
    "field_needs",
    "funnel_invariant",
    "lbs_moves",
    "line_need",
    "win_bound",
]
