"""Searches of the server in worker processes: busy refusals, cancellation, memory recycling, error codes."""

from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from serve_support import serving

pytest.importorskip("fastapi", reason="the serve extra is not installed: pip install -e '.[dev]'")

from fastapi.testclient import TestClient  # noqa: E402

import tablebase  # noqa: E402
from tablebase import games  # noqa: E402
from tablebase.serve import create_app  # noqa: E402
from tablebase.serve.workers import Solvers  # noqa: E402

#: x sent to field 5 with four moves left to choose from (the late position of tests/test_serve_solve.py).
LATE = ".xo.xxoo./o..oo.xoo/xxoo.oox./x.x.xox.x/xxooxo.x./ooo.oo.xo/.xxoo.x.x/x.ooxoxxx/oxoxoxxxo x 5"
#: The start of Ultimate with won fields closed: no search proves it within a test's patience.
HARD = "/api/ultimate-classic/solve?time_limit=30"


def wait_for(condition: object, seconds: float) -> float:
    """Seconds until ``condition()`` held (fails after ``seconds``)."""
    began = time.monotonic()
    while not condition():  # type: ignore[operator]
        assert time.monotonic() - began < seconds, "condition not reached in time"
        time.sleep(0.01)
    return time.monotonic() - began


def open_request(port: int, target: str) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port))
    sock.sendall(f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    return sock


def test_a_search_runs_in_a_worker_and_the_answer_is_kept(tictactoe_db: Path) -> None:
    app = create_app(tictactoe_db, solvers=1)
    with TestClient(app) as client:
        reply = client.get("/api/ultimate/solve", params={"position": LATE, "time_limit": 20})
        assert reply.status_code == 200, reply.text
        pool: Solvers = app.state.solvers
        (worker,) = pool.workers()
        assert worker.process.pid != os.getpid() and worker.process.is_alive() and worker.jobs == 1
        # a plain probe now answers from what the worker proved, without another search
        probe = client.get("/api/ultimate", params={"position": LATE})
        assert probe.status_code == 200 and {**probe.json(), "stored": False, "proved": True} == reply.json()
        assert worker.jobs == 1


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "sched_getaffinity"), reason="Linux scheduling calls")
def test_workers_give_way_to_the_server(tictactoe_db: Path) -> None:
    app = create_app(tictactoe_db, solvers=1)
    with TestClient(app) as client:
        assert client.get("/api/ultimate/solve", params={"position": LATE, "time_limit": 20}).status_code == 200
        (worker,) = app.state.solvers.workers()
        pid = worker.process.pid
        cores = sorted(os.sched_getaffinity(0))
        if hasattr(os, "SCHED_IDLE"):
            # idle time only, on every core: the server takes a core back the moment it wakes
            assert os.sched_getscheduler(pid) == os.SCHED_IDLE and os.sched_getscheduler(0) != os.SCHED_IDLE
            assert sorted(os.sched_getaffinity(pid)) == cores
        else:
            assert os.getpriority(os.PRIO_PROCESS, pid) == 19
            assert sorted(os.sched_getaffinity(pid)) == (cores[1:] if len(cores) >= 2 else cores)


def test_busy_is_refused_at_once_with_retry_after_and_a_closed_request_frees_its_worker(tictactoe_db: Path) -> None:
    app = create_app(tictactoe_db, solvers=1)
    pool: Solvers = app.state.solvers
    for port in serving(app):
        first = open_request(port, HARD)
        wait_for(lambda: len(pool.busy) == 1, 10)
        (worker,) = pool.busy
        client = TestClient(app)  # without its lifespan, which would stop the pool on leaving
        began = time.monotonic()
        busy = client.get("/api/ultimate/solve", params={"position": LATE, "time_limit": 20})
        assert time.monotonic() - began < 1
        assert busy.status_code == 503 and busy.json()["error"] == "busy"
        assert 1 <= int(busy.headers["Retry-After"]) <= 40
        # time_limit=0 searches nothing, so a busy pool answers it as an idle one would: not_proved at once
        began = time.monotonic()
        lookup = client.get("/api/ultimate/solve", params={"position": LATE, "time_limit": 0})
        # answered while the 30 s search still holds the worker: it did not wait for it
        assert pool.busy and time.monotonic() - began < 15
        assert lookup.status_code == 503 and lookup.json()["error"] == "not_proved", lookup.text
        assert "Retry-After" not in lookup.headers
        # the client goes away: its search is stopped and the worker killed within a second
        first.close()
        assert wait_for(lambda: not worker.process.is_alive() and not pool.busy, 1.0) < 1.0
        assert pool.recycled == 1


