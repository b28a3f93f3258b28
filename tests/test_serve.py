"""The HTTP JSON API (``tablebase serve``), through the framework's test client."""

from __future__ import annotations

import hashlib
import re
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the serve extra is not installed: pip install -e '.[serve,dev]'")

from fastapi.testclient import TestClient  # noqa: E402
from serve_support import BUILT, build_database, registered  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

import tablebase  # noqa: E402
from cli.main import app as cli_app  # noqa: E402
from tablebase.serve import create_app  # noqa: E402
from tablebase.serve.replies import (  # noqa: E402
    ErrorReply,
    LayoutReply,
    LineReply,
    PredecessorsReply,
    ProbeReply,
    VariantReply,
)

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with registered():
        yield build_database(tmp_path_factory.mktemp("serve") / "tablebase.db")


@pytest.fixture(scope="module")
def client(db: Path) -> Iterator[TestClient]:
    with TestClient(create_app(db)) as test_client:
        yield test_client


def get(client: TestClient, url: str, **params: str) -> dict:
    reply = client.get(url, params=params)
    assert reply.status_code == 200, reply.text
    return reply.json()


def test_variants_lists_every_built_variant_with_rules_and_start(client: TestClient) -> None:
    listed = get(client, "/api/variants")
    for entry in listed:
        VariantReply.model_validate(entry)
    # the variants too large to build are offered too, for /solve
    assert [v["variant"] for v in listed] == sorted([*BUILT, "connect4", "morris-9", "ultimate", "ultimate-classic"])
    ttt = next(v for v in listed if v["variant"] == "tictactoe")
    # tic-tac-toe: 765 positions up to symmetry (seed 003), a draw with the board full after 9 plies
    assert (ttt["states"], ttt["outcome"], ttt["distance"]) == (765, "draw", 9)
    assert ttt["start"] == ".../.../..."
    assert ttt["players"] == ["x", "o"]
    assert "3 in a row" in ttt["rules"]


@pytest.mark.parametrize(
    ("variant", "position"),
    [("tictactoe", None), ("tictactoe", "x.o/.x./..."), ("tictactoe", "xxx/oo./..."), ("toy-wheel", "x.o.. x")],
)
def test_probe_is_the_json_of_the_cli(client: TestClient, db: Path, variant: str, position: str | None) -> None:
    params = {} if position is None else {"position": position}
    api = get(client, f"/api/{variant}", **params)
    ProbeReply.model_validate(api)
    args = ["probe", variant, *([position] if position else []), "--json", "--db", str(db)]
    with registered():
        result = CliRunner().invoke(cli_app, args)
    assert result.exit_code == 0, result.output
    assert api == json.loads(result.stdout)


def test_probe_lists_moves_best_first(client: TestClient) -> None:
    # x to move can complete the top row at once; o threatens the middle row, so
    # every other x move loses at once (o plays c2).
    probe = get(client, "/api/tictactoe", position="xx./oo./...")
    assert (probe["to_move"], probe["outcome"], probe["distance"]) == ("x", "win", 1)
    first, *rest = probe["moves"]
    assert first == {"move": "c1", "position": "xxx/oo./...", "outcome": "win", "distance": 1}
    assert {m["move"] for m in rest} == {"c2", "a3", "b3", "c3"}
    assert all(m["outcome"] == "loss" and m["distance"] == 2 for m in rest if m["move"] != "c2")


def test_start_of_tictactoe_every_opening_draws(client: TestClient) -> None:
    probe = get(client, "/api/tictactoe")
    assert len(probe["moves"]) == 9
    assert {(m["outcome"], m["distance"]) for m in probe["moves"]} == {("draw", 9)}


def test_line_is_the_perfect_line_to_the_end(client: TestClient) -> None:
    line = get(client, "/api/tictactoe/line")
    LineReply.model_validate(line)
    assert line["outcome"] == "draw" and not line["repeats"]
    assert len(line["moves"]) == len(line["positions"]) == 9
    assert "." not in line["positions"][-1]
    before = ".../.../..."
    for move, after in zip(line["moves"], line["positions"]):
        best = get(client, "/api/tictactoe", position=before)["moves"][0]
        assert (best["move"], best["position"]) == (move, after)
        before = after


