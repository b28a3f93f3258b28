"""The tables of Ultimate's compiled searches: where a state's entry goes."""

from __future__ import annotations

import math
import random

from tablebase.games import get
from tablebase.games.base import Game
from tablebase.games.playouts import random_live_position


def _below(game: Game, state: int, plies: int) -> set[int]:
    """``state`` and every position up to ``plies`` moves below it: what one search visits."""
    seen, front = {state}, [state]
    for _ in range(plies):
        nxt = []
        for s in front:
            if game.outcome(s) is None:
                for m in game.legal_moves(s):
                    child = game.apply(s, m)
                    if child not in seen:
                        seen.add(child)
                        nxt.append(child)
        front = nxt
    return seen


def test_the_states_of_one_search_spread_over_the_slots_as_random_keys_would() -> None:
    """Positions four plies below one of 40 empty spots take nearly as many distinct slots as
    random keys would (the shifts and xors alone took 619 of 813 keys into a table of 65,536
    slots, about 77 % of random keys' 808)."""
    from tablebase.games.ultimate.fields import words
    from tablebase.games.ultimate.table import _slot

    game = get("ultimate")
    keys = {words(s) for s in _below(game, random_live_position(game, 40, random.Random(3)), 4)}
    assert len(keys) > 500
    for bits in (14, 16, 18):
        slots = 1 << bits
        random_keys = slots * (1 - math.exp(-len(keys) / slots))
        taken = len({_slot(*key, slots - 1) for key in keys})
        assert taken >= 0.9 * random_keys, (bits, taken, random_keys)
        assert all(0 <= _slot(*key, slots - 1) < slots for key in keys)
