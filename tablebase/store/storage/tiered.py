"""The ``tiers`` storage: a variant built tier by tier, one value a slot of each tier's dense numbering.

The game numbers each tier's classes (:class:`~tablebase.games.tiering.DenseTiers`);
a lookup asks it for the position's tier and slot, in any orientation, and
reads that slot's value from the block holding it (one indexed read, the
block decoded and kept in a :class:`~tablebase.store.block_cache.BlockCache`).
A slot's value is the game's two bytes (outcome code, distance above it);
the blocks' format is :mod:`tablebase.store.tier_blocks`. Moves and parents come
from the rules (:class:`~tablebase.store.storage.rows.RulesMoves`), their
positions found in their own tiers. The storage's own check
(:meth:`Tiered.check_labels`) derives every class's value from its children
by the game's compiled check, a tier at a time.
"""

from __future__ import annotations

import sqlite3
from contextlib import AbstractContextManager
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Callable, Iterator, Sequence

from tablebase.errors import BuildError, DatabaseError
from tablebase.outcome import NAMES
from tablebase.store.block_cache import CACHE_BYTES, BlockCache
from tablebase.store.block_codec import BlockTable, CorruptBlockError
from tablebase.store.storage.base import BaseStorage, Entry, Row, StateChunk, Value
from tablebase.store.storage.rows import RulesMoves
from tablebase.store.tier_blocks import BLOCK, STORAGE, decode_planes, tier_values

if TYPE_CHECKING:
    import numpy as np

    from tablebase.games.base import Game
    from tablebase.games.tiering import DenseTiers, TierSearch
    from tablebase.progress import Progress

#: The value of a slot holding no class (:data:`tablebase.games.tiering.UNUSED`).
_UNUSED = 0xFFFF


def _value(v: int) -> Value | None:
    """``(outcome, distance)`` of a slot's value, ``None`` for none."""
    if v == _UNUSED:
        return None
    code = v & 3
    return NAMES[code], None if code == 3 else v >> 2


@dataclass(frozen=True, eq=False)
class TierBlock:
    """The values of one block of a tier (its slots ``first`` to ``end``), as the block's two planes
    (:func:`~tablebase.store.tier_blocks.decode_planes`)."""

    ply: int
    first: int
    planes: bytes | bytearray

    @property
    def end(self) -> int:
        return self.first + len(self.planes) // 2 - 1

    @property
    def nbytes(self) -> int:
        return len(self.planes)

    def value(self, slot: int) -> int:
        """The value of ``slot`` (inside the block)."""
        at, count = slot - self.first, len(self.planes) // 2
        return self.planes[at] | self.planes[count + at] << 8


