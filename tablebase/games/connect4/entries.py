"""The prover's table (:mod:`tablebase.games.connect4.prover`): one 64-bit word an entry, written
and read whole, so threads sharing the table never see half an entry.

An entry holds a bound or an exact score (bits 0-6: the score plus 64; bits 7-8: its type), the
best move (bits 9-11), log2 of the nodes beneath (bits 12-15: the work that replacement weighs),
which of the key's two slots it is in (bit 16) and the key's low 47 bits (bits 17-63): with the
slot number that identifies the key exactly. A key is kept in its slot (the key modulo the entry
count) or the next, over the entry with less work beneath it.

Here too are the two hints the search gives the compiler about its arrays: :func:`prefetch` and
:func:`borrowed`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit
from llvmlite import ir
from numba.core import types
from numba.extending import intrinsic

#: Low bits of a key an entry holds.
KEY_BITS = 47
KEY_MASK = (1 << KEY_BITS) - 1
#: Entry types (bits 7-8 of an entry).
UPPER = 1
LOWER = 2
EXACT = 3


@njit(cache=True, inline="always")
def slot(table: np.ndarray, key: Any) -> Any:
    """The first of the two slots where ``key`` may be kept (the table has one word more than entries)."""
    return np.int64(key % np.uint64(table.shape[0] - 1))


@njit(cache=True)
def lookup(table: np.ndarray, key: Any) -> Any:
    """The entry of ``key`` (0: none)."""
    at = slot(table, key)
    part = (key & np.uint64(KEY_MASK)) << np.uint64(64 - KEY_BITS)
    top = np.uint64(KEY_MASK) << np.uint64(64 - KEY_BITS)
    e = table[at]
    if e != 0 and (e & top) == part and not (e >> np.uint64(16)) & np.uint64(1):
        return e
    e = table[at + 1]
    if e != 0 and (e & top) == part and (e >> np.uint64(16)) & np.uint64(1):
        return e
    return np.uint64(0)


def _prefetch_typing(typingctx: Any, table: Any, index: Any) -> Any:
    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        view = context.make_array(signature.args[0])(context, builder, args[0])
        pointer = builder.gep(view.data, [args[1]])
        i32 = ir.IntType(32)
        hint = builder.module.globals.get("llvm.prefetch.p0") or ir.Function(
            builder.module, ir.FunctionType(ir.VoidType(), [pointer.type, i32, i32, i32]), "llvm.prefetch.p0"
        )
        builder.call(hint, [pointer, i32(0), i32(3), i32(1)])
        return context.get_dummy_value()

    return types.none(table, index), codegen


#: ``prefetch(table, index)`` asks the processor to bring ``table[index]`` into its cache (a hint:
#: nothing is read, so the children's entries are fetched from memory together).
prefetch: Any = intrinsic(_prefetch_typing)


@njit(cache=True, inline="always")
def entry_score(e: Any) -> int:
    return int(e & np.uint64(127)) - 64


@njit(cache=True, inline="always")
def entry_type(e: Any) -> int:
    return int((e >> np.uint64(7)) & np.uint64(3))


@njit(cache=True, inline="always")
def entry_move(e: Any) -> int:
    return int((e >> np.uint64(9)) & np.uint64(7))


@njit(cache=True, inline="always")
def entry_work(e: Any) -> int:
    return int((e >> np.uint64(12)) & np.uint64(15))


@njit(cache=True)
def store(table: np.ndarray, key: Any, kind: int, score: int, move: int, nodes: int) -> bool:
    """Keep a bound or exact score of ``key``: in its own slot or the next, over the entry with less
    work; whether it took an empty slot."""
    at = slot(table, key)
    part = (key & np.uint64(KEY_MASK)) << np.uint64(64 - KEY_BITS)
    top = np.uint64(KEY_MASK) << np.uint64(64 - KEY_BITS)
    first = table[at]
    second = table[at + 1]
    mine_first = first != 0 and (first & top) == part and not (first >> np.uint64(16)) & np.uint64(1)
    mine_second = second != 0 and (second & top) == part and (second >> np.uint64(16)) & np.uint64(1)
    offset = 0
    if not mine_first and (mine_second or entry_work(second) < entry_work(first)):
        offset = 1
    current = table[at + offset]
    if (mine_first or mine_second) and current != 0 and (current & top) == part and entry_type(current) == EXACT:
        if (offset == 0 and mine_first) or (offset == 1 and mine_second):
            return False
    work = 0
    while nodes > 1 and work < 15:
        nodes >>= 1
        work += 1
    table[at + offset] = (
        part
        | (np.uint64(offset) << np.uint64(16))
        | (np.uint64(work) << np.uint64(12))
        | (np.uint64(move) << np.uint64(9))
        | (np.uint64(kind) << np.uint64(7))
        | np.uint64(score + 64)
    )
    return bool(current == 0)


def _borrowed_typing(typingctx: Any, array: Any) -> Any:
    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        view = context.make_array(array)(context, builder, value=args[0])
        view.meminfo = ir.Constant(view.meminfo.type, None)
        return view._getvalue()

    return array(array), codegen


#: ``borrowed(array)`` is ``array`` without its reference count: the search passes its arrays down
#: every node, and counting the references (an atomic add and subtract an array a call, on a count
#: the threads share) would cost more than the node; the caller keeps the arrays alive.
borrowed: Any = intrinsic(_borrowed_typing)


@njit(cache=True)
def kept_entries(table: np.ndarray, min_work: int, inverse: int) -> np.ndarray:
    """``(key, entry)`` of every entry with at least ``min_work`` (log2 of nodes beneath): the
    whole key back from its slot and low bits (``inverse``: of 2^47 modulo the slot count)."""
    n = table.shape[0] - 1
    count = 0
    for i in range(n + 1):
        e = table[i]
        if e != 0 and entry_work(e) >= min_work:
            count += 1
    out = np.empty((count, 2), np.uint64)
    j = 0
    top = np.uint64(64 - KEY_BITS)
    for i in range(n + 1):
        e = table[i]
        if e != 0 and entry_work(e) >= min_work:
            at = np.uint64(i - int((e >> np.uint64(16)) & np.uint64(1)))
            low = e >> top
            nn = np.uint64(n)
            t = ((at + nn - low % nn) % nn) * np.uint64(inverse) % nn
            out[j, 0] = low + (t << np.uint64(KEY_BITS))
            out[j, 1] = e
            j += 1
    return out


@njit(cache=True)
def restore(table: np.ndarray, rows: np.ndarray) -> None:
    for i in range(rows.shape[0]):
        e = rows[i, 1]
        store(table, rows[i, 0], entry_type(e), entry_score(e), entry_move(e), 1 << entry_work(e))
