"""The web board in a real headless Chromium (Debian's package, driven by Playwright).

Each test opens the board served by uvicorn on a free loopback port, plays by
clicking and compares what the page shows with what the JSON API says.
Skipped when chromium or the playwright package is missing; ``.ci/install-browser``
installs chromium on CI. ``TABLEBASE_CHROMIUM`` names another chromium binary.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from serve_support import BUILT, build_database, chromium_path, registered

pytest.importorskip("fastapi", reason="the serve extra is not installed: pip install -e '.[dev]'")
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed: pip install -e '.[dev]'")
CHROMIUM = os.environ.get("TABLEBASE_CHROMIUM") or chromium_path()
if CHROMIUM is None or not Path(CHROMIUM).exists():
    pytest.skip(
        f"chromium is not installed ({CHROMIUM or '/usr/bin/chromium'} missing): run .ci/install-browser",
        allow_module_level=True,
    )

import uvicorn  # noqa: E402
from fastapi.testclient import TestClient  # noqa: E402

from tablebase.serve import create_app  # noqa: E402

#: Real variants played here besides the toys of serve_support (a second or two each to build).
REAL = ("rota", "wild")

LAUNCH_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with registered():
        yield build_database(tmp_path_factory.mktemp("web") / "tablebase.db", (*BUILT, *REAL))


@pytest.fixture(scope="module")
def base_url(db: Path) -> Iterator[str]:
    server = uvicorn.Server(uvicorn.Config(create_app(db), host="127.0.0.1", port=0, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    port = server.servers[0].sockets[0].getsockname()[1]
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def api(db: Path) -> Iterator[TestClient]:
    with TestClient(create_app(db)) as client:
        yield client


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser: Any, base_url: str) -> Iterator[Any]:
    context = browser.new_context(base_url=base_url, viewport={"width": 1200, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield page
    context.close()
    assert not errors, errors


def open_board(page: Any, variant: str, position: str | None = None) -> None:
    fragment = f"#variant={quote(variant)}" + (f"&position={quote(position)}" if position else "")
    page.goto("/" + fragment)
    ready(page)


def ready(page: Any) -> None:
    page.wait_for_selector("body[data-state=ready]")
    assert page.inner_text("#message") == ""


def click(page: Any, selector: str) -> None:
    page.click(selector)
    ready(page)


def probe(api: TestClient, variant: str, position: str) -> dict[str, Any]:
    reply = api.get(f"/api/{variant}", params={"position": position})
    assert reply.status_code == 200, reply.text
    return reply.json()


def shown_position(page: Any) -> str:
    return page.input_value("#position")


def cell_values(page: Any) -> dict[str, tuple[str, str, str]]:
    """``cell -> (outcome, distance, fill colour)`` for every coloured cell."""
    return page.eval_on_selector_all(
        "#board .cell[data-outcome]",
        """cells => Object.fromEntries(cells.map(c => [c.dataset.cell,
              [c.dataset.outcome, c.dataset.distance, getComputedStyle(c.querySelector('.shape')).fill]]))""",
    )


def legend_colours(page: Any) -> dict[str, str]:
    return page.eval_on_selector_all(
        "#legend .swatch",
        "s => Object.fromEntries(s.map(e => [e.dataset.outcome, getComputedStyle(e).backgroundColor]))",
    )


def assert_cells_match(page: Any, api: TestClient, variant: str) -> dict[str, Any]:
    """Every empty cell shows its placement's value, coloured like the legend."""
    result = probe(api, variant, shown_position(page))
    shown = cell_values(page)
    colours = legend_colours(page)
    assert len(set(colours.values())) == 3
    expected = {m["move"]: (m["outcome"], distance(m)) for m in result["moves"]}
    assert {cell: (o, d) for cell, (o, d, _) in shown.items()} == expected
    for outcome, _, fill in shown.values():
        assert fill == colours[outcome]
    return result


def distance(move: dict[str, Any]) -> str:
    """A move's distance as the board's ``data-distance`` shows it (empty for a draw without one)."""
    return "" if move["distance"] is None else str(move["distance"])


def status_of(result: dict[str, Any]) -> str:
    return f"{result['to_move']} to move: {result['outcome']} in {result['distance']}"