def test_a_lookup_without_search_while_every_worker_is_busy_answers_from_what_is_proved(tictactoe_db: Path) -> None:
    app = create_app(tictactoe_db, solvers=1)
    pool: Solvers = app.state.solvers
    for port in serving(app):
        client = TestClient(app)  # without its lifespan, which would stop the pool on leaving
        assert client.get("/api/ultimate/solve", params={"position": LATE, "time_limit": 20}).status_code == 200
        first = open_request(port, HARD)
        wait_for(lambda: len(pool.busy) == 1, 10)
        began = time.monotonic()
        unproved = client.get("/api/ultimate-classic/solve", params={"time_limit": 0})
        proved = client.get("/api/ultimate/solve", params={"position": LATE, "time_limit": 0})
        assert len(pool.busy) == 1 and time.monotonic() - began < 15
        assert unproved.status_code == 503 and unproved.json()["error"] == "not_proved"
        assert proved.status_code == 200 and proved.json()["position"]
        first.close()


def test_positions_a_worker_proved_on_the_way_are_answered_by_the_server_itself(tictactoe_db: Path) -> None:
    app = create_app(tictactoe_db, solvers=1)
    pool: Solvers = app.state.solvers
    game = games.get("ultimate")
    for port in serving(app):
        client = TestClient(app)  # without its lifespan, which would stop the pool on leaving
        solved = client.get("/api/ultimate/solve", params={"position": LATE, "time_limit": 20}).json()
        first = open_request(port, HARD)
        wait_for(lambda: len(pool.busy) == 1, 10)
        answered = 0
        for move in solved["moves"]:
            if game.outcome(game.parse_position(move["position"])) is not None:
                continue
            plain = client.get("/api/ultimate", params={"position": move["position"]})
            lookup = client.get("/api/ultimate/solve", params={"position": move["position"], "time_limit": 0})
            assert (plain.status_code == 200) == (lookup.status_code == 200)
            if plain.status_code == 200:
                answered += 1
                flipped = {"win": "loss", "loss": "win", "draw": "draw"}[move["outcome"]]
                assert (plain.json()["outcome"], plain.json()["distance"]) == (flipped, move["distance"] - 1)
                assert lookup.json() == {**plain.json(), "stored": False, "proved": True}
            else:
                assert plain.json()["error"] == "not_solved" and lookup.json()["error"] == "not_proved"
        assert answered >= 1
        first.close()


def test_the_schema_documents_every_error_status(tictactoe_db: Path) -> None:
    with TestClient(create_app(tictactoe_db, solvers=1)) as client:
        paths = client.get("/openapi.json").json()["paths"]
    for path in ("/api/{variant}", "/api/{variant}/solve", "/api/{variant}/line"):
        assert {"400", "404", "414"} <= set(paths[path]["get"]["responses"]), path
    assert "503" in paths["/api/{variant}/solve"]["get"]["responses"]


def test_a_worker_past_its_memory_cap_is_replaced(tictactoe_db: Path) -> None:
    app = create_app(tictactoe_db, solvers=1, memory_cap=1 << 20)
    with TestClient(app) as client:
        reply = client.get("/api/ultimate/solve", params={"position": LATE, "time_limit": 20})
        assert reply.status_code == 200, reply.text
        pool: Solvers = app.state.solvers
        assert pool.recycled == 1 and pool.workers() == []


