"""Checks a game author runs on their game: the generic simulation checks every registered game passes.

They talk to a game only through :class:`tablebase.games.base.Game` (and to a built variant only
through :class:`tablebase.query.VariantTable`), so they apply to any family, built in or plugged in.
Each raises :class:`AssertionError` naming the position and what is wrong; call them from a test::

    from tablebase import testing

    def test_rules():
        testing.check_game("takeaway-21")

    def test_built(tmp_path):
        testing.check_built("takeaway-21", tmp_path / "t.db")

:func:`check_game` runs every rules check, the board layout contract (:func:`check_board_layout`)
among them; :func:`check_built` builds a variant and probes it through the public API. For an
author of a storage, :func:`check_storage` builds a small game with that storage and
compares every stored position with a solve in memory.

This module imports no test framework.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Hashable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from tablebase.games import get
from tablebase.games.base import DRAW, Game
from tablebase.games.layout import Layout, board_cells, split_move
from tablebase.games.playouts import random_states
from tablebase.query import Tablebase

if TYPE_CHECKING:
    from tablebase.query import VariantTable
    from tablebase.solve import Solution

Node = TypeVar("Node", bound=Hashable)


def _expect(condition: bool, *context: object) -> None:
    if not condition:
        raise AssertionError(" ".join(str(part) for part in context))


def _game(game: Game | str) -> Game:
    return get(game) if isinstance(game, str) else game


def check_state(game: Game, state: int) -> None:
    """Notation round-trips, terminal states have no moves, moves round-trip, apply is pure."""
    text = game.format_position(state)
    _expect(game.parse_position(text) == state, f"{text!r} does not parse back to its state")
    _expect(game.format_position(game.parse_position(text)) == text, f"{text!r} does not format back")
    _expect(game.to_move(state) in game.players, f"{text!r}: side to move {game.to_move(state)!r} is no player")
    if game.outcome(state) is not None:
        _expect(game.children(state) == [], f"{text!r} is over but has children")
        return
    moves = game.legal_moves(state)
    _expect(bool(moves), f"{text!r}: no legal move but not terminal")
    _expect(len(set(moves)) == len(moves), f"{text!r}: a move is listed twice")
    before = state
    for move in moves:
        notation = game.format_move(move)
        _expect(game.parse_move(state, notation) == move, f"{text!r}: move {notation!r} does not parse back")
        _expect(game.format_move(game.parse_move(state, notation)) == notation, f"{text!r}: move {notation!r}")
        child = game.apply(state, move)
        _expect(child != state, f"{text!r}: move {notation!r} changes nothing")
        _expect(state == before and game.format_position(state) == text, f"{text!r}: {notation!r} changed it")
        _expect(game.to_move(child) != game.to_move(state), f"{text!r}: {notation!r} keeps the side to move")
        game.parse_position(game.format_position(child))  # every child is a valid position


def check_symmetries(game: Game, state: int) -> None:
    """``transform_move`` agrees with ``transform`` for every symmetry and legal move."""
    text = game.format_position(state)
    moves = game.legal_moves(state)
    images = set()
    canonical, canonical_sym = game.canonical(state)
    for sym in range(game.num_symmetries):
        image = game.transform(state, sym)
        images.add(image)
        where = f"{text!r}, symmetry {sym}:"
        _expect(game.transform(image, game.inverse_symmetry(sym)) == state, where, "the inverse does not undo it")
        _expect(game.outcome(image) == game.outcome(state), where, "the outcome differs")
        _expect(
            game.to_move(image) == game.to_move(state),
            where,
            "the side to move differs: a symmetry must keep the side to move (a stored position stands for its"
            " whole class with one side to move; symmetries that exchange the players are not supported)",
        )
        _expect(game.parse_position(game.format_position(image)) == image, where, "the image does not round-trip")
        mapped = sorted(game.transform_move(m, sym) for m in moves)
        _expect(mapped == sorted(game.legal_moves(image)), where, "moves do not map to the image's moves")
        for move in moves:
            after = game.apply(image, game.transform_move(move, sym))
            _expect(after == game.transform(game.apply(state, move), sym), where, f"move {game.format_move(move)!r}")
    _expect(canonical == min(images), f"{text!r}: canonical is not the smallest image")
    _expect(game.transform(state, canonical_sym) == canonical, f"{text!r}: canonical symmetry")
    _expect(game.orbit_size(state) == len(images), f"{text!r}: orbit size")


def check_random_play(game: Game, playouts: int, seed: int) -> None:
    """Random playouts reach an end, and every state on the way passes :func:`check_state`."""
    states = random_states(game, playouts=playouts, seed=seed)
    _expect(any(game.outcome(s) is not None for s in states), f"{game.name}: no random playout ended")
    for state in states:
        check_state(game, state)


def check_random_symmetries(game: Game, playouts: int, seed: int, step: int) -> None:
    """:func:`check_symmetries` on every ``step``-th state of random playouts."""
    for state in random_states(game, playouts=playouts, seed=seed)[::step]:
        check_symmetries(game, state)


def check_search_hints(game: Game, playouts: int = 20, seed: int = 0, max_plies: int = 200) -> None:
    """``move_count`` counts the legal moves, ``max_plies`` bounds the plies left, ``draw_length``
    (where the game gives one) is the plies left of every playout that ends in a draw, and every
    later position, in every orientation, matches one of an earlier one's ``key_patterns`` (where
    the game gives them), on random playouts."""
    rng = random.Random(seed)
    for _ in range(playouts):
        state = game.initial_state()
        bounds = []
        draws = []
        patterns: list[tuple[str, list[re.Pattern[str]]]] = []
        for ply in range(max_plies):
            text = game.format_position(state)
            _expect(game.move_count(state) == len(game.legal_moves(state)), f"{text!r}: move_count")
            bounds.append(game.max_plies(state))
            draws.append(game.draw_length(state))
            if patterns:
                _check_patterns(game, state, patterns)
            found = game.key_patterns(state) if ply % 4 == 0 else None
            if found is not None:
                patterns.append((text, [_like(pattern) for pattern in found]))
            if game.outcome(state) is not None:
                break
            state = game.apply(state, rng.choice(game.legal_moves(state)))
        else:
            continue
        drawn = game.outcome(state) == DRAW
        for played_before, bound in enumerate(bounds):
            left = len(bounds) - 1 - played_before
            _expect(bound is None or bound >= left, f"{game.name}: max_plies {bound} where {left} plies were left")
            if drawn:
                length = draws[played_before]
                _expect(length is None or length == left, f"{game.name}: draw_length {length} where a draw came after {left} plies")


def _check_patterns(game: Game, state: int, patterns: list[tuple[str, list[re.Pattern[str]]]]) -> None:
    """Every orientation of ``state`` matches one of the key patterns of each earlier position."""
    for image in {game.format_position(game.transform(state, sym)) for sym in range(game.num_symmetries)}:
        for earlier, likes in patterns:
            _expect(any(like.fullmatch(image) for like in likes), f"{image!r} matches no key pattern of {earlier!r}")


def _like(pattern: str) -> re.Pattern[str]:
    """SQL ``LIKE`` ``pattern`` (``%``: any run, ``_``: any one character, case ignored) as a regular expression."""
    return re.compile("".join(".*" if c == "%" else "." if c == "_" else re.escape(c) for c in pattern), re.I | re.S)


def check_unmoves(game: Game, playouts: int = 40, seed: int = 7) -> None:
    """For games with ``has_unmoves``: ``unmoves`` lists exactly the (parent, move) pairs that lead to a state."""
    for state in random_states(game, playouts, seed=seed):
        for move, child in game.children(state):
            _expect((state, move) in game.unmoves(child), game.format_position(state), game.format_move(move))
        for parent, move in game.unmoves(state):
            where = f"{game.format_position(parent)!r} {game.format_move(move)!r}:"
            _expect(game.outcome(parent) is None, where, "unmove from a finished position")
            _expect(move in game.legal_moves(parent), where, "unmove is not a legal move")
            _expect(game.apply(parent, move) == state, where, "unmove does not lead back")


def check_game(game: Game | str, playouts: int = 40, seed: int = 1) -> None:
    """Every rules check of this module on ``game`` (a game or a registered name)."""
    game = _game(game)
    check_random_play(game, playouts=playouts, seed=seed)
    check_random_symmetries(game, playouts=max(1, playouts // 4), seed=seed + 1, step=3)
    check_search_hints(game, playouts=max(1, playouts // 2), seed=seed + 2)
    if game.has_unmoves:
        check_unmoves(game, playouts=playouts, seed=seed + 3)
    check_board_layout(game, playouts=max(1, playouts // 4), seed=seed + 4)


def check_board_layout(game: Game | str, playouts: int = 30, seed: int = 7, max_plies: int = 60) -> None:
    """The contract of :meth:`~tablebase.games.base.Game.layout` on random games (nothing to check
    for a game without a layout): cell names are unique, edges, regions and one-click moves name
    cells of the layout, every position's board fits it, every legal move names its cells (or, for
    a move of ``click_moves``, the cells that click to it) and changes what is on no other cell, the
    marks of :meth:`~tablebase.games.base.Game.board_marks` name its regions, cells and players, and
    on a ``gravity`` layout a piece lands on the lowest empty cell of its column."""
    game = _game(game)
    layout = game.layout()
    if layout is None:
        return
    names = [c["name"] for c in layout["cells"]]
    cells = set(names)
    _expect(len(cells) == len(names), f"{game.name}: cell names are not unique")
    _expect(layout["shape"] in ("square", "circle"), f"{game.name}: shape {layout['shape']!r}")
    _expect(all(a in cells and b in cells for a, b in layout["edges"]), f"{game.name}: an edge names no cell")
    _expect(set(layout["pieces"].values()) <= set(game.players) | set(layout["pieces"]), f"{game.name}: pieces")
    regions = {r["name"]: r["cells"] for r in layout.get("regions", [])}
    in_regions = [c for members in regions.values() for c in members]
    _expect(len(set(in_regions)) == len(in_regions), f"{game.name}: a cell is in two regions")
    _expect(set(in_regions) <= cells, f"{game.name}: a region names no cell")
    click_moves = layout.get("click_moves", {})
    _expect(set(click_moves) <= cells, f"{game.name}: click_moves names no cell")
    clicked = {move: {c for c, m in click_moves.items() if m == move} for move in click_moves.values()}
    if layout.get("gravity", False):
        _check_columns(game, layout, clicked)
    for state in random_states(game, playouts=playouts, seed=seed, max_plies=max_plies):
        _check_marks(game, layout, state, regions)
        if game.outcome(state) is None:
            for move in game.legal_moves(state):
                _check_move(game, layout, state, move, clicked)


def _check_columns(game: Game, layout: Layout, clicked: dict[str, set[str]]) -> None:
    """On a ``gravity`` layout every cell plays its column's move, and a column is the cells of one x."""
    where = {c["name"]: c["x"] for c in layout["cells"]}
    _expect(set(layout.get("click_moves", {})) == set(where), f"{game.name}: a gravity cell plays no move")
    _expect(all(len({where[c] for c in cells}) == 1 for cells in clicked.values()), f"{game.name}: a column spans x")
    _expect(len({where[min(cells)] for cells in clicked.values()}) == len(clicked), f"{game.name}: two columns share x")


