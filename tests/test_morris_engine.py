"""The colour-folded tier engine of the Morris movement phase: its index against Burnside's counts,
rank and unrank (compiled, and in numpy for probes), its values against the tier solver's on every
class of the small tiers, the passes on two threads, and its counts of positions."""

from __future__ import annotations

import itertools
from functools import cache
from math import comb

import numpy as np
import pytest

from tablebase.games.morris.board import NINE, SIX, MorrisBoard
from tablebase.games.morris.rules import MorrisGame
from tablebase.games.morris.tier_engine import UNUSED, FoldedTier, TierEngine, units
from tablebase.games.morris.tier_index import TierIndex, burnside, fold
from tablebase.games.morris.tier_rank import TierRanker
from tablebase.games.morris.tiers import MorrisTiers
from tablebase.outcome import NAMES, label_from_children
from tablebase.solve import DRAW_CODE, LOSS_CODE, WIN_CODE
from tablebase.solve.tiers import solve_tiers

#: One worker compiles these tests' kernels for all of them (pytest-xdist, ``--dist loadgroup``).
pytestmark = pytest.mark.xdist_group("morris-tiers")


@cache
def index(board: MorrisBoard) -> TierIndex:
    return TierIndex(board)


def agree(board: MorrisBoard, flying: bool, stones: int) -> dict[tuple[int, int], FoldedTier]:
    """The folded tiers of at most ``stones`` a side, each class's value checked against the tier
    solver's for both of its states (each side to move), and every used slot met."""
    game = MorrisGame(board, stones, flying, f"engine-{stones}")
    folded = {(t.m, t.n): t for t in TierEngine(board, flying, index(board)).solve(stones)}
    met = {t: np.zeros(len(f.values), dtype=bool) for t, f in folded.items()}
    for result in solve_tiers(MorrisTiers(game, stones), game.vector):
        movers, others = fold(result.states, board.cells)
        side = (result.states >> np.uint64(2 * board.cells)) & np.uint64(1)
        for o_moves in (0, 1):
            here = side == o_moves
            if not here.any():
                continue
            tier = (result.tier.o, result.tier.x) if o_moves else (result.tier.x, result.tier.o)
            slots = index(board).rank(movers[here], others[here], *tier)
            met[tier][slots] = True
            f = folded[tier]
            assert np.array_equal(f.outcome()[slots], result.outcome[here]), (result.tier, o_moves)
            assert np.array_equal(f.distance()[slots], result.distance[here]), (result.tier, o_moves)
    for tier, f in folded.items():
        assert np.array_equal(met[tier], f.values != UNUSED), tier
    return folded


def test_burnside_counts_gassers_movement_phase() -> None:
    assert sum(burnside(NINE, m, n) for m in range(3, 10) for n in range(3, 10)) == 8_904_593_601
    assert burnside(NINE, 3, 3) == 169_626


@pytest.mark.parametrize(
    "m, n", [(3, 3), *(pytest.param(m, n, marks=pytest.mark.slow) for m, n in [(2, 3), (3, 4), (4, 3), (4, 4), (3, 6), (6, 5)])]
)
def test_every_class_has_one_slot_and_round_trips(m: int, n: int) -> None:
    ix = index(SIX)
    used = ix.used(m, n)
    assert len(used) == ix.size(m, n)
    assert int(used.sum()) == burnside(SIX, m, n)
    slots = np.flatnonzero(used)
    movers, others = ix.unrank(slots, m, n)
    assert np.array_equal(ix.rank(movers, others, m, n), slots)
    assert not np.any(movers & others)
    assert {int(x).bit_count() for x in movers.tolist()} == {m}
    assert {int(x).bit_count() for x in others.tolist()} == {n}