class Tiered(RulesMoves, BaseStorage):
    """Each stored tier's values, one a slot of the game's numbering of its classes (see the module notes)."""

    name = STORAGE
    label = "tiers, one value a class"
    written_by = "is written by a build tier by tier (--stones)"
    any_orientation = True

    def __init__(self, game: Game, variant_id: int, symmetry: bool):
        super().__init__(game, variant_id, symmetry)
        self.cache: BlockCache[TierBlock] = BlockCache(CACHE_BYTES)
        self.table = BlockTable(game, variant_id)
        self._stored: dict[int, int] | None = None

    @cached_property
    def tiering(self) -> DenseTiers:
        """The game's tiers (every tier it has)."""
        tiering = self.game.tiering()
        if tiering is None:
            raise DatabaseError(f"variant {self.game.name!r} is stored tier by tier, and its rules give no tiers")
        return tiering

    def canonical(self, state: int) -> int:
        return state

    def canonical_all(self, states: list[int]) -> list[int]:
        return states

    def stored(self, conn: sqlite3.Connection) -> dict[int, int]:
        """The stored tiers' numbers and classes, in order (not the plies of positions a search stored)."""
        if self._stored is None:
            rows = conn.execute("SELECT ply, classes FROM plies WHERE variant_id = ? ORDER BY ply", (self.variant_id,))
            self._stored = {int(p): int(c) for p, c in rows if self.game.tier_name(int(p)) is not None}
        return self._stored

    def _block(self, conn: sqlite3.Connection, number: int, slot: int) -> TierBlock | None:
        block = self.cache.covering(number, slot)
        if block is not None:
            return block
        row = self.table.at_or_below(conn, number, slot)
        if row is None or slot >= row[0] + row[1]:
            return None
        return self._decoded(number, row[0], row[1], row[2])

    def _decoded(self, number: int, first: int, count: int, data: bytes) -> TierBlock:
        """The block of tier ``number`` from slot ``first`` decoded (and cached)."""
        try:
            planes = decode_planes(data, number, first, count)
        except CorruptBlockError as exc:
            raise CorruptBlockError(
                f"{self.game.name}: the block of tier {self.game.tier_name(number)} from slot {first} is corrupt"
                f" ({exc}); rebuild the variant"
            ) from exc
        return self.cache.add(TierBlock(number, first, planes))

    def _read_ahead(self, conn: sqlite3.Connection, wheres: Sequence[tuple[int, int]]) -> None:
        """Read into the cache, one query a tier, the blocks that start where the writer starts them
        (:data:`~tablebase.store.tier_blocks.BLOCK`) and hold the slots ``wheres`` not cached yet."""
        wanted: dict[int, set[int]] = {}
        for (number, slot), block in zip(wheres, self.cache.covering_each(wheres)):
            if block is None:
                wanted.setdefault(number, set()).add(slot - slot % BLOCK)
        for number, firsts in wanted.items():
            if len(firsts) < 2:
                continue
            rows = conn.execute(
                f"SELECT first_state, count, data FROM blocks WHERE variant_id = ? AND ply = ?"
                f" AND first_state IN ({','.join('?' * len(firsts))})",
                (self.variant_id, number, *firsts),
            )
            for row in rows.fetchall():
                self._decoded(number, *row)

    def _raw(self, conn: sqlite3.Connection, states: Sequence[int]) -> list[int | None]:
        """Each state's stored value in its tier (``None``: in no stored tier)."""
        stored = self.stored(conn)
        wheres = [w if w is not None and w[0] in stored else None for w in self.tiering.locate(states)]
        held = [w for w in wheres if w is not None]
        if len(held) > 1:
            self._read_ahead(conn, held)
        out: list[int | None] = []
        for where in wheres:
            block = None if where is None else self._block(conn, *where)
            out.append(None if block is None or where is None else block.value(where[1]))
        return out

    def _proved(self, conn: sqlite3.Connection, states: Sequence[int]) -> list[tuple[Value, bool] | None]:
        """The value and whether the game is over of each state (in no tier) that a search stored
        in the ``states`` table (:meth:`search`); ``None`` for one it did not."""
        game = self.game
        keys = [game.format_position(game.canonical(s)[0]) for s in states]
        found: dict[str, tuple[Value, bool]] = {}
        for lo in range(0, len(keys), 500):
            part = keys[lo : lo + 500]
            rows = conn.execute(
                f"SELECT key, outcome, distance, terminal FROM states WHERE variant_id = ?"
                f" AND key IN ({','.join('?' * len(part))})",
                (self.variant_id, *part),
            )
            found.update((key, ((outcome, distance), bool(terminal))) for key, outcome, distance, terminal in rows)
        return [found.get(key) for key in keys]

    def _completed(self, conn: sqlite3.Connection, states: Sequence[int], raw: Sequence[int | None]) -> list[Value | None]:
        """The values of ``states`` whose tier values are ``raw``, those in no stored tier read from
        what a search stored."""
        out = [None if v is None else _value(v) for v in raw]
        rest = [i for i, v in enumerate(out) if v is None]
        if rest:
            for i, proved in zip(rest, self._proved(conn, [states[i] for i in rest])):
                out[i] = None if proved is None else proved[0]
        return out

    def values(self, conn: sqlite3.Connection, states: Sequence[int]) -> list[Value | None]:
        return self._completed(conn, states, self._raw(conn, states))

    def _entry(self, conn: sqlite3.Connection, state: int, raw: int | None) -> Entry | None:
        """The entry of ``state`` whose tier value is ``raw``."""
        if raw is not None:
            outcome, distance = _value(raw) or ("draw", None)
            return Entry(outcome, distance, distance == 0, state)
        proved = self._proved(conn, [state])[0]
        if proved is None:
            return None
        return Entry(proved[0][0], proved[0][1], proved[1], state)

    def lookup(self, conn: sqlite3.Connection, state: int) -> Entry | None:
        return self._entry(conn, state, self._raw(conn, [state])[0])

    def probe(self, conn: sqlite3.Connection, state: int) -> tuple[Entry | None, list[tuple[int, Value | None]]]:
        """:meth:`lookup` and every move's value, the position and its moves' positions found in
        their tiers together; no moves for a position a search stored while some of its moves'
        positions are stored nowhere (a position stored with its value only)."""
        children = self.game.children(state)
        states = [state, *(child for _, child in children)]
        raw = self._raw(conn, states)
        entry = self._entry(conn, state, raw[0])
        if entry is None or entry.terminal:
            return entry, []
        values = self._completed(conn, states[1:], raw[1:])
        if raw[0] is None and any(value is None for value in values):
            return entry, []
        return entry, [(code, value) for (code, _), value in zip(children, values)]

    def search(self, connect: Callable[[], AbstractContextManager[sqlite3.Connection]]) -> TierSearch | None:
        """The game's search of the positions no tier holds (:meth:`DenseTiers.search`), reading the
        stored tiers through connections ``connect`` opens; ``None`` when the game has none. A tier
        the search needs that is not stored is a :class:`KeyError` of its number (the game names the build)."""
        tiering = self.tiering
        variant_id = self.variant_id
        with connect() as conn:
            stored = dict(self.stored(conn))

        def read(number: int) -> np.ndarray:
            if number not in stored:
                raise KeyError(number)
            with connect() as conn:
                return tier_values(conn, variant_id, number, tiering.size(number))

        return tiering.search(read)

    def _tiers(self, conn: sqlite3.Connection) -> Iterator[tuple[int, np.ndarray]]:
        """Every stored tier's number and values."""
        for number in self.stored(conn):
            yield number, tier_values(conn, self.variant_id, number, self.tiering.size(number))

    def _chunks(self, conn: sqlite3.Connection, size: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Every stored class as ``(states, values)`` chunks of at most ``size``."""
        import numpy as np

        for number, values in self._tiers(conn):
            used = np.flatnonzero(values != _UNUSED)
            for lo in range(0, len(used), size):
                slots = used[lo : lo + size]
                yield self.tiering.states(number, slots), values[slots]

    def _row(self, state: int, value: int) -> Row:
        outcome, distance = _value(value) or ("draw", None)
        game = self.game
        return state, game.format_position(state), game.to_move(state), distance == 0, outcome, distance

    def rows(self, conn: sqlite3.Connection) -> Iterator[Row]:
        for states, values in self._chunks(conn, 1 << 16):
            for state, value in zip(states.tolist(), values.tolist()):
                yield self._row(state, value)

    def state_chunks(self, conn: sqlite3.Connection, size: int) -> Iterator[StateChunk]:
        import numpy as np

        for states, values in self._chunks(conn, size):
            code = (values & 3).astype(np.int8)
            distance = (values >> 2).astype(np.int64)
            distance[code == 3] = -1
            game = self.game
            listed = states.tolist()
            yield StateChunk(
                states.astype(np.int64), [game.format_position(s) for s in listed], [game.to_move(s) for s in listed],
                distance == 0, code, distance, states,
            )

    def key(self, conn: sqlite3.Connection, ref: int) -> str:
        return self.game.format_position(int(ref))

    def sample(self, conn: sqlite3.Connection, count: int, seed: int) -> list[Row]:
        import numpy as np

        stored = self.stored(conn)
        if not stored:
            return []
        rng = np.random.default_rng(seed)
        numbers = list(stored)
        weights = np.array([stored[n] for n in numbers], dtype=np.float64)
        picked: list[Row] = []
        while len(picked) < count:
            number = numbers[int(rng.choice(len(numbers), p=weights / weights.sum()))]
            slot = int(rng.integers(self.tiering.size(number)))
            block = self._block(conn, number, slot)
            value = None if block is None else block.value(slot)
            if value is not None and value != _UNUSED:
                picked.append(self._row(int(self.tiering.states(number, np.array([slot]))[0]), value))
        return picked

    def check_labels(
        self, conn: sqlite3.Connection, on_error: Callable[[str], None], progress: Progress | None
    ) -> int | None:
        import os

        import numpy as np

        tiering, game = self.tiering, self.game
        stored = self.stored(conn)
        checked = 0
        kept: dict[int, np.ndarray] = {}
        for done, number in enumerate(stored):
            name = game.tier_name(number)
            reads = tiering.check_reads(number)
            missing = [game.tier_name(n) for n in reads if n not in stored]
            if missing:
                on_error(f"tier {name}: the tiers its moves lead to are not all stored ({', '.join(map(str, missing))})")
                continue
            try:
                for n in (number, *reads):
                    if n not in kept:
                        kept[n] = tier_values(conn, self.variant_id, n, tiering.size(n))
            except CorruptBlockError as exc:
                on_error(f"tier {name}: {exc}")
                continue
            bad = tiering.check(number, kept, os.cpu_count() or 1)
            checked += int(stored[number])
            for slot in bad[:10].tolist():
                state = int(tiering.states(number, np.array([slot]))[0])
                on_error(f"{game.format_position(state)}: the stored value does not follow from its children's")
            if len(bad) > 10:
                on_error(f"tier {name}: {len(bad) - 10} more classes hold a value that does not follow from their children's")
            for n in [n for n in kept if n not in reads and n != number]:
                del kept[n]
            if progress is not None:
                progress("tiers", done + 1, len(stored))
        return checked + self._check_proved(conn, on_error)

    def _check_proved(self, conn: sqlite3.Connection, on_error: Callable[[str], None]) -> int:
        """Check each position a search stored (:meth:`search`) whose moves' positions are all stored
        against their values; the positions checked."""
        from tablebase.outcome import label_from_children

        game = self.game
        rows = conn.execute("SELECT key, outcome, distance FROM states WHERE variant_id = ?", (self.variant_id,))
        checked = 0
        for key, outcome, distance in rows.fetchall():
            state = game.parse_position(key)
            children = [child for _, child in game.children(state)]
            values = self.values(conn, children)
            if not children or any(v is None for v in values):
                continue
            checked += 1
            expected = label_from_children(v for v in values if v is not None)
            if (outcome, distance) != expected:
                on_error(f"{key}: stored {outcome}/{distance}, its moves say {expected[0]}/{expected[1]}")
        return checked

    @classmethod
    def check_game(cls, game: Game) -> None:
        if game.tiering() is None:
            raise BuildError(f"variant {game.name!r} is not built tier by tier")
