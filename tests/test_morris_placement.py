"""The placement phase proved by search over the stored movement-phase tiers (``tablebase solve
morris-9`` as Gasser solved Nine Men's Morris): every placement position of a whole build agrees
with the search, and ``solve`` stores what it proved for probes and play."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

import tablebase
from cli.main import app
from tablebase import games
from tablebase.errors import BuildError

pytestmark = pytest.mark.xdist_group("morris-tiers")

runner = CliRunner()


@pytest.fixture(scope="module")
def six_tiers(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """morris-6's tiers of at most three stones a side."""
    path = tmp_path_factory.mktemp("placement") / "six.db"
    with tablebase.open(path) as tb:
        tb.build("morris-6", tiers=3, workers=1)
    return path


def whole_placements(path: Path, name: str) -> list[tuple[int, str, int | None]]:
    """Every placement position (a stone in hand) of ``name`` built whole into ``path``, with its value."""
    game = games.get(name)
    with tablebase.open(path) as tb:
        tb.build(name)
        rows = [(game.parse_position(key), outcome, distance) for _, key, _, _, outcome, distance in tb.variant(name).rows()]
    return [row for row in rows if game.hands(row[0]) != (0, 0)]  # type: ignore[attr-defined]


def assert_search_agrees(tiers: Path, name: str, small: str, tmp_path: Path) -> int:
    """The search over ``name``'s stored tiers gives every placement position of ``small`` (the same
    board with fewer stones, built whole) its value and distance; the positions compared."""
    held = whole_placements(tmp_path / "whole.db", small)
    with tablebase.open(tiers) as tb:
        search = tb.variant(name).tier_search()
        assert search is not None
        for state, outcome, distance in held:
            assert search.covers(state)
            proof = search.value(state)
            assert proof == (outcome, None if outcome == "draw" else distance), games.get(name).format_position(state)
    return len(held)


def test_every_placement_of_six_mens_three_stones_agrees_with_a_whole_build(six_tiers: Path, tmp_path: Path) -> None:
    compared = assert_search_agrees(six_tiers, "morris-6", "morris-6-3", tmp_path)
    assert compared > 1000


@pytest.mark.slow
def test_every_placement_of_nine_mens_three_stones_agrees_with_a_whole_build(tmp_path: Path) -> None:
    """31,563 placement classes of morris-9-3 (whose start is a win in 23), against the search over
    morris-9's tiers of three a side."""
    tiers = tmp_path / "nine.db"
    with tablebase.open(tiers) as tb:
        tb.build("morris-9", tiers=3, workers=1)
    assert assert_search_agrees(tiers, "morris-9", "morris-9-3", tmp_path) == 31_563


def test_solve_stores_the_position_and_its_moves_for_probes(six_tiers: Path, tmp_path: Path) -> None:
    path = tmp_path / "six.db"
    path.write_bytes(six_tiers.read_bytes())
    start = "................ x 3 3"
    with tablebase.open(path) as tb:
        whole = tb.build("morris-6-3")
        expected = tb.variant("morris-6-3").probe()
        report = tb.solve("morris-6", start)
        assert report.proved and report.moves == report.moves_proved == 16
        assert (report.outcome, report.distance) == (expected.outcome, expected.distance) == (whole.outcome, whole.distance)
        assert report.stored >= 1
        probe = tb.variant("morris-6").probe(start)
        assert [(m.move, m.outcome, m.distance) for m in probe.moves] == [
            (m.move, m.outcome, m.distance) for m in expected.moves
        ]
        again = tb.solve("morris-6", start)
        assert again.stored == 0 and again.proved
        stats = {row.ply: row for row in tb.variant("morris-6").stats().plies}
        assert stats[303].tier == "3-3" and stats[6].classes == 1 and stats[7].classes > 1  # ply 6: 12 stones less 6 in hand


def test_solve_refuses_a_tier_position_and_names_a_missing_tier(six_tiers: Path, tmp_path: Path) -> None:
    path = tmp_path / "six.db"
    path.write_bytes(six_tiers.read_bytes())
    with tablebase.open(path) as tb:
        with pytest.raises(BuildError, match="lies in its stored tiers; probe it instead"):
            tb.solve("morris-6", "xxx.ooo......... x")
        with pytest.raises(BuildError, match=r"tier 4-4 is not stored.*--stones 4"):
            tb.solve("morris-6", "................ x 4 4")


def test_cli_solve_over_the_tiers(six_tiers: Path, tmp_path: Path) -> None:
    path = tmp_path / "six.db"
    path.write_bytes(six_tiers.read_bytes())
    result = runner.invoke(app, ["solve", "morris-6", "x...o........... x 2 2", "--db", str(path), "--json"])
    assert result.exit_code == 0, result.output
    assert '"proved": true' in result.output
    result = runner.invoke(app, ["probe", "morris-6", "x...o........... x 2 2", "--db", str(path)])
    assert result.exit_code == 0, result.output


def test_a_distance_that_needs_too_many_tiers_is_left_unproved(six_tiers: Path) -> None:
    game = games.get("morris-6")
    with tablebase.open(six_tiers) as tb:
        search = tb.variant("morris-6").tier_search()
        assert search is not None
        proof = search.prove(game.parse_position("x...o........... x 2 2"))
        decided = [(child, value) for _, child, value in proof.moves if value is not None and value[0] != "draw"]
        assert decided and all(value[1] is not None for _, value in decided)
        capped = tb.variant("morris-6").tier_search()
        assert capped is not None
        capped.distance_bytes = 0  # type: ignore[attr-defined]
        for child, (outcome, _) in decided:
            assert capped.value(child) == (outcome, None)


def test_the_server_solves_a_placement_position_over_the_tiers(six_tiers: Path) -> None:
    from fastapi.testclient import TestClient

    from tablebase.serve import create_app

    position = "x...o........... x 2 2"
    with tablebase.open(six_tiers) as tb:
        search = tb.variant("morris-6").tier_search()
        assert search is not None
        expected = search.prove(games.get("morris-6").parse_position(position))
    with TestClient(create_app(six_tiers, solvers=1)) as client:
        reply = client.get("/api/morris-6/solve", params={"position": position, "time_limit": 30})
        assert reply.status_code == 200, reply.text
        body = reply.json()
        assert body["proved"] and body["outcome"] == expected.value[0]  # type: ignore[index]
        assert len(body["moves"]) == len(expected.moves) == 14


def test_verify_checks_the_positions_solve_stored(six_tiers: Path, tmp_path: Path) -> None:
    path = tmp_path / "six.db"
    path.write_bytes(six_tiers.read_bytes())
    with tablebase.open(path) as tb:
        tiers = tb.verify("morris-6").states
        tb.solve("morris-6", "x...o........... x 2 2")
        report = tb.verify("morris-6")
        assert report.ok and report.states > tiers
    game = games.get("morris-6")
    key = game.format_position(game.canonical(game.parse_position("x...o........... x 2 2"))[0])
    with sqlite3.connect(path) as conn:
        assert conn.execute("UPDATE states SET outcome = 'loss', distance = 3 WHERE key = ?", (key,)).rowcount == 1
    with tablebase.open(path) as tb:
        report = tb.verify("morris-6")
        assert not report.ok and any(f"{key}: stored loss/3" in e for e in report.errors)