def test_every_image_of_a_position_ranks_to_its_slot() -> None:
    ix = index(SIX)
    rng = np.random.default_rng(3)
    slots = rng.choice(np.flatnonzero(ix.used(4, 3)), size=200, replace=False)
    movers, others = ix.unrank(slots, 4, 3)
    for perm in SIX.symmetries:
        def image(masks: np.ndarray) -> np.ndarray:
            return np.array([sum(1 << perm[i] for i in range(SIX.cells) if x >> i & 1) for x in masks.tolist()])

        assert np.array_equal(ix.rank(image(movers), image(others), 4, 3), slots)


@pytest.mark.parametrize("board, m, n", [(SIX, 4, 3), (SIX, 2, 5), (NINE, 3, 4)])
def test_the_probe_ranker_gives_the_index_s_slots(board: MorrisBoard, m: int, n: int) -> None:
    """In numpy (a process's first calls) and in the compiled loop (the calls after)."""
    from tablebase.games.morris.tier_rank import COMPILED_FROM

    ranker = TierRanker(board)
    rng = np.random.default_rng(7)
    slots = rng.choice(np.flatnonzero(index(board).used(m, n)), size=500, replace=False)
    movers, others = index(board).unrank(slots, m, n)
    sym = rng.integers(len(board.symmetries), size=len(slots))
    at = np.arange(len(slots))
    seen = ranker.images(movers)[sym, at], ranker.images(others)[sym, at]
    assert np.array_equal(ranker.rank(*seen, m, n), slots)
    ranker.calls = COMPILED_FROM
    assert np.array_equal(ranker.rank(*seen, m, n), slots)
    assert ranker.calls == COMPILED_FROM + 1
    assert np.array_equal(ranker.representatives(n), index(board).reps[index(board).rep_start[n] : index(board).rep_start[n + 1]])


def test_the_counts_hold_every_position_of_a_tier() -> None:
    """Each tier's classes stand for every placement of its stones, either side to move."""
    from tablebase.games.morris.tier_check import tally

    for tier in TierEngine(SIX, True, index(SIX)).solve(4):
        counts = tally(tier.m, tier.n, SIX.cells, index(SIX).arrays, tier.values)
        assert counts[0] == 2 * comb(SIX.cells, tier.m) * comb(SIX.cells - tier.m, tier.n)
        assert counts[1] == tier.classes and counts[2:5].sum() == tier.classes
        assert counts[6:9].sum() == counts[0]


def test_units_come_after_the_units_they_read() -> None:
    order = units(5)
    assert order[0] == (3, 3) and set(order) == {(m, n) for m in range(3, 6) for n in range(m, 6)}
    for i, (m, n) in enumerate(order):
        for p, q in ((n - 1, m), (m - 1, n)):
            if min(p, q) >= 3:
                assert order.index((min(p, q), max(p, q))) < i


@pytest.mark.parametrize("flying", [pytest.param(False, marks=pytest.mark.slow), True])
def test_the_engine_agrees_with_the_tier_solver_on_the_six_mens_board(flying: bool) -> None:
    folded = agree(SIX, flying, 4)
    outcomes = set(np.concatenate([f.outcome()[f.values != UNUSED] for f in folded.values()]).tolist())
    assert outcomes == {1, 2, 3}


@pytest.mark.slow
def test_the_passes_on_two_threads_give_the_same_values() -> None:
    one = {(t.m, t.n): t.values for t in TierEngine(SIX, True, index(SIX)).solve(5)}
    two = {(t.m, t.n): t.values for t in TierEngine(SIX, True, index(SIX), threads=2).solve(5)}
    assert one.keys() == two.keys() and all(np.array_equal(one[t], two[t]) for t in one)
    asked = itertools.count()
    changing = TierEngine(SIX, True, index(SIX), threads=lambda: 1 + next(asked) % 2)
    tiers = list(changing.solve(5))
    assert all(np.array_equal(t.values, one[(t.m, t.n)]) for t in tiers)
    levels = {(min(t.m, t.n), max(t.m, t.n)): t.levels for t in tiers if t.m >= 3}
    assert next(asked) > sum(levels.values()) + len(levels)