def test_predecessors(client: TestClient) -> None:
    reply = get(client, "/api/tictactoe/predecessors", position="x../.o./...")
    PredecessorsReply.model_validate(reply)
    assert reply["predecessors"] == [{"position": "x../.../...", "move": "b2"}]
    reply = get(client, "/api/tictactoe/predecessors", position="x../.../...")
    assert reply["predecessors"] == [{"position": ".../.../...", "move": "a1"}]
    assert get(client, "/api/tictactoe/predecessors")["predecessors"] == []


@pytest.mark.parametrize(
    ("url", "position", "status", "kind"),
    [
        ("/api/tictactoe", "xx", 400, "malformed_position"),
        ("/api/tictactoe", "xxx/ooo/...", 400, "malformed_position"),
        ("/api/tictactoe/line", "x", 400, "malformed_position"),
        ("/api/no-such-game", None, 404, "unknown_variant"),
        ("/api/mnk-3-3-2", None, 404, "variant_not_built"),
        ("/api/mnk-3-3-2/layout", None, 404, "variant_not_built"),
        # well-formed, but x cannot have placed a token while o never did
        ("/api/toy-wheel", "x.... x", 404, "unreachable_position"),
        ("/api/toy-wheel/predecessors", "x.... x", 404, "unreachable_position"),
        ("/api/toy-plain/layout", None, 501, "no_layout"),
    ],
)
def test_errors_are_json_with_a_status(
    client: TestClient, url: str, position: str | None, status: int, kind: str
) -> None:
    reply = client.get(url, params={} if position is None else {"position": position})
    assert reply.status_code == status
    body = ErrorReply.model_validate(reply.json())
    assert body.error == kind
    if position is not None:
        assert repr(position) in body.detail


def test_layout_of_a_grid_and_a_wheel(client: TestClient) -> None:
    grid = get(client, "/api/tictactoe/layout")
    LayoutReply.model_validate(grid)
    # a1 is the top-left cell, rows are numbered from the top (the notation of DESIGN.md)
    where = {c["name"]: (c["x"], c["y"]) for c in grid["cells"]}
    assert where["a1"] == (0, 0) and where["c1"] == (2, 0) and where["a3"] == (0, 2)
    assert len(where) == 9 and grid["shape"] == "square" and grid["edges"] == []
    wheel = get(client, "/api/toy-wheel/layout")
    LayoutReply.model_validate(wheel)
    assert wheel["shape"] == "circle" and len(wheel["edges"]) == 8


def test_layout_reply_has_the_keys_of_the_layout() -> None:
    from tablebase.games.layout import Layout

    assert list(LayoutReply.model_fields) == ["variant", *Layout.__annotations__]
    assert not LayoutReply.model_fields["regions"].is_required()


def test_openapi_describes_every_endpoint(client: TestClient) -> None:
    spec = get(client, "/openapi.json")
    assert set(spec["paths"]) == {
        "/api/variants",
        "/api/{variant}",
        "/api/{variant}/line",
        "/api/{variant}/predecessors",
        "/api/{variant}/layout",
        "/api/{variant}/board",
        "/api/{variant}/solve",
        "/health",
    }
    probe = spec["paths"]["/api/{variant}"]["get"]
    assert {"200", "400", "404"} <= set(probe["responses"])
    for path in spec["paths"].values():
        too_long = path["get"]["responses"]["414"]
        assert too_long["content"]["application/json"]["schema"]["$ref"].endswith("/ErrorReply")
    assert "ProbeReply" in spec["components"]["schemas"]