def test_tictactoe_colours_values_undo_and_best_move(page: Any, api: TestClient) -> None:
    open_board(page, "tictactoe")
    start = assert_cells_match(page, api, "tictactoe")
    assert page.inner_text("#status") == status_of(start) == "x to move: draw in 9"

    click(page, "[data-cell=a1]")
    assert shown_position(page) == "x../.../..."
    assert page.get_attribute("[data-cell=a1]", "data-piece") == "x"
    after_a1 = assert_cells_match(page, api, "tictactoe")
    assert page.inner_text("#status") == status_of(after_a1)
    # o's only move that holds the draw is the centre (a known tic-tac-toe fact)
    assert [c for c, (o, _, _) in cell_values(page).items() if o == "draw"] == ["b2"]

    click(page, "[data-cell=b1]")
    assert shown_position(page) == "xo./.../..."
    result = assert_cells_match(page, api, "tictactoe")
    assert result["outcome"] == "win"
    click(page, "#best")
    assert shown_position(page) == result["moves"][0]["position"]
    click(page, "#undo")
    assert shown_position(page) == "xo./.../..."
    click(page, "#undo")
    click(page, "#undo")
    assert shown_position(page) == ".../.../..."
    assert page.is_disabled("#undo")


def test_perfect_play_answers_and_the_game_ends(page: Any, api: TestClient) -> None:
    open_board(page, "tictactoe")
    page.check("#answer")
    click(page, "[data-cell=b2]")
    reply = probe(api, "tictactoe", ".../.x./...")["moves"][0]
    assert shown_position(page) == reply["position"]
    # undo takes back perfect play's answer and the move it answered together
    click(page, "#undo")
    assert shown_position(page) == ".../.../..."
    click(page, "[data-cell=b2]")
    while page.is_enabled("#best"):
        click(page, "#best")
    final = probe(api, "tictactoe", shown_position(page))
    assert final["moves"] == [] and final["outcome"] == "draw" and "." not in final["position"]
    assert page.inner_text("#status") == "Game over: draw"
    assert cell_values(page) == {}


def test_sliding_on_a_wheel(page: Any, api: TestClient) -> None:
    open_board(page, "tictactoe")
    page.select_option("#variant", "toy-wheel")
    ready(page)
    assert page.eval_on_selector_all("#board .edge", "e => e.length") == 8
    assert page.eval_on_selector_all("#board .cell circle", "e => e.length") == 5
    click(page, "[data-cell='0']")
    click(page, "[data-cell='2']")
    assert shown_position(page) == "x.o.. x"
    result = probe(api, "toy-wheel", "x.o.. x")
    # before a token is chosen, the token shows the best move it can make
    best = result["moves"][0]
    assert page.get_attribute("[data-cell='0']", "data-move") == best["move"] == "0-4"
    assert page.get_attribute("[data-cell='0']", "data-outcome") == best["outcome"]
    # choosing it shows where it can go, with each move's value
    click(page, "[data-cell='0']")
    assert "selected" in page.get_attribute("[data-cell='0']", "class")
    shown = {c: (o, d) for c, (o, d, _) in cell_values(page).items()}
    assert shown == {m["move"].split("-")[1]: (m["outcome"], str(m["distance"])) for m in result["moves"]}
    click(page, "[data-cell='4']")
    assert shown_position(page) == best["position"]
    assert page.inner_text("#status") == "Game over: x has won"


def test_labelled_moves_offer_a_choice(page: Any, api: TestClient) -> None:
    open_board(page, "toy-wild", "x..")
    click(page, "[data-cell=b1]")
    choices = page.eval_on_selector_all("#chooser button", "b => b.map(e => [e.dataset.move, e.dataset.outcome])")
    result = probe(api, "toy-wild", "x..")
    assert sorted(choices) == sorted([m["move"], m["outcome"]] for m in result["moves"] if m["move"][1:] == "b1")
    assert dict(choices)["xb1"] == "loss"  # x x . lets the next player complete three x
    click(page, "#chooser [data-move=ob1]")
    assert shown_position(page) == "xo."
    assert page.is_hidden("#chooser")


