"""The lines of one field of Ultimate tic-tac-toe, and the tables the rules and the searches read from them.

A field is a 3x3 grid of spots 0-8 (row by row); a side's marks in it are a
9-bit pattern. The same lines make the board of fields: a pattern of the fields
a side has won holds a line when the side has won the game.
"""

from __future__ import annotations

from functools import cache

#: The eight lines of a 3x3 grid, as 9-bit patterns.
LINES = (0b000000111, 0b000111000, 0b111000000, 0b001001001, 0b010010010, 0b100100100, 0b100010001, 0b001010100)

#: ``LINE[bits]``: whether the 9-bit pattern holds three in a line.
LINE: tuple[bool, ...] = tuple(any(b & ln == ln for ln in LINES) for b in range(512))

#: What :func:`need_table` gives for a field where every line holds a mark of the other side.
UNREACHABLE = 30


@cache
def need_table() -> bytes:
    """``need_table()[512 * mine + other]``: the fewest marks a side holding the spots ``mine`` of a
    field still needs to complete a line of it where the other side holds ``other``
    (:data:`UNREACHABLE` when every line holds a mark of the other side); made on first use."""
    missing = [bytes(3 - (line & mine).bit_count() for mine in range(512)) for line in LINES]
    unreachable = bytes([UNREACHABLE]) * 512
    table = bytearray(512 * 512)
    for other in range(512):
        open_lines = [m for m, line in zip(missing, LINES) if not line & other]
        table[other::512] = bytes(map(min, unreachable, *open_lines)) if open_lines else unreachable
    return bytes(table)
