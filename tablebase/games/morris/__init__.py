"""The Morris family: Six and Nine Men's Morris (:mod:`tablebase.games.morris.rules`).

``morris-6`` is stored whole, placement included; ``morris-9`` is built
tier by tier (:mod:`tablebase.games.morris.tiers`).
"""

from __future__ import annotations

from tablebase.games.morris.rules import NAMING, MorrisGame, from_name, morris_6, morris_9

#: Fixed names this module registers, with their factories.
VARIANTS = {
    "morris-6": morris_6,
    "morris-9": morris_9,
}

#: Variants built by ``tablebase build --all``.
CATALOG = ("morris-6",)

__all__ = ["CATALOG", "NAMING", "MorrisGame", "VARIANTS", "from_name", "morris_6", "morris_9"]