def test_threads_given_as_a_function_are_asked_as_the_unit_goes_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("tablebase.games.morris.tier_engine.CHUNK", 1 << 10)
    asked: list[int] = []

    def threads() -> int:
        asked.append(1)
        return 1

    engine = TierEngine(SIX, True, index(SIX), threads=threads)
    below = {(t.m, t.n): t.values for t in engine.solve(3)}
    asked.clear()
    (tier,) = engine.solve_unit(3, 3, below)
    # the pass over the moves asks before each part of at most 1,024 slots (3 classes of the other
    # side's stones, of C(13, 3) = 286 slots each), then each level asks once
    reps = int(index(SIX).arrays[4][4] - index(SIX).arrays[4][3])
    assert len(asked) == -(-reps // (1024 // comb(13, 3))) + tier.levels > tier.levels + 5


@pytest.mark.slow
def test_the_index_of_nine_mens_morris_matches_burnside() -> None:
    ix = index(NINE)
    counts = {(m, n): ix.classes(m, n) for m in range(3, 10) for n in range(3, 10)}
    assert counts == {(m, n): burnside(NINE, m, n) for m in range(3, 10) for n in range(3, 10)}
    assert sum(counts.values()) == 8_904_593_601
    for m, n in [(2, 9), (3, 9), (9, 3), (9, 9)]:
        used = ix.used(m, n)
        assert int(used.sum()) == burnside(NINE, m, n), (m, n)
        slots = np.flatnonzero(used)[:: max(1, int(used.sum()) // 100_000)]
        movers, others = ix.unrank(slots, m, n)
        assert np.array_equal(ix.rank(movers, others, m, n), slots)


@pytest.mark.slow
@pytest.mark.parametrize("stones", [3, 4])
def test_the_engine_agrees_with_the_tier_solver_on_nine_mens_morris(stones: int) -> None:
    folded = agree(NINE, True, stones)
    assert sum(f.classes for t, f in folded.items() if min(t) >= 3) == sum(
        burnside(NINE, m, n) for m in range(3, stones + 1) for n in range(3, stones + 1)
    )


def folded_value(
    game: MorrisGame, folded: dict[tuple[int, int], FoldedTier], state: int
) -> tuple[str, int | None]:
    """The engine's value of ``state`` (a movement position of ``game``) for the side to move."""
    xs, os = game.boards(state)
    mover, other = (os, xs) if game.to_move(state) == "o" else (xs, os)
    tier = folded[(mover.bit_count(), other.bit_count())]
    slot = int(index(game.board).rank(np.array([mover]), np.array([other]), tier.m, tier.n)[0])
    value = int(tier.values[slot])
    return NAMES[value & 3], None if value & 3 == DRAW_CODE else value >> 2


@pytest.mark.slow
def test_the_engine_s_labels_up_to_five_agree_with_their_children() -> None:
    """Beyond the tier solver's reach: sampled classes of every outcome in every tier of up to five a
    side, their values re-derived from the scalar rules and their children's values."""
    game = MorrisGame(NINE, 5, True, "engine-5")
    folded = {(t.m, t.n): t for t in TierEngine(NINE, True, index(NINE)).solve(5)}
    rng = np.random.default_rng(5)
    seen = set()
    for (m, n), tier in folded.items():
        for code in (WIN_CODE, LOSS_CODE, DRAW_CODE):
            where = np.flatnonzero(((tier.values & 3) == code) & (tier.values != UNUSED))
            if len(where) == 0:
                continue
            picks = rng.choice(where, size=min(30, len(where)), replace=False)
            movers, others = index(NINE).unrank(picks, m, n)
            for mover, other in zip(movers.tolist(), others.tolist()):
                state = game.make(mover, other, "x", 0, 0)
                ended = game.outcome(state)
                expected = (ended, 0) if ended is not None else label_from_children(
                    folded_value(game, folded, child) for _, child in game.children(state)
                )
                assert folded_value(game, folded, state) == expected, game.format_position(state)
                seen.add(expected[0])
    assert seen == {"win", "loss", "draw"}
