"""Opening tables of variants solved position by position: computed by the search, exported to a
small file, shipped with a game and installed into a tablebase file.

The opening table of a variant to ``plies`` plies (:func:`compute`) is every position reached
from the start when one side plays perfectly and the other plays any legal move, with the
perfect side to move and at most ``plies`` plies played, for both sides: the first player from
the start, the second from each first move. Playing perfectly is playing any move as good as
the best one (the same outcome and distance), so a table does not depend on how ties are
broken. With ``every`` it is every position up to ``plies`` plies instead. Each position is
stored with every move, so a probe of it lists every move's value.

The file :func:`export` writes and :func:`read` reads is gzip'd UTF-8 text, one row a line:

* a first line ``#`` followed by a JSON object: ``format`` (:data:`FORMAT`), ``version``
  (:data:`VERSION`), the ``variant``, its ``family`` and ``parameters`` (a table installs into
  a variant with the same family and parameters), ``positions`` (rows with moves) and ``rows``;
* a line of column names, :data:`COLUMNS`;
* a row per position, sorted by position: the position string (the key the tablebase stores it
  under), its outcome for the side to move (``win``, ``loss`` or ``draw``), its distance in plies
  (empty for a draw that can go on for ever) and ``1`` if the table has the position with every
  move, ``0`` if it is there as the child of such a position.

The moves themselves are not in the file: they follow from the rules.
"""

from __future__ import annotations

import gzip
import heapq
import json
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, Protocol

from tablebase.errors import BuildError, DatabaseError, TablebaseError
from tablebase.games.base import Game
from tablebase.games.notation import parse_position
from tablebase.outcome import DRAW, LOSS, WIN
from tablebase.probes import build_probe
from tablebase.results import OpeningReport

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

    from tablebase.progress import Progress
    from tablebase.results import Probe, SolveReport
    from tablebase.variant import VariantTable

FORMAT = "tablebase opening table"
VERSION = 1
COLUMNS = "position\toutcome\tdistance\tmoves"
#: Positions solved between two saves of the search's kept table.
KEEP_EVERY = 20

_OUTCOMES = (WIN, LOSS, DRAW)


class StateSolver(Protocol):
    """What :func:`compute` uses of a solver (:class:`tablebase.query.Solver` is one)."""

    def solve_state(self, state: int, time_limit: float | None = None, line: bool = False) -> SolveReport: ...

    def keep(self) -> None: ...


def compute(
    game: Game,
    plies: int,
    every: bool,
    progress: Progress | None,
    *,
    stored: Callable[[int], Probe | None],
    solver: StateSolver,
) -> OpeningReport:
    """Solve and store the opening table of ``game`` (see the module's docstring), position by
    position in order of plies, going on from what the file holds: ``stored(state)`` is the file's
    probe of a position it holds with every move's value (else ``None``), and ``solver`` proves
    and stores the others."""
    started = time.perf_counter()
    name = game.name
    start = game.initial_state()
    heap = [(0, start)]
    if not every and game.outcome(start) is None:
        heap += [(1, game.apply(start, move)) for move in game.legal_moves(start)]
    heapq.heapify(heap)
    known = {game.canonical(state)[0] for ply, state in heap if ply <= plies and game.outcome(state) is None}
    seen: set[int] = set()
    step = 1 if every else 2
    solved = nodes = 0
    while heap:
        ply, state = heapq.heappop(heap)
        key = game.canonical(state)[0]
        if key in seen or ply > plies or game.outcome(state) is not None:
            continue
        if progress is not None:
            progress(f"ply {ply}", len(seen), len(known))
        seen.add(key)
        position = game.format_position(state)
        probe = stored(state)
        if probe is None:
            report = solver.solve_state(state)
            solved += 1
            nodes += report.nodes
            if solved % KEEP_EVERY == 0:
                solver.keep()
            probe = stored(state)
            if probe is None:
                raise BuildError(f"position {position!r} of {name} was not stored with every move")
        if ply + step <= plies:
            for child in _next(game, probe, every):
                heapq.heappush(heap, (ply + step, child))
                if game.outcome(child) is None:
                    known.add(game.canonical(child)[0])
        if progress is not None:
            progress(f"ply {ply}", len(seen), len(known))
    return OpeningReport(
        variant=name,
        plies=plies,
        every=every,
        positions=len(seen),
        solved=solved,
        stored=len(seen) - solved,
        nodes=nodes,
        seconds=time.perf_counter() - started,
    )


def _next(game: Game, probe: Probe, every: bool) -> Iterator[int]:
    """The positions of the table one step after ``probe``'s: every child with ``every``, else
    every reply to each move as good as the best one."""
    best = probe.moves[0]
    for move in probe.moves:
        child = parse_position(game, move.position)
        if every:
            yield child
            continue
        if (move.outcome, move.distance) != (best.outcome, best.distance):
            break
        if game.outcome(child) is None:
            yield from (game.apply(child, reply) for reply in game.legal_moves(child))