def test_error_codes_say_what_happened(tictactoe_db: Path) -> None:
    with TestClient(create_app(tictactoe_db, solvers=1)) as client:
        unsolved = client.get("/api/ultimate", params={"position": LATE})
        assert unsolved.status_code == 404 and unsolved.json()["error"] == "not_solved"
        assert "/solve" in unsolved.json()["detail"]
        before = client.get("/api/ultimate/predecessors", params={"position": LATE})
        assert before.status_code == 404 and before.json()["error"] == "not_enumerated"
        assert "ultimate" in before.json()["detail"]
        for limit in ("nan", "inf", "-inf"):
            bad = client.get("/api/ultimate/solve", params={"position": LATE, "time_limit": limit})
            assert bad.status_code == 400 and "time_limit" in bad.json()["detail"], (limit, bad.text)


def test_an_address_over_64_kb_gets_a_json_error(tictactoe_db: Path) -> None:
    for port in serving(create_app(tictactoe_db, solvers=1)):
        with open_request(port, "/api/tictactoe?position=" + "x" * 70_000) as sock:
            sock.settimeout(10)
            reply = b""
            while b"}" not in reply:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                reply += chunk
        head, _, body = reply.partition(b"\r\n\r\n")
        # the application's 414, or the HTTP parser's 400 when the address is too long for it
        assert head.split()[1] in (b"414", b"400") and b"application/json" in head, head
        assert json.loads(body)["error"] in ("uri_too_long", "bad_request")


@pytest.mark.slow
def test_http_solve_agrees_with_the_library_and_value_only_positions_are_probed_in_a_worker(
    tictactoe_db: Path, tmp_path: Path
) -> None:
    game = games.get("ultimate")
    late = game.parse_position(LATE)
    positions = [LATE] + [game.format_position(c) for _, c in game.children(late) if game.outcome(c) is None][:2]
    library = tmp_path / "library.tictactoe_db"
    expected = {}
    with tablebase.open(library) as tb:
        for position in positions:
            assert tb.solve("ultimate", position).proved
            expected[position] = tb.variant("ultimate").probe(position).to_dict()
    app = create_app(tictactoe_db, solvers=1)
    with TestClient(app) as client:
        for position in positions:
            reply = client.get("/api/ultimate/solve", params={"position": position, "time_limit": 20})
            assert reply.status_code == 200, reply.text
            assert shape(reply.json()) == shape(expected[position])
    # a position the library stored with its value only: its moves are proved by a worker
    with tablebase.open(library) as tb:
        table = tb.variant("ultimate")
        value_only = next(
            game.format_position(g)
            for _, c in game.children(late)
            for _, g in game.children(c)
            if game.outcome(g) is None
            and (found := table.get_probe(game.format_position(g), search=False)) is not None
            and not found.moves
        )
    app = create_app(library, solvers=1)
    with TestClient(app) as client:
        reply = client.get("/api/ultimate", params={"position": value_only})
        assert reply.status_code == 200, reply.text
        assert reply.json()["moves"] and all(m["outcome"] is not None for m in reply.json()["moves"])
        (worker,) = app.state.solvers.workers()
        assert worker.jobs == 1


def shape(probe: dict[str, object]) -> tuple[object, ...]:
    """A probe's value and its moves' values, whatever the order of equal moves."""
    moves = probe["moves"]
    assert isinstance(moves, list)
    return probe["outcome"], probe["distance"], sorted((m["move"], m["outcome"], m["distance"]) for m in moves)