def test_web_board_and_static_files_are_served(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and "/static/board.js" in page.text and "/static/draw.js" in page.text
    for name, kind in (("board.js", "javascript"), ("draw.js", "javascript"), ("board.css", "text/css")):
        reply = client.get(f"/static/{name}")
        assert reply.status_code == 200 and kind in reply.headers["content-type"]


def test_other_origins_may_read(client: TestClient) -> None:
    reply = client.get("/api/tictactoe", headers={"Origin": "https://example.org"})
    assert reply.headers["access-control-allow-origin"] == "*"


def test_queries_do_not_write_the_database(db: Path) -> None:
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    with TestClient(create_app(db)) as fresh:
        for url in ("/api/variants", "/api/tictactoe", "/api/tictactoe/line", "/api/tictactoe/predecessors"):
            fresh.get(url)
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before


def test_a_rebuild_by_another_process_is_seen_without_restart(tmp_path: Path) -> None:
    db = tmp_path / "tablebase.db"
    with tablebase.open(db) as tb:
        tb.build("mnk-2-2-2")
        tb.build("mnk-3-3-2")  # so the rebuilt variant gets new ids
    with TestClient(create_app(db)) as fresh:
        before = get(fresh, "/api/mnk-2-2-2")
        rebuild = [sys.executable, "-m", "cli.main", "build", "mnk-2-2-2", "-q", "--db", str(db)]
        subprocess.run(rebuild, cwd=ROOT, check=True, capture_output=True)
        assert get(fresh, "/api/mnk-2-2-2") == before


def test_serve_command_reports_a_missing_database(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli_app, ["serve", "--db", str(tmp_path / "missing.db")])
    assert result.exit_code == 1
    assert "does not exist" in result.output and "Traceback" not in result.output


def test_serve_command_without_the_extra_says_what_to_install(monkeypatch: pytest.MonkeyPatch, db: Path) -> None:
    monkeypatch.setitem(sys.modules, "fastapi", None)
    monkeypatch.delitem(sys.modules, "tablebase.serve")
    monkeypatch.delitem(sys.modules, "tablebase.serve.app")
    result = CliRunner().invoke(cli_app, ["serve", "--db", str(db)])
    assert result.exit_code == 1
    assert "pip install 'tablebase[serve]'" in result.output and "fastapi" in result.output


def test_serve_command_has_help() -> None:
    result = CliRunner().invoke(cli_app, ["serve", "--help"])
    assert result.exit_code == 0 and "--port" in result.output


def test_probe_command_does_not_import_the_server() -> None:
    code = "import sys, cli.main; print([m for m in ('fastapi', 'uvicorn', 'tablebase.serve') if m in sys.modules])"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize(
    ("method", "url", "status", "kind"),
    [
        ("GET", "/no/such/page", 404, "not_found"),
        ("GET", "/api/tictactoe/nothing-here", 404, "not_found"),
        ("POST", "/api/tictactoe", 405, "method_not_allowed"),
        ("DELETE", "/api/variants", 405, "method_not_allowed"),
    ],
)
def test_framework_errors_have_the_documented_shape(
    client: TestClient, method: str, url: str, status: int, kind: str
) -> None:
    reply = client.request(method, url)
    assert reply.status_code == status
    assert set(reply.json()) == {"error", "detail"}
    assert ErrorReply.model_validate(reply.json()).error == kind
    assert url in reply.json()["detail"]


@pytest.mark.parametrize("url", ["/", "/api/variants", "/api/tictactoe", "/api/tictactoe/layout", "/static/board.js"])
def test_head_answers_like_get_without_a_body(client: TestClient, url: str) -> None:
    head, get_ = client.head(url), client.get(url)
    assert head.status_code == get_.status_code == 200
    assert head.content == b"" and head.headers["content-type"] == get_.headers["content-type"]


def test_errors_name_the_database_file_but_not_its_folder(client: TestClient, db: Path) -> None:
    detail = client.get("/api/mnk-3-3-2").json()["detail"]
    assert db.name in detail and str(db.parent) not in detail and str(db.resolve().parent) not in detail


def test_a_huge_position_is_quoted_only_in_part(client: TestClient) -> None:
    huge = "x" * 60_000
    for url in ("/api/tictactoe", "/api/tictactoe/line", "/api/tictactoe/board", "/api/ultimate/solve"):
        reply = client.get(url, params={"position": huge})
        assert reply.status_code == 400 and reply.json()["error"] == "malformed_position"
        detail = reply.json()["detail"]
        assert len(detail) < 300 and "x" * 120 in detail and "x" * 121 not in detail and "60,000 characters" in detail


@pytest.mark.parametrize("url", ["/api/tictactoe", "/api/tictactoe/line", "/api/tictactoe/predecessors", "/api/ultimate/board"])
def test_an_explicit_empty_position_is_malformed(client: TestClient, url: str) -> None:
    reply = client.get(url, params={"position": ""})
    assert reply.status_code == 400 and reply.json()["error"] == "malformed_position"
    assert "empty position" in reply.json()["detail"]


def test_every_documented_error_kind_exists() -> None:
    page = (ROOT / "docs" / "http.md").read_text()
    documented = set(re.findall(r"^\| \d{3} \| `([a-z_]+)` \|", page, flags=re.M))
    from tablebase.serve.errors import ERROR_STATUS, HTTP_ERRORS

    kinds = {error.kind for error, _ in ERROR_STATUS} | set(HTTP_ERRORS.values()) | {"bad_request", "no_layout", "uri_too_long"}
    # every kind an endpoint can answer is documented, and nothing else
    assert documented == kinds - {"illegal_move", "tablebase_error"}, documented ^ kinds
