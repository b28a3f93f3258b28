"""One simulation test over every registered variant, through the public API.

Random playouts check that position strings round-trip, that playing a move
leaves the old position as it was, that terminal positions have no moves,
that the probed moves are exactly the legal ones, and that symmetric
positions have equal values.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import tablebase
from tablebase import games, testing
from game_checks import check_random_play, check_random_symmetries
from serve_support import build_database

VARIANTS = [name for name in games.names() if games.get(name).enumerable]


@pytest.fixture(scope="module")
def every_variant(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_database(tmp_path_factory.mktemp("sim") / "all.db", VARIANTS)


def test_registry_is_not_empty() -> None:
    assert {"tictactoe", "roman", "rota", "wild"} <= set(VARIANTS)


@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=pytest.mark.slow) if n == "ultimate-strategy" else n for n in VARIANTS]
)
def test_random_playouts(every_variant: Path, name: str) -> None:
    with tablebase.open(every_variant) as tb:
        assert tb.verify(name).ok
        testing.check_probes(tb.variant(name), playouts=30, seed=len(name))


@pytest.mark.parametrize("name", games.names())
def test_search_hints_hold_on_random_playouts(name: str) -> None:
    testing.check_search_hints(games.get(name), playouts=20, seed=len(name))


@pytest.mark.parametrize("name", [name for name in games.names() if games.get(name).has_unmoves])
def test_unmoves_invert_moves(name: str) -> None:
    testing.check_unmoves(games.get(name), playouts=40, seed=7)


def test_games_that_list_unmoves() -> None:
    assert {"tictactoe", "mnk-5-4-4", "roman", "roman-lines", "rota", "wild"} <= {
        name for name in [*games.names(), "mnk-5-4-4"] if games.get(name).has_unmoves
    }
    assert not games.get("ultimate-strategy").has_unmoves


@pytest.mark.parametrize("name", ["roman", "roman-adjacent", "roman-lines", "rota", "rota-circle", "wild", "wild-misere"])
def test_rules_hold_on_random_playouts(name: str) -> None:
    """Every state of random playouts passes the generic checks, and symmetries map moves with states."""
    game = games.get(name)
    check_random_play(game, playouts=60, seed=2)
    check_random_symmetries(game, playouts=10, seed=3, step=3)


def test_checks_catch_broken_rules() -> None:
    """The shared checks fail on a game whose moves do not round-trip, or whose hints lie."""

    class Broken(type(games.get("tictactoe"))):  # type: ignore[misc]
        def format_move(self, move: int) -> str:
            return "a1"

        def max_plies(self, state: int) -> int | None:
            return 0

    broken = Broken(3, 3, 3, name="broken")
    with pytest.raises(AssertionError, match="does not parse back"):
        testing.check_random_play(broken, playouts=2, seed=0)
    with pytest.raises(AssertionError, match="max_plies 0"):
        testing.check_search_hints(broken, playouts=2, seed=0)


def test_check_game_passes_every_registered_family() -> None:
    for name in ("tictactoe", "rota", "wild"):
        testing.check_game(name, playouts=10)
