"""Game rules: one module per family behind :class:`tablebase.games.base.Game`.

The registry maps variant names to game objects. A family module provides
``VARIANTS`` (fixed names to factories), optionally ``from_name`` (for
parameterised names such as ``mnk-4-4-4``) and ``CATALOG`` (what
``build --all`` builds). Adding a family means adding its module to
:data:`FAMILIES`.
"""

from __future__ import annotations

from functools import lru_cache
from types import ModuleType

from tablebase.errors import UnknownVariantError
from tablebase.games import connect4, mnk, roman, rota, ultimate, wild
from tablebase.games.base import DRAW, LOSS, WIN, Game, Outcome

FAMILIES: tuple[ModuleType, ...] = (mnk, roman, rota, wild, ultimate, connect4)

__all__ = ["DRAW", "FAMILIES", "LOSS", "WIN", "Game", "Outcome", "catalog", "get", "names"]


@lru_cache(maxsize=64)
def get(name: str) -> Game:
    """The game registered as ``name``; raises :class:`UnknownVariantError` naming it otherwise."""
    if not isinstance(name, str):
        raise UnknownVariantError(f"unknown variant {name!r}")
    for family in FAMILIES:
        factory = family.VARIANTS.get(name)
        if factory is not None:
            made: Game = factory()
            return made
    for family in FAMILIES:
        from_name = getattr(family, "from_name", None)
        if from_name is not None:
            game: Game | None = from_name(name)
            if game is not None:
                return game
    raise UnknownVariantError(
        f"unknown variant {name!r} (known: {', '.join(names())}, or mnk-M-N-K[-misere], connect4-W-H)"
    )


def names() -> list[str]:
    """Every fixed variant name, in registry order."""
    return [name for family in FAMILIES for name in family.VARIANTS]


def catalog() -> list[str]:
    """The variants ``build --all`` builds."""
    return [name for family in FAMILIES for name in getattr(family, "CATALOG", family.VARIANTS)]
