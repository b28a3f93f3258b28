"""Game rules: one module per family behind :class:`tablebase.games.base.Game`.

The registry maps variant names to game objects. A family module provides
``VARIANTS`` (fixed names to factories), optionally ``from_name`` (for
parameterised names such as ``mnk-4-4-4``) and ``CATALOG`` (what
``build --all`` builds). Families come in through the ``tablebase.games``
entry point group, built-in ones and plugin packages alike; adding a family
means one line under ``[project.entry-points."tablebase.games"]``.
Our own families come first in every lookup, so a name they know is
resolved from our own ``entry_points.txt`` without reading every installed
package's metadata.
"""

from __future__ import annotations

import sys
from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import Any, Sequence

from tablebase.errors import TablebaseError, UnknownVariantError
from tablebase.games.base import DRAW, LOSS, WIN, Game, Outcome

#: The entry point group every family registers under.
GROUP = "tablebase.games"

#: One-line reports of plugins that could not be loaded.
PROBLEMS: list[str] = []
#: Family object -> (entry point name, the entry point that registered it).
PACKAGES: dict[int, tuple[str, Any]] = {}

__all__ = [
    "DRAW", "FAMILIES", "GROUP", "LOSS", "PROBLEMS", "WIN", "Game", "Outcome",
    "RegisteredVariant", "catalog", "check_strategy", "families", "get", "names", "naming", "package_of", "problems", "variants",
]


def _distribution(ep: Any) -> str:
    """The name of the package that registered entry point ``ep`` (read from its metadata: only when shown)."""
    return ep.dist.name if ep.dist is not None else "unknown"


def _load() -> tuple[Any, ...]:
    """Every family registered in the entry point group, our own first."""
    from importlib.metadata import entry_points

    PROBLEMS.clear()
    loaded: list[Any] = []
    taken: dict[str, Any] = {}
    # our own modules first, then plugins by module and entry name: the same order on every machine
    ordered = sorted(entry_points(group=GROUP), key=lambda ep: (not ep.value.startswith("tablebase."), ep.value, ep.name))
    for ep in ordered:
        try:
            family = ep.load()
            variants = family.VARIANTS
        except Exception as exc:  # a broken plugin must not take the others down
            PROBLEMS.append(f"plugin {_distribution(ep)!r} entry {ep.name!r} failed to load: {exc}")
            continue
        clash = [name for name in variants if name in taken]
        if clash:
            PROBLEMS.append(
                f"plugin {_distribution(ep)!r} entry {ep.name!r} skipped: variant {clash[0]!r}"
                f" already registered by {_distribution(taken[clash[0]])!r}"
            )
            continue
        for name in variants:
            taken[name] = ep
        PACKAGES[id(family)] = (ep.name, ep)
        loaded.append(family)
    for problem in PROBLEMS:
        print(f"tablebase: {problem}", file=sys.stderr)
    return tuple(loaded)


@lru_cache(maxsize=1)
def _own_entries() -> list[str] | None:
    """The object references (``module`` or ``module:attr``) our own distribution registers in
    :data:`GROUP`, read from its ``entry_points.txt`` without importing :mod:`importlib.metadata`
    (which costs a probe more than the probe itself); ``None`` when that file is not found."""
    import os
    import re

    for folder in sys.path:
        try:
            listing = os.listdir(folder or ".")
        except OSError:
            continue
        for entry in listing:
            if re.fullmatch(r"tablebase-[^-]+\.dist-info", entry):
                try:
                    with open(os.path.join(folder or ".", entry, "entry_points.txt"), encoding="utf-8") as file:
                        text = file.read()
                except OSError:
                    return None
                section = re.search(rf"^\[{re.escape(GROUP)}\]\s*$(.*?)(?=^\[|\Z)", text, re.M | re.S)
                lines = section.group(1).splitlines() if section else []
                return sorted(line.split("=", 1)[1].strip() for line in lines if "=" in line)
    return None


def _builtin(name: str) -> Game | None:
    """``name`` resolved among our own families only (they come first in every lookup, so the
    answer is the registry's), or ``None``: then the whole registry is read. Families are imported
    in registry order until one has ``name`` as a fixed name (fixed names win over parametrised
    ones in :func:`_find`, so the first such family is the answer)."""
    from importlib import import_module

    own = []
    for reference in _own_entries() or ():
        module, _, attr = reference.partition(":")
        family = import_module(module)
        for part in attr.split(".") if attr else ():
            family = getattr(family, part)
        own.append(family)
        if name in family.VARIANTS:
            break
    return _find(own, name)


