"""The Morris family: Six and Nine Men's Morris (:mod:`tablebase.games.morris.rules`).

``morris-6`` builds whole, placement included; ``morris-9`` is too large to
enumerate (``LargeMorrisGame``); ``morris-B-S`` plays either board with ``S``
stones each.
"""

from __future__ import annotations

from tablebase.games.morris.rules import NAMING, LargeMorrisGame, MorrisGame, from_name, morris_6, morris_9

#: Fixed names this module registers, with their factories.
VARIANTS = {
    "morris-6": morris_6,
    "morris-9": morris_9,
}

#: Variants built by ``tablebase build --all``.
CATALOG = ("morris-6",)

__all__ = ["CATALOG", "NAMING", "LargeMorrisGame", "MorrisGame", "VARIANTS", "from_name", "morris_6", "morris_9"]
