"""The movement-phase tiers of the Morris games, solved tier by tier: the tiers' sizes, their values
against whole builds of the game played from its start, and every label against its children."""

from __future__ import annotations

from math import comb
from pathlib import Path

import numpy as np
import pytest

import tablebase
from tablebase import games
from tablebase.games.morris.board import SIX
from tablebase.games.morris.rules import MorrisGame
from tablebase.games.morris.tiers import MorrisTiers, Tier
from tablebase.outcome import CODES, NAMES, label_from_children
from tablebase.solve import DRAW_CODE, LOSS_CODE, WIN_CODE, solve
from tablebase.solve.tiers import SolvedTier, solve_tiers

Value = tuple[str, "int | None"]


def nine() -> MorrisGame:
    game = games.get("morris-9")
    assert isinstance(game, MorrisGame)
    return game


def six_flying(stones: int) -> MorrisGame:
    """The Six Men's Morris board with flying at three stones: small, and its endgames fly as Nine's do."""
    return MorrisGame(SIX, stones, True, f"six-flying-{stones}")


def solved(game: MorrisGame, stones: int) -> dict[Tier, SolvedTier[Tier]]:
    return {result.tier: result for result in solve_tiers(MorrisTiers(game, stones), game.vector)}


def value(result: SolvedTier[Tier], i: int) -> Value:
    d = int(result.distance[i])
    return NAMES[int(result.outcome[i])], None if d < 0 else d


def tier_of(game: MorrisGame, state: int) -> Tier:
    xs, os = game.boards(state)
    return Tier(xs.bit_count(), os.bit_count())


def agree(
    game: MorrisGame, stones: int, states: np.ndarray, outcome: np.ndarray, distance: np.ndarray
) -> dict[Tier, SolvedTier[Tier]]:
    """The tiers of at most ``stones`` a side solved, each checked against the values given for the
    movement positions ``states`` (canonical), every one of which must lie in a tier."""
    tiering = MorrisTiers(game, stones)
    where = tiering.tier_of(states)
    assert np.all(where >= 0)
    tiers = {}
    for i, result in enumerate(solve_tiers(tiering, game.vector)):
        tiers[result.tier] = result
        here = where == i
        found = result.find(states[here])
        assert np.array_equal(result.outcome[found], outcome[here]), result.tier
        assert np.array_equal(result.distance[found], distance[here]), result.tier
    return tiers


def check_children(game: MorrisGame, tiers: dict[Tier, SolvedTier[Tier]], sample: int, seed: int) -> set[str]:
    """Up to ``sample`` states of each outcome in each tier: the value re-derived from the scalar rules
    and the children's stored values; returns the outcomes seen."""
    rng = np.random.default_rng(seed)
    seen = set()
    for result in tiers.values():
        picks = [rng.choice(where, size=min(sample, len(where)), replace=False)
                 for where in (np.flatnonzero(result.outcome == code) for code in (WIN_CODE, LOSS_CODE, DRAW_CODE))]
        for i in np.concatenate(picks):
            state = int(result.states[i])
            ended = game.outcome(state)
            if ended is not None:
                expected: Value = (ended, 0)
            else:
                kids = []
                for _, child in game.children(state):
                    canonical = game.canonical(child)[0]
                    below = tiers[tier_of(game, canonical)]
                    kids.append(value(below, int(below.find(np.array([canonical], dtype=np.uint64))[0])))
                expected = label_from_children(kids)
            assert value(result, int(i)) == expected, game.format_position(state)
            seen.add(expected[0])
    return seen


# -- the tiers ---------------------------------------------------------------------


def test_the_tiers_come_after_the_tiers_their_removals_lead_to() -> None:
    tiers = MorrisTiers(nine(), 4)
    order = tiers.tiers()
    assert set(order) == {Tier(x, o) for x in range(2, 5) for o in range(2, 5)} - {Tier(2, 2)}
    for i, tier in enumerate(order):
        assert all(order.index(child) < i for child in tiers.child_tiers(tier))
    assert tiers.child_tiers(Tier(3, 4)) == [Tier(2, 4), Tier(3, 3)]
    assert tiers.child_tiers(Tier(2, 4)) == []
    with pytest.raises(ValueError):
        tiers.states(Tier(5, 3))
    with pytest.raises(ValueError):
        MorrisTiers(nine(), 12)


