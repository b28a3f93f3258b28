"""The out-of-core layered solver against the in-memory path, and states-only storage against the moves table."""

from __future__ import annotations

import json
import random
import sqlite3
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

import tablebase
from cli.main import app
from tablebase import games
from tablebase.solve import count, solve
from tablebase.solve.chunked import LayerDir, solve_chunked
from tablebase.store.states import SolutionLayers, write_states


def assert_same(
    name: str,
    tmp_path: Path,
    symmetry: bool = True,
    chunk: int = 97,
    bucket: int = 500,
    workers: int = 1,
    scheduler: str | None = None,
    location: str | None = None,
) -> None:
    game = games.get(name)
    reference = solve(game, symmetry=symmetry)
    layered = solve_chunked(
        game, location or tmp_path / name, symmetry=symmetry, chunk=chunk, bucket=bucket, workers=workers, scheduler=scheduler
    )
    states, ply, outcome, distance = layered.arrays()
    np.testing.assert_array_equal(states, np.asarray(reference.states, dtype=np.uint64))
    np.testing.assert_array_equal(ply, reference.ply)
    np.testing.assert_array_equal(outcome, reference.outcome)
    np.testing.assert_array_equal(distance, reference.distance)
    counted = count(game, symmetry=symmetry)
    assert [(c.ply, c.positions, c.classes, c.terminal) for c in counted] == [
        (layer.depth, layer.positions, layer.classes, layer.terminal) for layer in layered.manifest.layers
    ]
    assert layered.result() == reference.result()


@pytest.mark.parametrize(
    "name",
    ["tictactoe", "tictactoe-misere", "mnk-3-3-2", "mnk-4-3-3", pytest.param("mnk-4-3-3-misere", marks=pytest.mark.slow)],
)
def test_chunked_matches_in_memory(name: str, tmp_path: Path) -> None:
    assert_same(name, tmp_path)


def test_chunked_without_symmetry(tmp_path: Path) -> None:
    assert_same("mnk-4-3-3", tmp_path, symmetry=False, chunk=1000, bucket=5000)


def test_chunked_workers(tmp_path: Path) -> None:
    assert_same("mnk-4-3-3", tmp_path, chunk=500, bucket=2000, workers=2)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["mnk-4-4-3", "mnk-5-3-3", "mnk-4-4-4"])
def test_chunked_mid_boards(name: str, tmp_path: Path) -> None:
    # up to 1.2 million classes, about 240 thousand in the largest layer: chunks of 4,096
    # parents and buckets of 65,536 children cut every large layer into many pieces
    assert_same(name, tmp_path, chunk=4096, bucket=1 << 16, workers=2)


def test_tictactoe_figures(tmp_path: Path) -> None:
    layered = solve_chunked(games.get("tictactoe"), tmp_path / "t", chunk=7, bucket=50)
    assert sum(layer.positions for layer in layered.manifest.layers) == 5478
    assert layered.num_states == 765
    assert layered.result() == ("draw", 9)


def test_resume_after_interruption(tmp_path: Path) -> None:
    game = games.get("tictactoe")
    folder = tmp_path / "b"

    class Stop(Exception):
        pass

    def interrupt(phase: str, done: int, total: int | None) -> None:
        if phase == "layer 4 label":
            raise Stop

    with pytest.raises(Stop):
        solve_chunked(game, folder, chunk=50, bucket=300, progress=interrupt)
    manifest = LayerDir(folder).load_manifest()
    assert manifest is not None and manifest.forward_done and 5 in manifest.labelled and 4 not in manifest.labelled
    phases = []
    resumed = solve_chunked(game, folder, chunk=50, bucket=300, progress=lambda p, d, t: phases.append(p))
    assert not any("enumerate" in p for p in phases)
    assert "layer 5 label" not in phases and "layer 4 label" in phases
    reference = solve(game)
    np.testing.assert_array_equal(resumed.arrays()[2], reference.outcome)
    np.testing.assert_array_equal(resumed.arrays()[3], reference.distance)


# every small variant of every family whose rules list the moves into a position
STORAGE_VARIANTS = [
    "tictactoe", "tictactoe-misere", "mnk-3-3-2", "mnk-3-2-2", "mnk-4-3-3",
    "roman", "roman-adjacent", "roman-lines", "rota", "rota-circle", "wild", "wild-misere",
]


#: The variants :func:`both` builds, and whether with symmetry.
_SYMMETRY = {**dict.fromkeys(STORAGE_VARIANTS, True), "mnk-3-3-3": False}


@pytest.fixture(scope="module")
def both(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., tuple[Path, Path]]:
    """The files ``(moves, states)`` holding the named variants, stored ``moves`` in the first and
    ``states`` in the second; each variant is built into both when first named."""
    folder = tmp_path_factory.mktemp("storage")
    moves, states = folder / "moves.db", folder / "states.db"
    built: set[str] = set()

    def files(*names: str) -> tuple[Path, Path]:
        for name in names:
            if name in built:
                continue
            symmetry = _SYMMETRY[name]
            with tablebase.open(moves) as tb:
                tb.build(name, symmetry=symmetry, storage="moves")
            with tablebase.open(states) as tb:
                tb.build(name, symmetry=symmetry, storage="states", build_dir=folder / f"build-{name}" if symmetry else None)
            built.add(name)
        return moves, states

    return files


#: One variant a family in the quick set; the family's other variants in the slow set.
REPEATS = ("tictactoe-misere", "mnk-3-2-2", "roman-adjacent", "roman-lines", "rota-circle", "wild-misere", "mnk-3-3-3")