def _check_marks(game: Game, layout: Layout, state: int, regions: dict[str, list[str]]) -> None:
    """``state``'s board fits the layout and its marks name its regions, cells and players."""
    text = game.format_position(state)
    board_cells(layout, text)
    marks = game.board_marks(state)
    _expect(set(marks["active"]) | set(marks["owners"]) <= set(regions), f"{text!r}: a mark names no region")
    _expect(set(marks["owners"].values()) <= set(game.players), f"{text!r}: a region's owner is no player")
    line = marks.get("line")
    if line is not None:
        _expect(set(line) <= {c["name"] for c in layout["cells"]}, f"{text!r}: the line names no cell")
        _expect(game.outcome(state) is not None, f"{text!r}: a line is marked but the game goes on")


def _check_move(game: Game, layout: Layout, state: int, move: int, clicked: dict[str, set[str]]) -> None:
    """``move`` changes what is on no cell but those it names (or that click to it); with gravity,
    the piece falls to the lowest empty cell of its column."""
    text = game.format_move(move)
    where = f"{game.format_position(state)!r}: move {text!r}"
    cells = clicked[text] if text in clicked else set(split_move(layout, text)[1])
    before = board_cells(layout, game.format_position(state))
    after = board_cells(layout, game.format_position(game.apply(state, move)))
    changed = {c for c in before if before[c] != after[c]}
    _expect(bool(changed) and changed <= cells, where, f"changes cells {sorted(changed)}, not only {sorted(cells)}")
    if layout.get("gravity", False):
        height = {c["name"]: c["y"] for c in layout["cells"]}
        lowest = max(height[c] for c in cells if before[c] is None)
        _expect(len(changed) == 1 and height[min(changed)] == lowest, where, "does not land on the lowest empty cell")


