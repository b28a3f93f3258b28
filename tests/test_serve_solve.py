"""Ultimate tic-tac-toe over HTTP: the board endpoint and positions proved on request (``/solve``)."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from random import Random

import pytest

pytest.importorskip("fastapi", reason="the serve extra is not installed: pip install -e '.[dev]'")

from fastapi.testclient import TestClient  # noqa: E402

import tablebase  # noqa: E402
from tablebase import games  # noqa: E402
from tablebase.games.playouts import random_live_position  # noqa: E402
from tablebase.serve import create_app  # noqa: E402
from tablebase.serve.analysis import Analysis, BusyError, NotProvedError  # noqa: E402
from tablebase.serve.replies import BoardReply, ErrorReply, LayoutReply, ProbeReply, SolveReply, VariantReply  # noqa: E402

EMPTY_ROW = "." * 9
#: x sent to field 5 with four moves left to choose from, 19 empty cells (a random game, 62 plies in).
LATE = ".xo.xxoo./o..oo.xoo/xxoo.oox./x.x.xox.x/xxooxo.x./ooo.oo.xo/.xxoo.x.x/x.ooxoxxx/oxoxoxxxo x 5"

_FLIP = {"win": "loss", "loss": "win", "draw": "draw"}
_RANK = {"win": 0, "draw": 1, "loss": 2}


@lru_cache(maxsize=None)
def _negamax(name: str, state: int) -> tuple[str, int]:
    """(outcome, distance) by plain minimax over the rules: fastest win, longest draw, slowest loss."""
    game = games.get(name)
    result = game.outcome(state)
    if result is not None:
        return result, 0
    best: tuple[tuple[int, int], tuple[str, int]] | None = None
    for _, child in game.children(state):
        outcome, distance = _negamax(name, child)
        mine, d = _FLIP[outcome], distance + 1
        key = (_RANK[mine], d if mine == "win" else -d)
        if best is None or key < best[0]:
            best = (key, (mine, d))
    assert best is not None
    return best[1]


@pytest.fixture(scope="module")
def client(tictactoe_db: Path) -> Iterator[TestClient]:
    with TestClient(create_app(tictactoe_db)) as test_client:
        yield test_client


def test_variants_offer_ultimate_without_a_build(client: TestClient) -> None:
    listed = {v["variant"]: v for v in client.get("/api/variants").json()}
    for entry in listed.values():
        VariantReply.model_validate(entry)
    assert set(listed) == {"tictactoe", "connect4", "morris-9", "ultimate", "ultimate-classic"}
    assert listed["tictactoe"]["complete"] is True
    ultimate = listed["ultimate"]
    assert (ultimate["complete"], ultimate["outcome"], ultimate["states"]) == (False, None, 0)
    assert ultimate["start"] == "/".join([EMPTY_ROW] * 9) + " x *"


def test_connect4_layout_clicks_a_column_anywhere(client: TestClient) -> None:
    layout = client.get("/api/connect4/layout").json()
    LayoutReply.model_validate(layout)
    assert len(layout["cells"]) == 42
    assert layout["click_moves"]["a1"] == layout["click_moves"]["a6"] == "1" and layout["click_moves"]["g3"] == "7"


@pytest.mark.parametrize("name", ["ultimate", "ultimate-classic"])
def test_ultimate_layout_is_a_9x9_grid_in_nine_fields(client: TestClient, name: str) -> None:
    layout = client.get(f"/api/{name}/layout").json()
    LayoutReply.model_validate(layout)
    where = {c["name"]: (c["x"], c["y"]) for c in layout["cells"]}
    assert len(where) == 81 and layout["cells"][0]["name"] == "a1" and layout["cells"][80]["name"] == "i9"
    # neighbours inside a field are one cell apart; the fields are set apart by a gap
    assert where["b1"][0] - where["a1"][0] == 1
    assert where["d1"][0] - where["c1"][0] > 1 and where["a4"][1] - where["a3"][1] > 1
    regions = {r["name"]: set(r["cells"]) for r in layout["regions"]}
    assert regions["4"] == {"d4", "e4", "f4", "d5", "e5", "f5", "d6", "e6", "f6"}
    assert sorted(c for cells in regions.values() for c in cells) == sorted(where)


def test_board_lists_moves_and_the_active_field(client: TestClient) -> None:
    start = client.get("/api/ultimate/board").json()
    BoardReply.model_validate(start)
    assert len(start["moves"]) == 81 and start["active"] == [] and start["owners"] == {}
    after = next(m["position"] for m in start["moves"] if m["move"] == "e5")
    assert after == "/".join([EMPTY_ROW] * 4 + ["....x...."] + [EMPTY_ROW] * 4) + " o 4"
    reply = client.get("/api/ultimate/board", params={"position": after}).json()
    assert reply["active"] == ["4"] and reply["to_move"] == "o" and reply["outcome"] is None
    assert sorted(m["move"] for m in reply["moves"]) == sorted(["d4", "e4", "f4", "d5", "f5", "d6", "e6", "f6"])


def test_board_marks_won_fields_with_their_owner(client: TestClient) -> None:
    # x has won the top-left field (a1 b1 c1) and o the top-middle one (d1 e1 f1); x is sent to field 2
    position = "xxxooo.../" + "o..x..x.o/" + "/".join([EMPTY_ROW] * 7) + " x 2"
    reply = client.get("/api/ultimate/board", params={"position": position}).json()
    assert reply["owners"] == {"0": "x", "1": "o"} and reply["active"] == ["2"]


def test_solve_proves_a_late_position_as_plain_minimax_does(client: TestClient, tictactoe_db: Path) -> None:
    before = hashlib.sha256(tictactoe_db.read_bytes()).hexdigest()
    reply = client.get("/api/ultimate/solve", params={"position": LATE, "time_limit": 20})
    assert reply.status_code == 200, reply.text
    probe = reply.json()
    ProbeReply.model_validate(probe)
    game = games.get("ultimate")
    assert (probe["outcome"], probe["distance"]) == _negamax("ultimate", game.parse_position(LATE))
    for move in probe["moves"]:
        child = _negamax("ultimate", game.parse_position(move["position"]))
        assert (move["outcome"], move["distance"]) == (_FLIP[child[0]], child[1] + 1)
    assert len(probe["moves"]) == 4
    # proved once, known afterwards without a search; the served file is unchanged
    again = client.get("/api/ultimate/solve", params={"position": LATE, "time_limit": 0})
    assert again.status_code == 200 and again.json() == probe
    assert hashlib.sha256(tictactoe_db.read_bytes()).hexdigest() == before


def test_an_unproved_position_is_a_clear_503(client: TestClient) -> None:
    reply = client.get("/api/ultimate-classic/solve", params={"time_limit": 0.3})
    assert reply.status_code == 503
    body = ErrorReply.model_validate(reply.json())
    assert body.error == "not_proved" and "not proved within 0.3 s" in body.detail
    assert client.get("/api/ultimate-classic/solve", params={"time_limit": 0}).json()["error"] == "not_proved"


@pytest.mark.parametrize("limit", ["-1", "soon"])
def test_solve_refuses_a_bad_time_limit(client: TestClient, limit: str) -> None:
    reply = client.get("/api/ultimate/solve", params={"time_limit": limit})
    assert reply.status_code == 400
    assert reply.json()["error"] == "bad_request" and "time_limit" in reply.json()["detail"]


def test_solve_answers_from_the_database_first(tmp_path: Path) -> None:
    db = tmp_path / "tablebase.db"
    with tablebase.open(db) as tb:
        report = tb.solve("ultimate", LATE)
    assert report.proved
    with TestClient(create_app(db)) as fresh:
        reply = fresh.get("/api/ultimate/solve", params={"position": LATE, "time_limit": 0})
        assert reply.status_code == 200
        assert (reply.json()["outcome"], reply.json()["distance"]) == (report.outcome, report.distance)
        assert reply.json()["stored"] is True and reply.headers["Tablebase-Answer"] == "stored"
        listed = {v["variant"]: v for v in fresh.get("/api/variants").json()}
        assert listed["ultimate"]["states"] > 0 and listed["ultimate"]["complete"] is False


def test_one_search_at_a_time_and_the_time_limit_is_capped(tictactoe_db: Path) -> None:
    started, release = threading.Event(), threading.Event()
    limits: list[float] = []

    def slow(game: games.Game, state: int, seconds: float) -> tuple[bool, dict[int, tuple[str, int | None]]]:
        limits.append(seconds)
        started.set()
        release.wait(10)
        return False, {}

    game = games.get("ultimate")
    with tablebase.open(tictactoe_db) as tb:
        analysis = Analysis(tb, max_seconds=30, prover=slow)
        assert analysis.limit(100) == 30 and analysis.limit(2.5) == 2.5
        errors: list[Exception] = []

        def first() -> None:
            try:
                analysis.solve(game, game.initial_state(), analysis.limit(100))
            except NotProvedError as exc:
                errors.append(exc)

        worker = threading.Thread(target=first)
        worker.start()
        assert started.wait(10)
        with pytest.raises(BusyError, match="another position is being solved"):
            analysis.solve(game, game.initial_state(), 1)
        release.set()
        worker.join(10)
    assert limits == [30] and len(errors) == 1 and "not proved within 30 s" in str(errors[0])


def test_memory_is_emptied_when_full(tictactoe_db: Path) -> None:
    game = games.get("ultimate")
    late = game.parse_position(LATE)
    with tablebase.open(tictactoe_db) as tb:
        # room for the start and its children, which is what a search that proves them keeps
        analysis = Analysis(tb, max_positions=game.move_count(late) + 1)
        probe = analysis.solve(game, late, 20)
        assert analysis.known(game, late) == probe
        child = game.parse_position(probe.moves[0].position)
        analysis.solve(game, child, 20)
        # the second search's positions did not fit beside the first one's, which were dropped
        assert analysis.known(game, late) is None
        assert analysis.known(game, child) is not None


def test_connect4_solve_proves_then_the_probe_answers(client: TestClient) -> None:
    pytest.importorskip("numba")
    import random

    from tablebase.games.connect4.score import score_from_outcome
    from test_connect4 import columns_of
    from test_connect4_jit import late_position, pons_score

    position = late_position(random.Random(21), 28)
    assert client.get("/api/connect4", params={"position": position}).json()["error"] == "not_solved"
    reply = client.get("/api/connect4/solve", params={"position": position, "time_limit": 20})
    assert reply.status_code == 200, reply.text
    solved = ProbeReply.model_validate(reply.json())
    columns = columns_of(position)
    assert score_from_outcome(solved.outcome or "", solved.distance or 0, 28, 7, 6) == pons_score(columns, 6)
    assert len(solved.moves) == sum(len(c) < 6 for c in columns)
    for move in reply.json()["moves"]:
        c = int(move["move"]) - 1
        child = columns[:c] + (columns[c] + "x",) + columns[c + 1 :]  # 28 discs: x to move
        assert score_from_outcome(move["outcome"], move["distance"], 28, 7, 6) == -pons_score(child, 6)
    probe = client.get("/api/connect4", params={"position": position})
    assert reply.json()["stored"] is False and reply.headers["Tablebase-Answer"] == "proved"
    assert probe.status_code == 200 and {**probe.json(), "stored": False, "proved": True} == reply.json()


def test_a_partial_answer_gives_the_moves_proved_so_far(tictactoe_db: Path) -> None:
    game = games.get("ultimate")
    late = game.parse_position(LATE)
    children = game.children(late)
    # the search proves two of the four moves' positions, not the position itself
    halves = {game.canonical(child)[0]: _negamax("ultimate", child) for _, child in children[:2]}

    def half(game: games.Game, state: int, seconds: float) -> tuple[bool, dict[int, tuple[str, int | None]]]:
        return False, dict(halves)

    with tablebase.open(tictactoe_db) as tb:
        analysis = Analysis(tb, prover=half)
        with pytest.raises(NotProvedError):
            analysis.solve(game, late, 1)
        value, moves = analysis.so_far(game, late)
    assert value is None and len(moves) == 4
    proved = {game.format_move(move): _negamax("ultimate", child) for move, child in children[:2]}
    assert [m.move for m in moves[:2]] and all(m.outcome is not None for m in moves[:2])
    for m in moves[:2]:
        outcome, distance = proved[m.move]
        assert (m.outcome, m.distance) == (_FLIP[outcome], distance + 1)
    assert [(m.outcome, m.distance) for m in moves[2:]] == [(None, None), (None, None)]
    assert {m.move for m in moves[2:]} == {game.format_move(move) for move, _ in children[2:]}


def test_solve_with_partial_answers_what_is_proved_so_far(client: TestClient) -> None:
    game = games.get("ultimate")
    position = game.format_position(random_live_position(game, 17, Random(5)))
    params = {"position": position, "partial": "true"}
    # nothing searched yet: every value unknown, not an error, not cached
    reply = client.get("/api/ultimate/solve", params={**params, "time_limit": 0})
    assert reply.status_code == 200 and reply.headers["Tablebase-Answer"] == "partial"
    assert "no-store" in reply.headers["Cache-Control"]
    body = SolveReply.model_validate(reply.json())
    assert body.proved is False and body.outcome is None and body.stored is False
    assert body.moves and all(m.outcome is None for m in body.moves)
    # proved in full: the same answer as without partial
    full = client.get("/api/ultimate/solve", params={"position": position, "time_limit": 20})
    assert full.status_code == 200 and full.json()["proved"] is True
    again = client.get("/api/ultimate/solve", params={**params, "time_limit": 0})
    assert again.status_code == 200 and again.json() == full.json()
    outcome, distance = _negamax("ultimate", game.parse_position(position))
    assert (again.json()["outcome"], again.json()["distance"]) == (outcome, distance)