@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=pytest.mark.slow) if n in REPEATS else n for n in STORAGE_VARIANTS + ["mnk-3-3-3"]]
)
def test_storage_modes_answer_alike(both: Callable[..., tuple[Path, Path]], name: str) -> None:
    moves, states = both(name)
    with tablebase.open(moves) as a, tablebase.open(states) as b:
        ta, tb_ = a.variant(name), b.variant(name)
        assert (ta.info.storage, tb_.info.storage) == ("moves", "states")
        assert (ta.info.outcome, ta.info.distance, ta.info.states) == (tb_.info.outcome, tb_.info.distance, tb_.info.states)
        assert ta.stats().to_dict() == tb_.stats().to_dict()
        game = ta.game
        rng = random.Random(name)
        keys = [row[1] for row in ta.rows()]
        if len(keys) > 600:
            keys = rng.sample(keys, 600)
        for key in keys:
            # every stored state, in a random orientation
            position = game.format_position(game.transform(game.parse_position(key), rng.randrange(game.num_symmetries)))
            assert ta.probe(position).to_dict() == tb_.probe(position).to_dict()
            assert ta.predecessors(position) == tb_.predecessors(position)
            assert ta.line(position).to_dict() == tb_.line(position).to_dict()
        assert b.verify(name).ok


def test_cli_states_only_json(both: Callable[..., tuple[Path, Path]]) -> None:
    moves, states = both("mnk-4-3-3")
    runner = CliRunner()
    for command in (["probe", "mnk-4-3-3", "x.../.o../...."], ["best", "mnk-4-3-3", "x.../.o../...."],
                    ["line", "mnk-4-3-3"], ["predecessors", "mnk-4-3-3", "x.../.o../...."]):
        outs = [runner.invoke(app, [*command, "--json", "--db", str(db)]) for db in (moves, states)]
        assert all(o.exit_code == 0 for o in outs), outs[1].output
        assert json.loads(outs[0].output) == json.loads(outs[1].output)


def test_verify_sample_finds_a_wrong_label(both: Callable[..., tuple[Path, Path]], tmp_path: Path) -> None:
    _, states = both("tictactoe", "mnk-4-3-3")
    broken = tmp_path / "broken.db"
    broken.write_bytes(states.read_bytes())
    conn = sqlite3.connect(broken)
    conn.execute("PRAGMA journal_mode = DELETE")
    # the start of tictactoe is a draw in 9
    conn.execute("UPDATE states SET outcome = 'win', distance = 3 WHERE key = '.../.../...'"
                 " AND variant_id = (SELECT id FROM variants WHERE name = 'tictactoe')")
    conn.commit()
    conn.close()
    runner = CliRunner()
    result = runner.invoke(app, ["verify", "tictactoe", "--db", str(broken)])
    assert result.exit_code == 1 and "children say draw/9" in result.output
    result = runner.invoke(app, ["verify", "mnk-4-3-3", "--sample", "300", "--db", str(states)])
    assert result.exit_code == 0, result.output
    assert "300 states" in result.output


def test_states_writer_keeps_other_variants(tmp_path: Path) -> None:
    db = tmp_path / "mixed.db"
    with tablebase.open(db) as tb:
        tb.build("tictactoe", storage="moves")
    write_states(db, SolutionLayers(solve(games.get("mnk-3-3-2"))), 0.0)
    with tablebase.open(db) as tb:
        assert {i.name: i.storage for i in tb.variants()} == {"tictactoe": "moves", "mnk-3-3-2": "states"}
        assert tb.variant("tictactoe").probe().outcome == "draw"
        assert tb.verify("tictactoe").ok and tb.verify("mnk-3-3-2").ok


def test_states_only_needs_unmoves(tmp_path: Path) -> None:
    db = tmp_path / "u.db"
    with tablebase.open(db) as tb:
        with pytest.raises(tablebase.TablebaseError, match="'ultimate-strategy' cannot be stored states-only"):
            tb.build("ultimate-strategy", storage="states")
    assert not db.exists()


def test_one_build_dir_for_several_variants_holds_a_folder_each(tmp_path: Path) -> None:
    # one command, several variants, one --build-dir: each variant's layer files in DIR/VARIANT
    db, folder = tmp_path / "two.db", tmp_path / "layers"
    command = ["build", "tictactoe", "mnk-3-3-2", "--storage", "packed", "--workers", "1", "--build-dir", str(folder)]
    for _ in range(2):  # the second run resumes both builds from their folders
        result = CliRunner().invoke(app, [*command, "-q", "--db", str(db)])
        assert result.exit_code == 0, result.output
        assert sorted(p.name for p in folder.iterdir()) == ["mnk-3-3-2", "tictactoe"]
        for name in ("tictactoe", "mnk-3-3-2"):
            manifest = LayerDir(folder / name).load_manifest()
            assert manifest is not None and manifest.game == name and manifest.forward_done
    with tablebase.open(db) as tb:
        built = {i.name: (i.storage, i.outcome, i.distance, i.states) for i in tb.variants()}
    # tic-tac-toe: 765 classes, a draw in 9; mnk-3-3-2: 186 classes, the first player wins in 3
    assert built == {"tictactoe": ("packed", "draw", 9, 765), "mnk-3-3-2": ("packed", "win", 3, 186)}
    # one variant: the folder given is its build directory, as before (an earlier build there resumes)
    single = tmp_path / "single"
    result = CliRunner().invoke(app, ["build", "tictactoe", "--storage", "packed", "--workers", "1", "--build-dir", str(single),
                                      "-q", "--db", str(db)])
    assert result.exit_code == 0, result.output
    assert (single / "manifest.json").exists() and not (single / "tictactoe").exists()