def test_a_writing_server_stores_what_its_workers_prove(tictactoe_db: Path, tmp_path: Path) -> None:
    path = tmp_path / "written.tictactoe_db"
    path.write_bytes(tictactoe_db.read_bytes())
    app = create_app(path, solvers=1, write=True)
    with TestClient(app) as client:
        reply = client.get("/api/ultimate/solve", params={"position": LATE, "time_limit": 20})
        assert reply.status_code == 200, reply.text
    with tablebase.open(path) as tb:
        stored = tb.variant("ultimate").probe(LATE).to_dict()
    assert shape(stored) == shape(reply.json()) and reply.json()["stored"] is True


def test_a_child_proved_by_an_earlier_search_is_known_without_a_search(tictactoe_db: Path) -> None:
    app = create_app(tictactoe_db, solvers=1)
    with TestClient(app) as client:
        first = client.get("/api/ultimate/solve", params={"position": LATE, "time_limit": 20}).json()
        # the best line of the first search proved the best child with all its moves, in the worker
        child = first["moves"][0]["position"]
        again = client.get("/api/ultimate/solve", params={"position": child, "time_limit": 0})
        assert again.status_code == 200, again.text
        assert (again.json()["outcome"], again.json()["distance"]) == (
            {"win": "loss", "loss": "win", "draw": "draw"}[first["moves"][0]["outcome"]],
            first["moves"][0]["distance"] - 1,
        )


# -- compiled tables kept between searches ----------------------------------------

#: A 7x6 position whose search takes about 700,000 nodes on a fresh table (10 discs from a random game).
OPENING = "......./......./......./.x...../.x...xo/oo.oxox"


@pytest.mark.slow
def test_searches_of_a_game_go_on_from_one_table_that_starts_from_the_kept_one(tmp_path: Path) -> None:
    pytest.importorskip("numba")
    from tablebase.serve.analysis import Searches

    game = games.get("connect4")
    state = game.parse_position(OPENING)
    fresh = Searches(memory=1 << 24)
    proved, positions = fresh(game, state, 60)
    assert proved and game.canonical(state)[0] in positions
    table = fresh.table
    assert table.table.nbytes <= (1 << 24) + 16  # the memory given, not the 1 GiB of an opening search
    work = table.nodes
    assert work > 10_000
    # the next position of the game goes on with the same table: most of its proof was found on the way
    child = game.children(state)[1][1]
    assert fresh(game, child, 60)[0] and fresh.table is table
    alone = Searches(memory=1 << 24)
    assert alone(game, child, 60)[0] and table.nodes - work < alone.table.nodes / 10
    # a worker that starts from the table a tablebase kept beside its file proves it at once
    kept = tmp_path / "tablebase.db.connect4.search.npy"
    assert table.save(kept) > 0
    again = Searches(memory=1 << 24, kept=lambda name: kept if name == "connect4" else None)
    assert again(game, state, 60)[0] and again.table.nodes < work / 10
    # another game drops the table and makes its own
    other = games.get("connect4-5-4")
    assert again(other, other.parse_position("...../.o.../.ox.x/.ooxx"), 60)[0]
    assert again.game == "connect4-5-4" and again.table is not table


@pytest.mark.slow
def test_a_prepared_pool_keeps_a_ready_worker_that_stays_under_its_memory_cap(tictactoe_db: Path) -> None:
    pytest.importorskip("numba")
    import asyncio

    pool = Solvers(tictactoe_db, size=1, idle_seconds=0.05)
    try:
        pool.prepare()
        (worker,) = pool.workers()
        assert worker.ready and worker.jobs == 0 and worker.memory < pool.memory_cap
        time.sleep(0.1)
        assert pool.release_idle() == 0 and worker.process.is_alive()
        game = games.get("connect4")
        probe = asyncio.run(pool.solve(game, game.parse_position(OPENING), 30))
        assert probe.outcome is not None and len(probe.moves) == 7
        assert pool.workers() == [worker] and worker.jobs == 1 and pool.recycled == 0
        assert worker.memory < pool.memory_cap
    finally:
        pool.close()
