"""Where a position is stored: its canonical key, and the symmetry that maps it there.

With symmetry reduction a tablebase stores one position per symmetry class,
under its *key*: the position string of the class's canonical member. A
position and its key differ by a symmetry of the board, and the moves stored
with the key are named in the key's orientation; :func:`stored_key` says how
they correspond, so that rows read in SQL can be mapped back.
"""

from __future__ import annotations

from dataclasses import dataclass

from tablebase.games.base import Game


@dataclass(frozen=True)
class StoredKey:
    """A position, the key it is stored under, and how the two correspond."""

    variant: str
    position: str
    key: str
    #: The symmetry that maps the position onto the key (0: the identity, the position is its own key).
    symmetry: int
    #: How many symmetries the variant has (1 without symmetry reduction).
    symmetries: int
    #: ``(move here, the same move in the key's orientation)`` for every legal move.
    moves: tuple[tuple[str, str], ...]

    def to_dict(self) -> dict[str, object]:
        return {
            "variant": self.variant,
            "position": self.position,
            "key": self.key,
            "symmetry": self.symmetry,
            "symmetries": self.symmetries,
            "moves": [{"move": here, "stored": there} for here, there in self.moves],
        }


def stored_key(game: Game, state: int, symmetry: bool = True) -> StoredKey:
    """The :class:`StoredKey` of ``state`` in a tablebase built with or without ``symmetry``."""
    canon, sym = game.canonical(state) if symmetry else (state, 0)
    moves = tuple(
        (game.format_move(move), game.format_move(game.transform_move(move, sym) if sym else move))
        for move, _ in game.children(state)
    )
    return StoredKey(
        variant=game.name,
        position=game.format_position(state),
        key=game.format_position(canon),
        symmetry=sym,
        symmetries=game.num_symmetries if symmetry else 1,
        moves=moves,
    )


__all__ = ["StoredKey", "stored_key"]