def export(table: VariantTable, path: str | os.PathLike[str]) -> int:
    """Write every position ``table`` stores with all its moves, and its children's values, to
    ``path`` in the format of the module's docstring; returns how many positions had moves."""
    game = table.game
    rows, moves = table.dump()
    by_ref = {ref: (key, outcome, distance) for ref, key, _, _, outcome, distance in rows}
    children: dict[int, list[int]] = {}
    for source, _, child in moves:
        children.setdefault(source, []).append(child)
    full = {
        ref
        for ref, refs in children.items()
        if len(refs) == game.move_count(parse_position(game, by_ref[ref][0]))
    }
    if not full:
        raise BuildError(f"variant {table.name!r} has no position stored with every move to export")
    kept = full.union(child for ref in full for child in children[ref])
    lines = sorted(
        f"{key}\t{outcome}\t{'' if distance is None else distance}\t{int(ref in full)}"
        for ref, (key, outcome, distance) in by_ref.items()
        if ref in kept
    )
    header = {
        "format": FORMAT, "version": VERSION, "variant": table.name, "family": game.family,
        "parameters": game.parameters(), "positions": len(full), "rows": len(lines),
    }  # fmt: skip
    text = "\n".join([f"#{json.dumps(header)}", COLUMNS, *lines]) + "\n"
    target = Path(path)
    partial = target.with_name(f".{target.name}.partial")
    try:
        with partial.open("wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as out:
            out.write(text.encode("utf-8"))
        partial.replace(target)
    except OSError as err:
        raise DatabaseError(f"cannot write {str(target)!r}: {err.strerror or err}") from None
    finally:
        partial.unlink(missing_ok=True)
    return len(full)


class ShippedTable:
    """An opening table file read for look-ups: each position's value and whether the file has it
    with every move. The file is read at the first look-up and a look-up is a binary search of its
    bytes, so a large table costs little until used."""

    def __init__(self, game: Game, source: Traversable | Path):
        self.game = game
        self.source = source
        self.shown = str(source)
        self._header: dict[str, Any] | None = None
        #: The file's text; its rows, from offset ``_body`` on, are sorted (a tab sorts before every
        #: character of a position, so by position too).
        self._data = b""
        self._body = 0
        self._rows: list[str] | None = None

    def _load(self) -> dict[str, Any]:
        """The header, the file read first if it is not yet."""
        if self._header is not None:
            return self._header
        try:
            with self.source.open("rb") as raw:
                data = gzip.decompress(raw.read())
        except (OSError, EOFError, gzip.BadGzipFile) as err:
            raise DatabaseError(f"cannot read opening table {self.shown!r}: {err}") from None
        first = data.find(b"\n") + 1
        second = data.find(b"\n", first) + 1 if first else 0
        heading = data[: second or len(data)].decode("utf-8", "replace").split("\n")
        self._header = _header(self.game, self.shown, heading[0], heading[1] if len(heading) > 1 else "")
        self._data, self._body = data, second or len(data)
        return self._header

    def _lines(self) -> list[str]:
        """Every row, in order."""
        self._load()
        if self._rows is None:
            rows = self._data[self._body :].decode("utf-8", "replace").split("\n")
            if rows and not rows[-1]:
                rows.pop()
            self._rows = rows
        return self._rows

    @property
    def header(self) -> dict[str, Any]:
        """The file's JSON header (checked against the game)."""
        return self._load()

    def __len__(self) -> int:
        return len(self._lines())

    def get(self, key: str) -> tuple[str, int | None, bool] | None:
        """``(outcome, distance, with every move)`` of the position stored under ``key``, ``None``
        when the table lacks it."""
        self._load()
        data, target = self._data, (key + "\t").encode()
        lo, hi = self._body, len(data)
        # lo and hi are row starts; the first row not below the target starts in [lo, hi]
        while lo < hi:
            mid = (lo + hi) // 2
            start = max(data.rfind(b"\n", lo, mid) + 1, lo)
            end = self._end(start)
            if data[start:end] < target:
                lo = end + 1
            else:
                hi = start
        if not data.startswith(target, lo):
            return None
        line = data[lo : self._end(lo)].decode("utf-8", "replace")
        return self._fields(line, lambda: data.count(b"\n", 0, lo) + 1)[1:]

    def _end(self, start: int) -> int:
        """Where the row that begins at byte ``start`` ends."""
        end = self._data.find(b"\n", start)
        return len(self._data) if end < 0 else end

    def _fields(self, line: str, number: Callable[[], int]) -> tuple[str, str, int | None, bool]:
        """The fields of the row ``line`` (line ``number()`` of the file), checked."""
        fields = line.split("\t")
        if len(fields) != 4 or fields[1] not in _OUTCOMES or fields[3] not in ("0", "1") or not (
            fields[2].isdigit() or not fields[2]
        ):
            raise DatabaseError(f"opening table {self.shown!r}, line {number()}: malformed row {line[:80]!r}")
        return fields[0], fields[1], int(fields[2]) if fields[2] else None, fields[3] == "1"

    def value(self, state: int) -> tuple[str, int | None, bool] | None:
        """:meth:`get` of a canonical state."""
        return self.get(self.game.format_position(state))

    def moves(
        self, state: int, positions: dict[int, tuple[str, int | None]], edges: list[tuple[int, int, int]]
    ) -> None:
        """Add the canonical ``state`` (held with every move) and its children to ``positions``, and
        its moves (``(state, move, child)``, from the rules) to ``edges``."""
        game = self.game
        found = self.value(state)
        if found is None or not found[2]:
            raise DatabaseError(f"opening table {self.shown!r} lacks {game.format_position(state)!r} with its moves")
        positions[state] = found[:2]
        for move, child in game.children(state):
            canon = game.canonical(child)[0]
            value = self.value(canon)
            if value is None:
                raise DatabaseError(
                    f"opening table {self.shown!r} lacks the position after {game.format_move(move)!r}"
                    f" in {game.format_position(state)!r}"
                )
            positions[canon] = value[:2]
            edges.append((state, move, canon))

    def probe(self, state: int, name: str) -> Probe | None:
        """The probe of ``state`` (in any orientation) of the variant ``name`` from the table:
        every move's value where the table has the position with every move, no move listed where
        it has it as a child only; ``None`` when it lacks the position."""
        game = self.game
        canon = game.canonical(state)[0]
        found = self.value(canon)
        if found is None:
            return None
        outcome, distance, full = found
        terminal = game.outcome(state) is not None
        children: list[tuple[int, tuple[str, int | None] | None]] = []
        if full and not terminal:
            positions: dict[int, tuple[str, int | None]] = {}
            self.moves(canon, positions, [])
            children = [(m, positions[game.canonical(c)[0]]) for m, c in game.children(state)]
        return build_probe(game, name, state, (outcome, distance), terminal, children)

    def read(self) -> tuple[dict[int, tuple[str, int | None]], list[tuple[int, int, int]]]:
        """Every position of the table (canonical state -> outcome and distance) and the moves of
        those it has with every move, as :func:`tablebase.store.proved.write_proved` stores them;
        every row checked."""
        full = []
        for number, line in enumerate(self._lines(), 3):
            key, _, _, moves = self._fields(line, lambda: number)
            if moves:
                full.append(key)
        if len(full) != self.header.get("positions"):
            raise DatabaseError(
                f"opening table {self.shown!r} is cut short: {len(full):,} of {self.header.get('positions')} positions"
            )
        positions: dict[int, tuple[str, int | None]] = {}
        edges: list[tuple[int, int, int]] = []
        for key in full:
            try:
                state = self.game.canonical(parse_position(self.game, key))[0]
            except TablebaseError as err:
                raise DatabaseError(f"opening table {self.shown!r}: {err}") from None
            self.moves(state, positions, edges)
        return positions, edges


_SHIPPED: dict[tuple[str, str], ShippedTable] = {}


def shipped(game: Game) -> ShippedTable | None:
    """The opening table ``game`` ships (:meth:`~tablebase.games.base.Game.shipped_opening`), read
    once a process; ``None`` when it ships none."""
    source = game.shipped_opening()
    if source is None:
        return None
    cache_key = (game.name, str(source))
    table = _SHIPPED.get(cache_key)
    if table is None:
        table = _SHIPPED[cache_key] = ShippedTable(game, source)
    return table


def read(
    game: Game, source: Traversable | Path
) -> tuple[dict[int, tuple[str, int | None]], list[tuple[int, int, int]]]:
    """The positions of an opening table file (canonical state -> outcome and distance) and the
    moves of those it has with every move (``(state, move, child)``, from the rules), as
    :func:`tablebase.store.proved.write_proved` stores them."""
    return ShippedTable(game, source).read()


def _header(game: Game, shown: str, first: str, second: str) -> dict[str, Any]:
    """The JSON header of an opening table file, checked against ``game``."""
    try:
        header = json.loads(first[1:]) if first.startswith("#") else None
    except ValueError:
        header = None
    if not isinstance(header, dict) or header.get("format") != FORMAT or second.rstrip("\n") != COLUMNS:
        raise DatabaseError(f"{shown!r} is not an opening table file")
    if header.get("version") != VERSION:
        raise DatabaseError(f"opening table {shown!r} has version {header.get('version')!r}; this reads {VERSION}")
    if (header.get("family"), header.get("parameters")) != (game.family, game.parameters()):
        raise DatabaseError(f"opening table {shown!r} is of {header.get('variant')!r}, not of {game.name!r}")
    return header


__all__ = ["COLUMNS", "FORMAT", "KEEP_EVERY", "VERSION", "ShippedTable", "StateSolver", "compute", "export", "read", "shipped"]