def _find(found: Sequence[Any], name: str) -> Game | None:
    """The game ``name`` names in families ``found``: a fixed name first, then a parametrised one."""
    for family in found:
        factory = family.VARIANTS.get(name)
        if factory is not None:
            made: Game = factory()
            return made
    for family in found:
        from_name = getattr(family, "from_name", None)
        if from_name is not None:
            game: Game | None = from_name(name)
            if game is not None:
                return game
    return None


def families() -> tuple[Any, ...]:
    """The registered families (loaded on first use); raises if none is registered."""
    found: tuple[Any, ...] | None = globals().get("FAMILIES")
    if found is None:
        found = _load()
        globals()["FAMILIES"] = found
    if not found:
        raise TablebaseError(
            f"no game registered in the {GROUP!r} entry point group"
            " (is tablebase installed? run: pip install -e .)"
        )
    return found


def problems() -> list[str]:
    """One line per plugin that could not be registered (failed to load, or took a taken name)."""
    if "FAMILIES" not in globals():
        globals()["FAMILIES"] = _load()
    return list(PROBLEMS)


def package_of(family: Any) -> tuple[str, str]:
    """The family name and the distribution that registered ``family``."""
    registered = PACKAGES.get(id(family))
    if registered is None:
        return getattr(family, "__name__", "game").rsplit(".", 1)[-1], "tablebase"
    return registered[0], _distribution(registered[1])


@dataclass(frozen=True)
class RegisteredVariant:
    """One registered variant as ``tablebase variants`` lists it."""

    variant: str
    family: str
    package: str
    rules: str
    #: ``True``: ``build`` enumerates it; ``False``: only ``solve`` (search) proves positions.
    buildable: bool

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def variants() -> list[RegisteredVariant]:
    """Every fixed variant of every registered family, built or not, in registry order."""
    found = []
    for family in families():
        family_name, package = package_of(family)
        for name in (*family.VARIANTS, *getattr(family, "USUAL", ())):
            game = get(name)
            found.append(RegisteredVariant(name, family_name, package, game.rules, bool(game.enumerable)))
    return found


def naming() -> list[str]:
    """How to name the variants of parametrised families (each family's ``NAMING`` line)."""
    return [line for family in families() if (line := getattr(family, "NAMING", None))]


def __getattr__(attr: str) -> Any:
    if attr == "FAMILIES":
        return families()
    raise AttributeError(f"module {__name__!r} has no attribute {attr!r}")


@lru_cache(maxsize=64)
def get(name: str) -> Game:
    """The game registered as ``name``; raises :class:`UnknownVariantError` naming it otherwise."""
    if not isinstance(name, str):
        raise UnknownVariantError(f"unknown variant {name!r}")
    game = _builtin(name) if "FAMILIES" not in globals() else None
    if game is None:
        game = _find(families(), name)
    if game is not None:
        return game
    raise UnknownVariantError(
        f"unknown variant {name!r} (known: {', '.join(names())}; see tablebase variants)"
    )


def names() -> list[str]:
    """Every fixed variant name, in registry order."""
    return [name for family in families() for name in family.VARIANTS]


def catalog() -> list[str]:
    """The variants ``build --all`` builds."""
    return [name for family in families() for name in getattr(family, "CATALOG", family.VARIANTS)]


def check_strategy(name: str, *, solve: Any, lower_bound: bool = False, walk_to: int = 0) -> Any:
    """The by-machine check of the strategies a family states for variant ``name`` (its module's
    ``check_strategies``, for the variants it lists in ``STRATEGIES``, handed ``solve``, the solver of
    whole games, :func:`tablebase.solve.solve`): an object with ``to_dict()`` and ``summary()``; raises
    :class:`UnknownVariantError` naming ``name`` when no family has one for it. The front door is
    :func:`tablebase.check_strategy`, which hands it the solver."""
    having = [family for family in families() if hasattr(family, "check_strategies")]
    for family in having:
        if name in family.STRATEGIES:
            return family.check_strategies(solve, lower_bound=lower_bound, walk_to=walk_to)
    known = ", ".join(repr(variant) for family in having for variant in family.STRATEGIES) or "none"
    raise UnknownVariantError(f"no strategy to check for {name!r} (variants with one: {known})")