@pytest.mark.parametrize("board", ["morris-9", "six-flying"])
def test_a_tier_holds_every_placement_once_up_to_symmetry(board: str) -> None:
    game, stones = (nine(), 3) if board == "morris-9" else (six_flying(4), 4)
    tiers = MorrisTiers(game, stones)
    kernels = game.vector
    n = game.cells
    for i, tier in enumerate(tiers.tiers()):
        states = tiers.states(tier)
        assert np.all(states[1:] > states[:-1])
        assert np.array_equal(kernels.canonical(states), states)
        assert np.all(tiers.tier_of(states) == i)
        sides = 2 if min(tier) >= 3 else 1
        assert int(kernels.orbit_sizes(states).sum()) == comb(n, tier.x) * comb(n - tier.x, tier.o) * sides
        movers = {game.to_move(int(s)) for s in states}
        assert movers == ({"x", "o"} if sides == 2 else {"x"} if tier.x == 2 else {"o"})


def test_a_state_outside_the_tiers_has_none() -> None:
    game = nine()
    tiers = MorrisTiers(game, 3)
    texts = ["xxx.ooo................. x", "xx..ooo................. o", "xxxx.ooo................ x",
             "xxx.ooo................. o 0 1"]
    states = np.array([game.parse_position(t) for t in texts], dtype=np.uint64)
    assert tiers.tier_of(states).tolist() == [tiers.tiers().index(Tier(3, 3)), -1, -1, -1]


# -- the values --------------------------------------------------------------------


def test_the_tiers_agree_with_the_whole_game_solved_from_its_start() -> None:
    game = six_flying(4)
    whole = solve(game)
    everything = np.asarray(whole.states, dtype=np.uint64)
    movement = (everything >> np.uint64(game.hand_shift)) == 0
    states, outcome, distance = everything[movement], whole.outcome[movement], whole.distance[movement]
    agree(game, 4, states, outcome, distance)
    assert len(states) > 100_000
    assert set(outcome.tolist()) == {WIN_CODE, LOSS_CODE, DRAW_CODE}


def test_every_label_agrees_with_its_children() -> None:
    game = six_flying(4)
    assert check_children(game, solved(game, 4), sample=50, seed=5) == {"win", "loss", "draw"}


def test_a_tier_read_before_it_is_solved_is_refused() -> None:
    class Backwards(MorrisTiers):
        def tiers(self) -> list[Tier]:
            return list(reversed(super().tiers()))

    game = nine()
    with pytest.raises(ValueError, match="does not come before it"):
        next(solve_tiers(Backwards(game, 3), game.vector))


@pytest.mark.slow
def test_the_tiers_of_nine_mens_morris_hold_every_placement_up_to_four() -> None:
    game = nine()
    tiers = MorrisTiers(game, 4)
    for tier in [Tier(3, 4), Tier(4, 3), Tier(4, 4)]:
        states = tiers.states(tier)
        assert int(game.vector.orbit_sizes(states).sum()) == comb(24, tier.x) * comb(24 - tier.x, tier.o) * 2


@pytest.mark.slow
@pytest.mark.parametrize("stones", [3])
def test_nine_mens_morris_tiers_agree_with_a_whole_build(tmp_path: Path, stones: int) -> None:
    """Every movement position a whole build of ``morris-9-S`` holds (those reachable from its start),
    against the tiers of ``morris-9`` of at most ``S`` stones a side; then labels against children.
    ``S`` = 4 passes too (9,413,780 positions), but its whole build takes 6 min and 6.8 GB: run it by
    hand with ``pytest -m slow -k whole_build`` after changing the parametrisation."""
    name = f"morris-9-{stones}"
    game = nine()
    with tablebase.open(tmp_path / "m.db") as tb:
        tb.build(name)
        held = [(state, CODES[outcome], -1 if distance is None else distance)
                for state, key, _, _, outcome, distance in tb.variant(name).rows() if key.endswith(" 0 0")]
    states = np.array([h[0] for h in held], dtype=np.uint64)
    outcome = np.array([h[1] for h in held], dtype=np.int8)
    distance = np.array([h[2] for h in held], dtype=np.int32)
    del held
    tiers = agree(game, stones, states, outcome, distance)
    played = np.bincount(MorrisTiers(game, stones).tier_of(states))
    for i, result in enumerate(tiers.values()):
        if min(result.tier) >= 3:
            assert played[i] > 0.9 * len(result.states), result.tier
    assert check_children(game, tiers, sample=40, seed=stones) == {"win", "loss", "draw"}