def test_rota_places_then_slides_on_the_wheel(page: Any, api: TestClient) -> None:
    open_board(page, "rota", "xxox.o../.")
    assert page.eval_on_selector_all("#board .edge", "e => e.length") == 16
    assert page.eval_on_selector_all("#board .cell circle", "e => e.length") == 9
    placing = assert_cells_match(page, api, "rota")
    assert page.inner_text("#status") == status_of(placing)
    # o places its last token; every token is down and x must slide one
    click(page, "[data-cell='6']")
    assert shown_position(page) == "xxox.oo./. x"
    result = probe(api, "rota", "xxox.oo./. x")
    assert page.inner_text("#status") == status_of(result)
    # each x token shows the best slide it can make
    for token in ("0", "1", "3"):
        best = next(m for m in result["moves"] if m["move"].startswith(f"{token}-"))
        assert page.get_attribute(f"[data-cell='{token}']", "data-move") == best["move"]
    click(page, "[data-cell='0']")
    assert "selected" in page.get_attribute("[data-cell='0']", "class")
    shown = {c: (o, d) for c, (o, d, _) in cell_values(page).items()}
    slides = [m for m in result["moves"] if m["move"].startswith("0-")]
    assert shown == {m["move"][2:]: (m["outcome"], distance(m)) for m in slides} == {"8": ("draw", ""), "7": ("loss", "2")}
    click(page, "[data-cell='8']")
    assert shown_position(page) == next(m["position"] for m in slides if m["move"] == "0-8") == ".xox.oo./x o"
    assert page.get_attribute("[data-cell='8']", "data-piece") == "x"


def test_wild_asks_which_mark(page: Any, api: TestClient) -> None:
    open_board(page, "wild", "x../.../...")
    result = probe(api, "wild", "x../.../...")
    assert page.inner_text("#status") == status_of(result)
    # each empty cell shows the better of its two marks (moves come best first)
    best: dict[str, dict[str, Any]] = {}
    for m in result["moves"]:
        best.setdefault(m["move"][1:], m)
    shown = {c: (o, d) for c, (o, d, _) in cell_values(page).items()}
    assert shown == {c: (m["outcome"], distance(m)) for c, m in best.items()}
    click(page, "[data-cell=b1]")
    choices = page.eval_on_selector_all("#chooser button", "b => b.map(e => [e.dataset.move, e.dataset.outcome])")
    assert sorted(choices) == sorted([m["move"], m["outcome"]] for m in result["moves"] if m["move"][1:] == "b1")
    assert dict(choices)["xb1"] == "loss"  # x x . lets the next player complete three x
    click(page, "#chooser [data-move=ob1]")
    assert shown_position(page) == "xo./.../..."
    assert page.is_hidden("#chooser")
    assert page.get_attribute("[data-cell=b1]", "data-piece") == "o"


def test_a_variant_without_layout_plays_from_the_move_list(page: Any, api: TestClient) -> None:
    open_board(page, "toy-plain")
    assert page.is_hidden("#board") and page.is_visible("#no-board")
    rows = page.eval_on_selector_all("#moves tbody tr", "r => r.map(e => [e.dataset.move, e.dataset.outcome])")
    assert rows == [[m["move"], m["outcome"]] for m in probe(api, "toy-plain", "...")["moves"]]
    click(page, "#moves tr[data-move=oc1]")
    assert shown_position(page) == "..o"


def test_a_bad_position_shows_the_api_error(page: Any, api: TestClient) -> None:
    open_board(page, "tictactoe")
    page.fill("#position", "xxx/ooo/...")
    page.press("#position", "Enter")
    page.wait_for_function("document.querySelector('#message').textContent !== ''")
    ready_state = page.get_attribute("body", "data-state")
    detail = api.get("/api/tictactoe", params={"position": "xxx/ooo/..."}).json()["detail"]
    assert page.inner_text("#message") == detail
    # the board stays where it was; the text stays for the user to correct
    assert ready_state == "ready" and shown_position(page) == "xxx/ooo/..."
    assert page.inner_text("#status") == "x to move: draw in 9"
    assert page.eval_on_selector_all("#board .cell[data-piece]", "c => c.length") == 0
