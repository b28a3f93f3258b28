"""tablebase solve: positions of games too large to build are proved by search and stored."""

from __future__ import annotations

import json
import random
from pathlib import Path

from typer.testing import CliRunner

import tablebase
from cli.main import app
from tablebase import games

runner = CliRunner()


def random_position(name: str, plies: int, seed: int) -> str:
    game = games.get(name)
    rng = random.Random(seed)
    while True:
        state = game.initial_state()
        for _ in range(plies):
            if game.outcome(state) is not None:
                break
            state = game.apply(state, rng.choice(game.legal_moves(state)))
        if game.outcome(state) is None:
            return game.format_position(state)


def test_solve_stores_the_proof_and_probe_answers(tmp_path: Path) -> None:
    db = tmp_path / "u.db"
    position = random_position("ultimate-classic", 64, seed=11)
    result = runner.invoke(app, ["solve", "ultimate-classic", position, "--db", str(db), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["proved"] and report["stored"] > 0
    with tablebase.open(db) as tb:
        table = tb.variant("ultimate-classic")
        assert not table.info.complete
        probe = table.probe(position)
        assert (probe.outcome, probe.distance) == (report["outcome"], report["distance"])
        game = table.game
        legal = {game.format_move(m) for m in game.legal_moves(game.parse_position(position))}
        assert {m.move for m in probe.moves} == legal
        assert (probe.best_move.outcome, probe.best_move.distance) == (probe.outcome, probe.distance)
        assert tb.verify("ultimate-classic").ok
        unsolved = table.get_probe(None)
        assert unsolved is None
    refused = runner.invoke(app, ["probe", "ultimate-classic", "--db", str(db)])
    assert refused.exit_code == 1 and "not solved; run: tablebase solve ultimate-classic" in refused.stderr


def test_time_limit_stores_no_guess(tmp_path: Path) -> None:
    db = tmp_path / "u.db"
    position = random_position("ultimate", 20, seed=5)
    result = runner.invoke(app, ["solve", "ultimate", position, "--time-limit", "0.5", "--db", str(db)])
    assert result.exit_code == 1
    assert "not proved within 0.5 s" in result.stderr
    with tablebase.open(db) as tb:
        assert tb.variant("ultimate").get_probe(position) is None
        assert tb.verify("ultimate").ok


def test_ultimate_cannot_be_built(tmp_path: Path) -> None:
    result = runner.invoke(app, ["build", "ultimate", "--db", str(tmp_path / "x.db")])
    assert result.exit_code == 1 and "tablebase solve ultimate" in result.stderr