def check_probes(table: VariantTable, playouts: int = 30, seed: int = 0, max_plies: int = 60) -> None:
    """Random games through the public API of a built variant: position strings round-trip, the probed
    moves are exactly the legal ones, symmetric positions have equal values, terminal positions have no
    moves, and playing a move leaves the old position's probe as it was."""
    rng = random.Random(seed)
    game = table.game
    for _ in range(playouts):
        position = table.probe().position
        for _ply in range(max_plies):
            state = game.parse_position(position)
            _expect(game.format_position(state) == position, f"{position!r} does not round-trip")
            probe = table.probe(position)
            _expect(probe.position == position, f"probe of {position!r} answers for {probe.position!r}")
            legal = {game.format_move(m) for m in game.legal_moves(state)} if not probe.terminal else set()
            _expect({m.move for m in probe.moves} == legal, f"{position!r}: probed moves are not the legal ones")
            for sym in range(game.num_symmetries):
                other = table.probe(game.format_position(game.transform(state, sym)))
                same = (other.outcome, other.distance) == (probe.outcome, probe.distance)
                _expect(same, f"{position!r}: symmetry {sym} has another value")
            if probe.terminal:
                _expect(probe.moves == () and probe.distance == 0, f"{position!r} is over but has moves")
                break
            move = rng.choice(probe.moves)
            after = table.play(position, move.move)
            _expect(after == move.position, f"{position!r}: playing {move.move!r} gives {after!r}")
            _expect(table.probe(position) == probe, f"{position!r}: probing again answers differently")
            position = after


