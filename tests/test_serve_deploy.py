"""The server as deployed: HTTP caching (ETag, 304, Cache-Control), /health, several HTTP
processes sharing one pool of search workers, a clean stop on SIGTERM, idle workers released."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from serve_support import build_database

pytest.importorskip("fastapi", reason="the serve extra is not installed: pip install -e '.[dev]'")
psutil = pytest.importorskip("psutil")

from fastapi.testclient import TestClient  # noqa: E402

import tablebase  # noqa: E402
from tablebase.serve import create_app  # noqa: E402
from tablebase.serve.workers import Solvers  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
#: x sent to field 5 with four moves left to choose from (the late position of tests/test_serve_solve.py).
LATE = ".xo.xxoo./o..oo.xoo/xxoo.oox./x.x.xox.x/xxooxo.x./ooo.oo.xo/.xxoo.x.x/x.ooxoxxx/oxoxoxxxo x 5"
#: The start of Ultimate with won fields closed: no search proves it within a test's patience.
HARD = "/api/ultimate-classic/solve?time_limit=30"
POSITION = "x.o/.x./..."


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_database(tmp_path_factory.mktemp("deploy") / "tablebase.db", ["tictactoe"])


@pytest.fixture(scope="module")
def client(db: Path) -> Iterator[TestClient]:
    with TestClient(create_app(db, solvers=0, max_age=600)) as test_client:
        yield test_client


# -- caching -------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/api/tictactoe", "/api/tictactoe/line", "/api/tictactoe/predecessors"])
def test_answers_about_a_built_variant_carry_an_etag_and_304_when_the_client_has_it(
    client: TestClient, path: str
) -> None:
    first = client.get(path, params={"position": POSITION})
    assert first.status_code == 200
    tag = first.headers["ETag"]
    assert tag.startswith('"') and tag.endswith('"') and len(tag) > 10
    assert first.headers["Cache-Control"] == "public, max-age=600, s-maxage=600"
    again = client.get(path, params={"position": POSITION}, headers={"If-None-Match": tag})
    assert again.status_code == 304 and again.content == b""
    assert again.headers["ETag"] == tag and again.headers["Cache-Control"] == first.headers["Cache-Control"]
    # a list of tags, weak comparison, and *
    listed = client.get(path, params={"position": POSITION}, headers={"If-None-Match": f'"other", W/{tag}'})
    assert listed.status_code == 304
    assert client.get(path, params={"position": POSITION}, headers={"If-None-Match": "*"}).status_code == 304
    # another tag, or another position: the full answer, which is the library's
    stale = client.get(path, params={"position": POSITION}, headers={"If-None-Match": '"other"'})
    assert stale.status_code == 200 and stale.json() == first.json()
    other = client.get(path, params={"position": "x../.../..."})
    assert other.status_code == 200 and other.headers["ETag"] != tag
    # HEAD answers the same headers
    head = client.head(path, params={"position": POSITION})
    assert head.status_code == 200 and head.headers["ETag"] == tag and head.content == b""


def test_the_probe_body_is_the_library_probe(client: TestClient, db: Path) -> None:
    reply = client.get("/api/tictactoe", params={"position": POSITION})
    with tablebase.open(db) as tb:
        assert reply.json() == tb.variant("tictactoe").probe(POSITION).to_dict()


def test_probes_answered_without_the_framework_are_the_routes_answers(client: TestClient, db: Path) -> None:
    # a request with an Origin goes through the framework's route (and CORS); one without, the fast path
    from tablebase import games

    game = games.get("tictactoe")
    positions = [POSITION, "x../.../...", "xx./oo./...", "xo./ox./..x"]
    positions += [game.format_position(child) for _, child in game.children(game.initial_state())]
    with tablebase.open(db) as tb:
        for position in positions:
            fast = client.get("/api/tictactoe", params={"position": position})
            routed = client.get("/api/tictactoe", params={"position": position}, headers={"Origin": "https://example.org"})
            assert routed.headers["Access-Control-Allow-Origin"] == "*"
            assert "Access-Control-Allow-Origin" not in fast.headers
            assert fast.status_code == routed.status_code == 200
            assert fast.content == routed.content
            assert fast.json() == tb.variant("tictactoe").probe(position).to_dict()
            for name in ("ETag", "Cache-Control", "Content-Type", "Content-Length", "Vary"):
                assert fast.headers[name] == routed.headers[name], name
    # the start, 304 and HEAD the same way
    tag = client.get("/api/tictactoe").headers["ETag"]
    assert client.get("/api/tictactoe", headers={"Origin": "https://example.org"}).headers["ETag"] == tag
    for extra in ({}, {"Origin": "https://example.org"}):
        cached = client.get("/api/tictactoe", headers={"If-None-Match": tag, **extra})
        assert cached.status_code == 304 and cached.content == b"" and cached.headers["ETag"] == tag
        head = client.head("/api/tictactoe", params={"position": POSITION}, headers=extra)
        assert head.status_code == 200 and head.content == b""
        full = client.get("/api/tictactoe", params={"position": POSITION})
        assert int(head.headers["Content-Length"]) == len(full.content)
    # errors, other parameters and other paths are the application's
    assert client.get("/api/tictactoe", params={"position": ""}).json()["error"] == "malformed_position"
    assert client.get("/api/tictactoe", params={"position": "xxx/xxx/xxx"}).status_code in (400, 404)
    assert client.get("/api/nosuch").json()["error"] == "unknown_variant"
    assert client.get("/api/mnk-3-3-3").json()["error"] == "variant_not_built"
    assert client.get("/api/tictactoe?position=x.o/.x./...&extra=1").status_code == 200
    assert client.get("/api/ultimate").json()["error"] == "not_solved"


def test_the_variant_list_is_revalidated_each_time(tmp_path: Path) -> None:
    path = build_database(tmp_path / "tablebase.db", ["tictactoe"])
    with TestClient(create_app(path, solvers=0)) as client:
        listed = client.get("/api/variants")
        assert listed.headers["Cache-Control"] == "no-cache"
        tag = listed.headers["ETag"]
        assert client.get("/api/variants", headers={"If-None-Match": tag}).status_code == 304
        with tablebase.open(path) as tb:
            tb.build("mnk-2-2-2")
        grown = client.get("/api/variants", headers={"If-None-Match": tag})
        assert grown.status_code == 200 and "mnk-2-2-2" in {v["variant"] for v in grown.json()}


def test_errors_are_not_stored(client: TestClient) -> None:
    for path, status in [("/api/tictactoe?position=zz", 400), ("/api/nosuch", 404), ("/nowhere", 404)]:
        reply = client.get(path)
        assert reply.status_code == status and reply.headers["Cache-Control"] == "no-store"
        assert "ETag" not in reply.headers


def test_a_rebuild_changes_the_etag(tmp_path: Path) -> None:
    path = build_database(tmp_path / "tablebase.db", ["tictactoe"])
    with TestClient(create_app(path, solvers=0)) as client:
        before = client.get("/api/tictactoe", params={"position": POSITION})
        tag = before.headers["ETag"]
        with tablebase.open(path) as tb:
            tb.build("tictactoe", storage="states")
        after = client.get("/api/tictactoe", params={"position": POSITION}, headers={"If-None-Match": tag})
        assert after.status_code == 200 and after.headers["ETag"] != tag
        assert after.json() == before.json()  # the same values, from a new build
        again = client.get("/api/tictactoe", params={"position": POSITION}, headers={"If-None-Match": after.headers["ETag"]})
        assert again.status_code == 304


def test_solve_answers_say_whether_stored_and_are_cached_only_when_proved(tmp_path: Path) -> None:
    path = build_database(tmp_path / "tablebase.db", ["tictactoe"])
    with TestClient(create_app(path, solvers=0)) as client:
        unproved = client.get("/api/ultimate/solve", params={"position": LATE, "time_limit": 0})
        assert unproved.status_code == 503 and unproved.headers["Cache-Control"] == "no-store"
        proved = client.get("/api/ultimate/solve", params={"position": LATE, "time_limit": 20})
        assert proved.status_code == 200 and proved.json()["stored"] is False
        assert proved.headers["Tablebase-Answer"] == "proved" and proved.headers["Cache-Control"].startswith("public")
        tag = proved.headers["ETag"]
        cached = client.get(
            "/api/ultimate/solve", params={"position": LATE, "time_limit": 20}, headers={"If-None-Match": tag}
        )
        assert cached.status_code == 304
    with tablebase.open(path) as tb:
        assert tb.solve("ultimate", LATE).proved
    with TestClient(create_app(path, solvers=0)) as client:
        stored = client.get("/api/ultimate/solve", params={"position": LATE, "time_limit": 0})
        assert stored.status_code == 200 and stored.json()["stored"] is True
        assert stored.headers["Tablebase-Answer"] == "stored" and stored.headers["ETag"] != tag
        assert {**stored.json(), "stored": False, "proved": True} == proved.json()


def test_each_http_process_listens_on_its_own_socket_of_the_port() -> None:
    from tablebase.serve.running import listening_sockets

    sockets = listening_sockets("127.0.0.1", 0, 3)
    try:
        ports = {sock.getsockname()[1] for sock in sockets}
        assert len(ports) == 1 and 0 not in ports
        if sys.platform.startswith("linux"):
            assert len(sockets) == 3
            assert all(sock.getsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT) for sock in sockets)
        # a second server cannot join the port, though its sockets would be allowed to share it
        with pytest.raises(OSError):
            listening_sockets("127.0.0.1", sockets[0].getsockname()[1], 2)
    finally:
        for sock in sockets:
            sock.close()


def test_serve_says_when_the_port_is_taken(db: Path) -> None:
    from typer.testing import CliRunner

    from cli.main import app as cli_app

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        for workers in ("1", "2"):
            result = CliRunner().invoke(cli_app, ["serve", "--db", str(db), "--port", port, "--workers", workers])
            assert result.exit_code == 1, result.output
            assert f"error: cannot listen on 127.0.0.1:{port}:" in result.output and "Traceback" not in result.output


# -- the app factory -----------------------------------------------------------


def test_the_app_factory_reads_its_settings_from_the_environment(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tablebase.serve import from_environment

    monkeypatch.setenv("TABLEBASE_DB", str(db))
    monkeypatch.setenv("TABLEBASE_SOLVERS", "0")
    monkeypatch.setenv("TABLEBASE_MAX_AGE", "60")
    app = from_environment()
    assert app.state.solvers is None
    with TestClient(app) as client:
        reply = client.get("/api/tictactoe", params={"position": POSITION})
        assert reply.status_code == 200 and reply.headers["Cache-Control"] == "public, max-age=60, s-maxage=60"
    monkeypatch.setenv("TABLEBASE_MAX_AGE", "soon")
    with pytest.raises(ValueError, match="TABLEBASE_MAX_AGE='soon' is not a whole number"):
        from_environment()


# -- health --------------------------------------------------------------------


def test_health_is_200_while_the_file_reads_and_503_when_it_does_not(tmp_path: Path) -> None:
    path = build_database(tmp_path / "tablebase.db", ["tictactoe"])
    with TestClient(create_app(path, solvers=0)) as client:
        healthy = client.get("/health")
        assert healthy.status_code == 200 and healthy.headers["Cache-Control"] == "no-store"
        assert healthy.json() == {"status": "ok", "file": "tablebase.db", "variants": 1, "detail": None}
        with open(path, "r+b") as damaged:
            damaged.write(b"not a database at all" * 100)
        sick = client.get("/health")
        assert sick.status_code == 503 and sick.json()["status"] == "error"
        assert "tablebase.db" in sick.json()["detail"] and str(tmp_path) not in sick.json()["detail"]


# -- idle search workers -------------------------------------------------------


def test_an_idle_search_worker_exits_and_the_next_search_starts_another(db: Path) -> None:
    app = create_app(db, solvers=1)
    pool: Solvers = app.state.solvers
    pool.idle_seconds = 0.5
    with TestClient(app) as client:
        assert client.get("/api/ultimate/solve", params={"position": LATE, "time_limit": 20}).status_code == 200
        (worker,) = pool.workers()
        deadline = time.monotonic() + 10
        while (pool.workers() or worker.process.is_alive()) and time.monotonic() < deadline:
            client.get("/health")  # the test client's event loop runs the timer between requests
            time.sleep(0.1)
        assert not pool.workers() and not worker.process.is_alive() and pool.released == 1 and pool.recycled == 0
        # what it proved is still answered, by the server itself
        assert client.get("/api/ultimate", params={"position": LATE}).status_code == 200


# -- several HTTP processes ----------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def fetch(port: int, target: str, timeout: float = 60) -> tuple[int, dict[str, object]]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{target}", timeout=timeout) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def open_request(port: int, target: str) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port))
    sock.sendall(f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    return sock


def listening(server: psutil.Process, port: int) -> set[int]:
    """The processes under ``server`` that listen on ``port``: its HTTP processes."""
    found = set()
    for child in server.children():
        try:
            if any(c.laddr.port == port and c.status == "LISTEN" for c in child.net_connections()):
                found.add(child.pid)
        except psutil.Error:
            pass
    return found


def wait_for(condition: object, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, "condition not reached in time"
        time.sleep(0.05)


def start(db: Path, workers: int) -> tuple[subprocess.Popen[bytes], int]:
    """``tablebase serve`` with ``workers`` HTTP processes and one solver; returns once healthy."""
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = ["serve", "--db", str(db), "--port", str(port), "--workers", str(workers), "--solvers", "1"]
    process = subprocess.Popen(
        [sys.executable, "-m", "cli.main", *command],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 600  # it answers once its search worker is ready: compiled on a first run
    while True:
        assert process.poll() is None, process.stderr.read().decode() if process.stderr else ""
        try:
            if fetch(port, "/health", timeout=2)[0] == 200:
                break
        except OSError:
            pass
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.2)
    return process, port


@pytest.fixture
def served(db: Path) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    process, port = start(db, 2)
    yield process, port
    if process.poll() is None:
        process.kill()
        process.wait(10)


@pytest.mark.slow
def test_workers_share_one_pool_of_solvers_and_sigterm_stops_cleanly(
    served: tuple[subprocess.Popen[bytes], int],
) -> None:
    process, port = served
    server = psutil.Process(process.pid)
    http = [psutil.Process(pid) for pid in listening(server, port)]
    assert len(http) == 2  # two HTTP processes
    # each has its own socket on the port, so the kernel spreads connections between them
    clients = [socket.create_connection(("127.0.0.1", port)) for _ in range(32)]
    for sock in clients:
        sock.sendall(b"GET /api/tictactoe HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert sock.recv(65536).startswith(b"HTTP/1.1 200")
    held = [sum(c.laddr.port == port and c.status == "ESTABLISHED" for c in p.net_connections()) for p in http]
    assert sum(held) == 32 and min(held) > 0, held
    for sock in clients:
        sock.close()
    # a search from one connection holds the one solver: every other search is refused, whichever
    # HTTP process takes it
    first = open_request(port, HARD)
    time.sleep(1.0)  # the search reaches the worker
    other = "/api/ultimate/solve?time_limit=1"  # the start of ultimate: not proved in a second either
    assert fetch(port, other)[1]["error"] == "busy"
    for _ in range(4):
        status, body = fetch(port, f"/api/ultimate/solve?time_limit=20&position={LATE_Q}")
        assert status == 503 and body["error"] == "busy"
    # its client goes away: the search is stopped, and the next search is proved
    first.close()
    wait_for(lambda: fetch(port, f"/api/ultimate/solve?time_limit=20&position={LATE_Q}")[0] == 200, 30)
    status, body = fetch(port, f"/api/ultimate?position={LATE_Q}")
    assert status == 200 and body["position"] == LATE  # answered by either HTTP process, from the hub
    # an HTTP process that dies is replaced
    http[0].kill()
    wait_for(lambda: len(listening(server, port) - {http[0].pid}) == 2, 30)
    wait_for(lambda: all(fetch(port, "/health")[0] == 200 for _ in range(8)), 30)
    # SIGTERM with a search in flight: the search is stopped and answered, every process exits, code 0
    pending = open_request(port, HARD)
    time.sleep(1.0)
    family = [server, *server.children(recursive=True)]
    process.send_signal(signal.SIGTERM)
    assert process.wait(30) == 0
    pending.settimeout(10)
    answer = pending.recv(65536).decode()
    assert answer.startswith("HTTP/1.1 503") and "stopping" in answer
    wait_for(lambda: not any(p.is_running() and p.status() != psutil.STATUS_ZOMBIE for p in family), 10)


@pytest.mark.slow
def test_one_http_process_stops_cleanly_on_sigterm_too(db: Path) -> None:
    process, port = start(db, 1)
    try:
        server = psutil.Process(process.pid)
        assert not listening(server, port)  # no supervisor: the server itself listens
        pending = open_request(port, HARD)
        time.sleep(1.0)  # the search reaches the worker
        family = [server, *server.children(recursive=True)]
        process.send_signal(signal.SIGTERM)
        assert process.wait(30) == 0
        pending.settimeout(10)
        assert pending.recv(65536).decode().startswith("HTTP/1.1 503")
        wait_for(lambda: not any(p.is_running() and p.status() != psutil.STATUS_ZOMBIE for p in family), 10)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)


LATE_Q = urllib.request.quote(LATE)