def check_built(name: str, path: str | Path, playouts: int = 30, seed: int = 0, storage: str | None = None) -> None:
    """Build variant ``name`` into the new file ``path`` (with the storage ``storage``, or the
    one the build chooses), audit it with ``verify``, then :func:`check_probes`."""
    with Tablebase(path) as tb:
        tb.build(name, storage=storage)
        report = tb.verify(name)
        _expect(report.ok, f"{name}: verify found {report.error_count} errors, first {report.errors[:1]!r}")
        check_probes(tb.variant(name), playouts=playouts, seed=seed)


def check_storage(
    storage: str, path: str | Path, game: str = "tictactoe", playouts: int = 10, seed: int = 0
) -> None:
    """For authors of a storage (one registered with :func:`tablebase.store.storage.register`):
    :func:`check_built` of the registered variant ``game`` stored with storage ``storage`` in the new
    file ``path``, then every position of a solve in memory probed through the file: its outcome,
    distance and whether the game is over there, and the value of each of its moves, as solved. Pick
    a ``game`` of a few thousand positions that the storage accepts."""
    from tablebase.solve import solve

    check_built(game, path, playouts=playouts, seed=seed, storage=storage)
    with Tablebase(path) as tb:
        table = tb.variant(game)
        info = table.info
        _expect(info.storage == storage, f"{game}: stored with {info.storage!r}, not {storage!r}")
        _check_every_position(table, solve(table.game, symmetry=info.symmetry))


def _check_every_position(table: VariantTable, solution: Solution) -> None:
    """Each position of ``solution`` probes to its solved value, and each of its moves to the move's."""
    from tablebase.outcome import NAMES, NO_DISTANCE, move_value

    game = table.game
    values = [
        (NAMES[int(code)], None if int(distance) == NO_DISTANCE else int(distance))
        for code, distance in zip(solution.outcome.tolist(), solution.distance.tolist())
    ]
    moves: dict[int, dict[str, tuple[str, int | None]]] = {}
    for src, move, dst in zip(solution.src.tolist(), solution.move.tolist(), solution.dst.tolist()):
        moves.setdefault(src, {})[game.format_move(move)] = move_value(*values[dst])
    for i, state in enumerate(solution.states):
        position = game.format_position(int(state))
        probe = table.probe(position)
        _expect((probe.outcome, probe.distance) == values[i], f"{position!r}: probed {probe.outcome} {probe.distance},"
                f" solved {values[i][0]} {values[i][1]}")
        _expect(probe.terminal == bool(solution.terminal[i]), f"{position!r}: terminal is {probe.terminal}")
        found = {m.move: (m.outcome, m.distance) for m in probe.moves}
        _expect(found == moves.get(i, {}), f"{position!r}: probed moves {found}, solved {moves.get(i, {})}")


def winners(
    graph: Mapping[Node, Sequence[Node]], over: Mapping[Node, str], sides: Callable[[Node], tuple[str, str]]
) -> dict[Node, str]:
    """The winner of each position of a game graph (``position -> the positions its moves reach``), for
    a reference solver written in a test from the game's own rules: ``over`` names the winner of the
    positions where the game is over and ``sides(position)`` is ``(to move, opponent)``. A position is
    won by the side to move when one move reaches a position it wins, and by the opponent when every
    move reaches one the opponent wins; positions neither of these ever decides (draws, and finished
positions ``over`` leaves out) are left out."""
    winner = dict(over)
    changed = True
    while changed:
        changed = False
        for node, kids in graph.items():
            if node in winner:
                continue
            me, other = sides(node)
            if any(winner.get(k) == me for k in kids):
                winner[node], changed = me, True
            elif kids and all(winner.get(k) == other for k in kids):
                winner[node], changed = other, True
    return winner


__all__ = [
    "check_board_layout",
    "check_built",
    "check_game",
    "check_probes",
    "check_random_play",
    "check_random_symmetries",
    "check_search_hints",
    "check_state",
    "check_storage",
    "check_symmetries",
    "check_unmoves",
    "random_states",
    "winners",
]
