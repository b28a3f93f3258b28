"""The web board in a real headless Chromium (Debian's package, driven by Playwright).

Each test opens the board served by uvicorn on a free loopback port, plays by
clicking and compares what the page shows with what the JSON API says.
Skipped when chromium or the playwright package is missing; ``.ci/install-browser``
installs chromium on CI. ``TABLEBASE_CHROMIUM`` names another chromium binary.
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from serve_support import BUILT, build_database, chromium_path, registered, serving

pytest.importorskip("fastapi", reason="the serve extra is not installed: pip install -e '.[dev]'")
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed: pip install -e '.[dev]'")
CHROMIUM = os.environ.get("TABLEBASE_CHROMIUM") or chromium_path()
if CHROMIUM is None or not Path(CHROMIUM).exists():
    pytest.skip(
        f"chromium is not installed ({CHROMIUM or '/usr/bin/chromium'} missing): run .ci/install-browser",
        allow_module_level=True,
    )

from fastapi.testclient import TestClient  # noqa: E402

import tablebase  # noqa: E402
from tablebase import games  # noqa: E402
from tablebase.serve import create_app  # noqa: E402

#: Real variants played here besides the toys of serve_support (a second or two each to build).
REAL = ("rota", "wild", "roman", "ultimate-strategy", "morris-6-3")
#: Built tier by tier, the tiers of three stones a side (about 15 s).
TIERED = "morris-9"
#: A toy whose layout plays a column's move with one click on any of its cells (``click_moves``).
ONE_CLICK = ("toy-drop",)
#: Ultimate tic-tac-toe, x sent to field 5 with four moves, 62 plies into a random game (proved in well under a second).
ULTIMATE_LATE = ".xo.xxoo./o..oo.xoo/xxoo.oox./x.x.xox.x/xxooxo.x./ooo.oo.xo/.xxoo.x.x/x.ooxoxxx/oxoxoxxxo x 5"
EMPTY_ROW = "." * 9

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
        yield build_database(tmp_path_factory.mktemp("web") / "tablebase.db", (*BUILT, *REAL, *ONE_CLICK))


@pytest.fixture(scope="module")
def tiered_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A file with :data:`TIERED` built tier by tier, the tiers of three stones a side."""
    path = tmp_path_factory.mktemp("tiers") / "tablebase.db"
    with tablebase.open(path) as tb:
        tb.build(TIERED, tiers=3, workers=1)
    return path


@pytest.fixture(scope="module")
def base_url(db: Path) -> Iterator[str]:
    for port in serving(create_app(db)):
        yield f"http://127.0.0.1:{port}"


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


def board_context(browser: Any, base_url: str, analyse: bool = False, **options: Any) -> Any:
    """A fresh browser context on ``base_url`` (1200x900 unless ``options`` say otherwise). Unless
    ``analyse``, its board does not search the positions it shows (the "Analyse" box unchecked), so
    that what a test clicks is all the server is asked."""
    context = browser.new_context(base_url=base_url, **{"viewport": {"width": 1200, "height": 900}, **options})
    context.add_init_script(f"localStorage.setItem('tablebase.analyse', '{'on' if analyse else 'off'}')")
    return context


def new_page(browser: Any, base_url: str, analyse: bool = False) -> Iterator[Any]:
    """A page of a fresh :func:`board_context`; fails the test if the page raised."""
    context = board_context(browser, base_url, analyse)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield page
    context.close()
    assert not errors, errors


@pytest.fixture
def page(browser: Any, base_url: str) -> Iterator[Any]:
    yield from new_page(browser, base_url)


@pytest.fixture
def analysing_page(browser: Any, base_url: str) -> Iterator[Any]:
    """A page of the board that searches each position it shows (the default for a user)."""
    yield from new_page(browser, base_url, analyse=True)


@pytest.fixture
def tiered_page(browser: Any, tiered_db: Path) -> Iterator[Any]:
    """A page of the board served from :func:`tiered_db`."""
    for port in serving(create_app(tiered_db)):
        yield from new_page(browser, f"http://127.0.0.1:{port}")


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


def test_a_perpetual_draw_reads_so_as_on_the_command_line(page: Any, api: TestClient) -> None:
    open_board(page, "rota")
    start = probe(api, "rota", shown_position(page))
    assert (start["outcome"], start["distance"]) == ("draw", None)
    assert page.inner_text("#status") == "x to move: perpetual draw"


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
    # the result is not coloured as a loss (it is nobody's loss from the reader's side)
    colour = page.eval_on_selector("#status", "e => getComputedStyle(e).color")
    loss = page.eval_on_selector(".value, #message", "e => getComputedStyle(e).color")  # the loss colour
    assert colour != loss and page.get_attribute("#status", "data-outcome") is None


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


def test_morris_closes_a_mill_then_removes_a_stone(page: Any, api: TestClient) -> None:
    open_board(page, "morris-6-3", "xx.oo........... x 1 1")
    assert page.eval_on_selector_all("#board .edge", "e => e.length") == 20
    assert page.eval_on_selector_all("#board .cell circle", "e => e.length") == 16
    result = probe(api, "morris-6-3", "xx.oo........... x 1 1")
    removals = {m["move"]: m for m in result["moves"] if "x" in m["move"]}
    assert set(removals) == {"e1xb2", "e1xc2"}
    click(page, "[data-cell=e1]")
    assert "selected" in page.get_attribute("[data-cell=e1]", "class")
    shown = {c: (o, d) for c, (o, d, _) in cell_values(page).items()}
    assert shown == {m["move"][3:]: (m["outcome"], distance(m)) for m in removals.values()}
    click(page, "[data-cell=c2]")
    assert shown_position(page) == removals["e1xc2"]["position"] == "xxxo............ o 0 1"
    assert page.get_attribute("[data-cell=c2]", "data-piece") in (None, "")


def test_nine_mens_morris_board_flies_closes_a_mill_and_removes(tiered_page: Any, tiered_db: Path) -> None:
    position = "xx.x...........o......oo x 0 0"
    page = tiered_page
    open_board(page, TIERED, position)
    # three squares of eight points, their 24 sides and the 8 steps of the four joining lines
    assert page.eval_on_selector_all("#board .cell circle", "e => e.length") == 24
    assert page.eval_on_selector_all("#board .edge", "e => e.length") == 32
    with TestClient(create_app(tiered_db)) as api:
        result = probe(api, TIERED, position)
    assert result["outcome"] == "win" and result["distance"] == 1
    assert page.inner_text("#status") == status_of(result)
    click(page, "[data-cell=b2]")
    # x has three stones: b2 flies to any empty point, each shown with its best move's value
    best: dict[str, dict[str, Any]] = {}
    for m in result["moves"]:
        if m["move"].startswith("b2-"):
            best.setdefault(m["move"][3:5], m)
    assert len(best) == 24 - 6
    shown = {c: (o, d) for c, (o, d, _) in cell_values(page).items()}
    assert shown == {c: (m["outcome"], distance(m)) for c, m in best.items()}
    click(page, "[data-cell=g1]")
    removals = {m["move"][-2:]: m for m in result["moves"] if m["move"].startswith("b2-g1x")}
    # the mill a1 d1 g1 closed: any of o's three stones, none of them in a mill, may go
    assert set(removals) == {"c5", "d7", "g7"}
    shown = {c: (o, d) for c, (o, d, _) in cell_values(page).items()}
    assert shown == {c: (m["outcome"], distance(m)) for c, m in removals.items()}
    click(page, "[data-cell=c5]")
    assert shown_position(page) == removals["c5"]["position"] == "xxx...................oo o 0 0"


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
    assert page.is_hidden("#board-hint")  # no cells to click
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


def region_marks(page: Any) -> tuple[list[str], dict[str, str]]:
    """(active regions, region -> owner) as the board draws them."""
    active = page.eval_on_selector_all("#board .region[data-active]", "r => r.map(e => e.dataset.region)")
    owners = page.eval_on_selector_all(
        "#board .region[data-owner]", "r => Object.fromEntries(r.map(e => [e.dataset.region, e.dataset.owner]))"
    )
    return active, owners


def test_ultimate_plays_by_click_and_highlights_the_field_to_play(page: Any, api: TestClient) -> None:
    open_board(page, "ultimate")
    assert page.eval_on_selector_all("#board .cell", "c => c.length") == 81
    assert page.eval_on_selector_all("#board .region", "r => r.length") == 9
    assert region_marks(page) == ([], {})
    assert page.inner_text("#status") == "x to move: not solved yet"
    assert page.is_visible("#solve")
    click(page, "[data-cell=e5]")
    assert shown_position(page) == "/".join([EMPTY_ROW] * 4 + ["....x...."] + [EMPTY_ROW] * 4) + " o 4"
    assert region_marks(page) == (["4"], {})
    playable = page.eval_on_selector_all("#board .cell[data-move]", "c => c.map(e => e.dataset.cell)")
    assert sorted(playable) == sorted(["d4", "e4", "f4", "d5", "f5", "d6", "e6", "f6"])
    # a click outside the active field plays nothing
    click(page, "[data-cell=a1]")
    assert shown_position(page).endswith(" o 4")
    click(page, "[data-cell=d4]")
    assert region_marks(page) == (["0"], {})


def test_ultimate_solve_on_a_late_position_shows_values(page: Any, api: TestClient) -> None:
    open_board(page, "ultimate", ULTIMATE_LATE)
    assert page.inner_text("#status") == "x to move: not solved yet"
    assert set(o for o, _, _ in cell_values(page).values()) == {"unknown"}
    assert page.is_enabled("#best")  # it searches first
    click(page, "#solve")
    solved = api.get("/api/ultimate/solve", params={"position": ULTIMATE_LATE, "time_limit": 20}).json()
    assert page.inner_text("#status") == status_of(solved)
    shown = {c: (o, d) for c, (o, d, _) in cell_values(page).items()}
    assert shown == {m["move"]: (m["outcome"], distance(m)) for m in solved["moves"]}
    colours = legend_colours(page)
    assert all(fill == colours[o] for o, _, fill in cell_values(page).values())
    # compact labels on a large board: W, D or L and the distance
    labels = page.eval_on_selector_all("#board .value", "v => v.map(e => e.textContent)")
    assert sorted(labels) == sorted(m["outcome"][0].upper() + distance(m) for m in solved["moves"])
    assert page.is_enabled("#best") and page.is_disabled("#solve")


def test_ultimate_won_fields_are_marked_and_their_cells_stay_visible(page: Any, api: TestClient) -> None:
    # x has won field 0, o field 1; x is sent to field 2; under the open rules won fields stay playable
    position = "xxxooo.../" + "o..x..x.o/" + "/".join([EMPTY_ROW] * 7) + " x 2"
    open_board(page, "ultimate", position)
    assert region_marks(page) == (["2"], {"0": "x", "1": "o"})
    # the owner's mark is translucent and lets clicks through to the cells under it
    style = page.eval_on_selector(
        "#board .owner[data-region='0']", "e => [getComputedStyle(e).opacity, getComputedStyle(e).pointerEvents]"
    )
    assert float(style[0]) < 0.5 and style[1] == "none"
    hit = page.evaluate(
        """() => { const r = document.querySelector("[data-cell=b2] .shape").getBoundingClientRect();
                   return document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2).closest(".cell").dataset.cell; }"""
    )
    assert hit == "b2"
    assert page.get_attribute("[data-cell=a1]", "data-piece") == "x"


def test_a_bad_link_shows_the_error_and_the_start(page: Any, api: TestClient) -> None:
    page.goto("/#variant=tictactoe&position=zzz")
    page.wait_for_selector("body[data-state=ready]")
    detail = api.get("/api/tictactoe", params={"position": "zzz"}).json()["detail"]
    assert page.inner_text("#message") == detail
    assert shown_position(page) == ".../.../..."
    assert page.eval_on_selector_all("#board .cell[data-outcome]", "c => c.length") == 9
    click(page, "[data-cell=b2]")
    assert shown_position(page) == ".../.x./..."


def test_editing_the_address_moves_the_board(page: Any, api: TestClient) -> None:
    open_board(page, "tictactoe")
    page.evaluate("location.hash = '#variant=tictactoe&position=' + encodeURIComponent('x../.o./...')")
    page.wait_for_function("document.querySelector('#position').value === 'x../.o./...'")
    ready(page)
    assert page.get_attribute("[data-cell=b2]", "data-piece") == "o"
    page.evaluate("location.hash = '#variant=toy-wild'")
    page.wait_for_function("document.querySelector('#variant').value === 'toy-wild'")
    ready(page)
    assert shown_position(page) == "..."


def test_cells_and_rows_are_played_with_the_keyboard(page: Any, api: TestClient) -> None:
    open_board(page, "tictactoe")
    page.focus("[data-cell=b2]")
    page.keyboard.press("Enter")
    ready(page)
    assert shown_position(page) == ".../.x./..."
    page.focus("#moves tbody tr[data-move=a1]")
    page.keyboard.press(" ")
    ready(page)
    assert shown_position(page) == "o../.x./..."
    # Tab walks from one playable cell to the next
    page.focus("[data-cell=b1]")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.dataset.cell") == "c1"


def test_play_best_move_plays_one_move_with_perfect_play_on(page: Any, api: TestClient) -> None:
    open_board(page, "tictactoe")
    page.check("#answer")
    click(page, "#best")
    assert shown_position(page).count("x") == 1 and "o" not in shown_position(page)
    click(page, "#undo")
    assert shown_position(page) == ".../.../..."


def test_nothing_overflows_a_narrow_phone(browser: Any, base_url: str, api: TestClient) -> None:
    context = board_context(browser, base_url, viewport={"width": 360, "height": 740})
    page = context.new_page()
    try:
        for entry in api.get("/api/variants").json():
            # the start, and a position whose move list is long (every move's position is printed)
            open_board(page, entry["variant"])
            widths = page.evaluate("[document.documentElement.scrollWidth, document.body.scrollWidth]")
            assert max(widths) <= 360, (entry["variant"], widths)
            # long lists scroll inside their panels (Ultimate's 81 moves made the page 10,000 px tall)
            height = page.evaluate("document.documentElement.scrollHeight")
            assert height <= 3000, (entry["variant"], height)
    finally:
        context.close()


def _segment_hits_box(a: tuple[float, float], b: tuple[float, float], box: dict[str, float]) -> bool:
    """Whether the segment a-b crosses the rectangle (Liang-Barsky clipping)."""
    (x0, y0), (x1, y1) = a, b
    dx, dy = x1 - x0, y1 - y0
    lo, hi = 0.0, 1.0
    for p, q in ((-dx, x0 - box["x"]), (dx, box["x"] + box["width"] - x0),
                 (-dy, y0 - box["y"]), (dy, box["y"] + box["height"] - y0)):
        if p == 0:
            if q < 0:
                return False
        elif p < 0:
            lo = max(lo, q / p)
        else:
            hi = min(hi, q / p)
    return lo <= hi


def test_rota_labels_stay_off_the_wheel_lines(page: Any, api: TestClient) -> None:
    # every spot shows a value: x places its third token, and the slides that follow
    for position in ("xxo.o.../.", "xxox.oo./. x"):
        open_board(page, "rota", position)
        edges = page.eval_on_selector_all(
            "#board .edge", "e => e.map(l => [[+l.getAttribute('x1'), +l.getAttribute('y1')], [+l.getAttribute('x2'), +l.getAttribute('y2')]])"
        )
        labels = page.eval_on_selector_all(
            "#board .value, #board .name",
            "t => t.map(e => { const b = e.getBBox(); return {text: e.textContent, x: b.x, y: b.y, width: b.width, height: b.height}; })",
        )
        assert len(labels) >= 9
        for label in labels:
            assert not any(_segment_hits_box(tuple(a), tuple(b), label) for a, b in edges), (position, label)


def test_roman_value_under_a_token_does_not_touch_it(page: Any, api: TestClient) -> None:
    open_board(page, "roman", "xo./ox./.xo x")
    result = probe(api, "roman", "xo./ox./.xo x")
    assert result["moves"] and "-" in result["moves"][0]["move"]  # tokens move: values are drawn under them
    boxes = page.eval_on_selector_all(
        "#board .cell[data-piece][data-outcome]",
        """cells => cells.map(c => [c.querySelector('.piece').getBBox(),
                                    document.querySelector(`#board .value[data-cell='${c.dataset.cell}']`).getBBox()])
                         .map(([p, v]) => [p.y + p.height, v.y])""",
    )
    assert boxes
    for piece_bottom, value_top in boxes:
        assert value_top >= piece_bottom, (piece_bottom, value_top)


# -- the game as a record: history, jumps, the value chart --------------------


def play_cells(page: Any, *cells: str) -> None:
    for cell in cells:
        click(page, f"[data-cell={cell}]")


def record_items(page: Any) -> list[tuple[str, str, bool]]:
    """``(move, text, current)`` for every item of the game record."""
    return page.eval_on_selector_all(
        "#record li", "l => l.map(e => [e.dataset.move, e.textContent, e.hasAttribute('aria-current')])"
    )


def wait_position(page: Any, position: str) -> None:
    page.wait_for_function("p => document.querySelector('#position').value === p", arg=position)
    ready(page)


#: A short tic-tac-toe game: x b2, o a1, x c3.
GAME = ((".../.x./...", "b2"), ("o../.x./...", "a1"), ("o../.x./..x", "c3"))


def test_back_and_forward_walk_through_the_game_and_a_link_reopens_it(page: Any, browser: Any, api: TestClient) -> None:
    open_board(page, "tictactoe")
    play_cells(page, *(cell for _, cell in GAME))
    assert shown_position(page) == GAME[2][0]
    page.go_back()
    wait_position(page, GAME[1][0])
    page.go_back()
    wait_position(page, GAME[0][0])
    # the record keeps the moves ahead of the shown position
    assert [(m, current) for m, _, current in record_items(page)] == [("b2", True), ("a1", False), ("c3", False)]
    page.go_forward()
    wait_position(page, GAME[1][0])
    # the address names the variant and the position: another tab opens the same board
    other = browser.new_page()
    try:
        other.goto(page.url)
        ready(other)
        assert shown_position(other) == GAME[1][0]
        assert other.input_value("#variant") == "tictactoe"
    finally:
        other.close()
    # a move from an earlier position replaces the rest of the record
    click(page, "[data-cell=c1]")
    assert [m for m, _, _ in record_items(page)] == ["b2", "a1", "c1"]


def test_record_items_jump_and_arrow_keys_step(page: Any, api: TestClient) -> None:
    open_board(page, "tictactoe")
    play_cells(page, *(cell for _, cell in GAME))
    # each item: the move and what it achieves for its player, as the API values it
    before = [".../.../..."] + [p for p, _ in GAME[:-1]]
    expected = []
    for position, (_, cell) in zip(before, GAME):
        move = next(m for m in probe(api, "tictactoe", position)["moves"] if m["move"] == cell)
        expected.append(f"{cell} {move['outcome']} {move['distance']}")
    assert [text for _, text, _ in record_items(page)] == expected
    click(page, "#record li[data-ply='1']")
    assert shown_position(page) == GAME[0][0]
    assert page.get_attribute("[data-cell=b2]", "data-piece") == "x"
    page.keyboard.press("ArrowRight")
    assert shown_position(page) == GAME[1][0]
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    assert shown_position(page) == ".../.../..."
    page.keyboard.press("ArrowLeft")  # nothing before the start
    assert shown_position(page) == ".../.../..."
    page.keyboard.press("End")
    assert shown_position(page) == GAME[2][0]


def test_value_chart_has_the_value_of_every_position_of_the_game(page: Any, api: TestClient) -> None:
    open_board(page, "tictactoe")
    play_cells(page, "a1", "b2", "c3")  # x's corner, o's centre: drawn all the way
    positions = [".../.../...", "x../.../...", "x../.o./...", "x../.o./..x"]
    points = page.eval_on_selector_all(
        "#value-chart .point", "p => p.map(e => [e.dataset.ply, e.dataset.outcome, e.dataset.distance])"
    )
    expected = []
    for ply, position in enumerate(positions):
        result = probe(api, "tictactoe", position)
        expected.append([str(ply), result["outcome"], str(result["distance"])])
    assert points == expected
    # the chart shows a turn: the first player wins after o's edge reply b1 to x's corner
    click(page, "#record li[data-ply='1']")
    click(page, "[data-cell=b1]")
    last = page.eval_on_selector("#value-chart .point[data-ply='2']", "e => [e.dataset.outcome, e.getAttribute('cy')]")
    centre = page.eval_on_selector("#value-chart .point[data-ply='0']", "e => e.getAttribute('cy')")
    # x to move and winning: drawn above the draws' line (y grows downwards)
    assert last[0] == "win" and float(last[1]) < float(centre) == 0
    click(page, "#value-chart .point[data-ply='1']")
    assert shown_position(page) == "x../.../..."


# -- searches: cancel, and choosing something else -----------------------------


def hang_searches(page: Any) -> list[str]:
    """Searches of Ultimate never answer (the test's stand-in for a long search); returns the aborted ones."""
    failed: list[str] = []

    def route(route: Any) -> None:
        if "time_limit=0" in route.request.url:
            route.continue_()

    page.route("**/api/ultimate/solve?*", route)
    page.on("requestfailed", lambda request: failed.append(request.url))
    return failed


def wait_for_count(page: Any, found: list[str], count: int) -> None:
    """Waits (up to 5 s, letting the page's events in) until ``found`` holds ``count`` items."""
    deadline = time.monotonic() + 5
    while len(found) < count and time.monotonic() < deadline:
        page.wait_for_timeout(20)
    assert len(found) == count, found


def start_search(page: Any) -> None:
    page.click("#solve")
    page.wait_for_selector("body[data-state=busy]")
    page.wait_for_selector("#cancel:visible")
    assert page.is_visible("#progress")


def test_cancel_stops_a_search_and_the_board_stays_put(page: Any, api: TestClient) -> None:
    failed = hang_searches(page)
    open_board(page, "ultimate", ULTIMATE_LATE)
    start_search(page)
    click(page, "#cancel")
    assert page.is_hidden("#cancel") and page.is_hidden("#progress")
    assert shown_position(page) == ULTIMATE_LATE
    assert page.inner_text("#status") == "x to move: not solved yet"
    wait_for_count(page, failed, 1)
    assert "/api/ultimate/solve" in failed[0]


def test_choosing_another_variant_or_position_cancels_the_search(page: Any, api: TestClient) -> None:
    failed = hang_searches(page)
    open_board(page, "ultimate", ULTIMATE_LATE)
    start_search(page)
    # a click on a playable cell plays it at once
    cell = page.eval_on_selector("#board .cell[data-move]", "e => e.dataset.cell")
    move = page.get_attribute(f"[data-cell={cell}]", "data-move")
    page.click(f"[data-cell={cell}]")
    ready(page)
    after = next(m for m in api.get("/api/ultimate/board", params={"position": ULTIMATE_LATE}).json()["moves"]
                 if m["move"] == move)
    assert shown_position(page) == after["position"]
    wait_for_count(page, failed, 1)
    start_search(page)
    # stepping back through the record cancels it too
    page.keyboard.press("ArrowLeft")
    ready(page)
    assert shown_position(page) == ULTIMATE_LATE
    wait_for_count(page, failed, 2)
    start_search(page)
    page.select_option("#variant", "tictactoe")
    ready(page)
    assert shown_position(page) == ".../.../..." and page.is_hidden("#cancel")
    wait_for_count(page, failed, 3)


def test_a_shown_position_is_analysed_without_a_click(analysing_page: Any, api: TestClient) -> None:
    page = analysing_page
    solved = api.get("/api/ultimate/solve", params={"position": ULTIMATE_LATE, "time_limit": 20}).json()
    open_board(page, "ultimate", ULTIMATE_LATE)
    page.wait_for_function("s => document.querySelector('#status').textContent === s", arg=status_of(solved), timeout=30_000)
    page.wait_for_selector("#progress", state="hidden")
    shown = {c: (o, d) for c, (o, d, _) in cell_values(page).items()}
    assert shown == {m["move"]: (m["outcome"], distance(m)) for m in solved["moves"]}
    assert page.is_disabled("#solve") and page.is_hidden("#cancel")


def test_the_moves_values_fill_in_as_they_are_proved(analysing_page: Any, api: TestClient) -> None:
    page = analysing_page
    solved = api.get("/api/ultimate/solve", params={"position": ULTIMATE_LATE, "time_limit": 20}).json()
    best, *rest = solved["moves"]
    unproved = [{**m, "outcome": None, "distance": None} for m in rest]
    first = {**solved, "outcome": None, "distance": None, "proved": False, "moves": [best, *unproved]}
    asked: list[str] = []

    def route(route: Any) -> None:
        if "partial=true" not in route.request.url:
            route.continue_()
            return
        asked.append(route.request.url)
        if len(asked) == 1:
            route.fulfill(json=first)
        # the next slice never answers: the board shows what the first one proved meanwhile

    page.route("**/api/ultimate/solve?*", route)
    open_board(page, "ultimate", ULTIMATE_LATE)
    wait_for_count(page, asked, 2)
    rows = page.eval_on_selector_all("#moves tbody tr", "r => r.map(e => [e.dataset.move, e.dataset.outcome])")
    assert rows[0] == [best["move"], best["outcome"]]
    assert sorted(rows[1:]) == sorted([m["move"], "unknown"] for m in rest)
    assert page.inner_text("#status") == "x to move: not solved yet"
    assert f"1 of {len(solved['moves'])} moves proved" in page.inner_text("#progress")
    assert page.is_visible("#cancel")
    assert "time_limit=2.0" in asked[0] and "partial=true" in asked[0]


def test_showing_another_position_stops_the_analysis(analysing_page: Any, api: TestClient) -> None:
    page = analysing_page
    failed = hang_searches(page)
    open_board(page, "ultimate", ULTIMATE_LATE)
    page.wait_for_selector("body[data-analysis=running]")
    assert page.is_visible("#progress")
    cell = page.eval_on_selector("#board .cell[data-move]", "e => e.dataset.cell")
    page.click(f"[data-cell={cell}]")
    ready(page)
    assert shown_position(page) != ULTIMATE_LATE
    wait_for_count(page, failed, 1)
    # the new position is analysed in its turn; unchecking the box stops that, and is remembered
    page.wait_for_selector("body[data-analysis=running]")
    page.uncheck("#analyse")
    wait_for_count(page, failed, 2)
    assert page.is_hidden("#progress")
    assert page.evaluate("localStorage.getItem('tablebase.analyse')") == "off"


def test_ultimate_positions_are_shown_without_error_replies(page: Any, api: TestClient) -> None:
    statuses: list[int] = []
    page.on("response", lambda response: statuses.append(response.status))
    open_board(page, "ultimate")
    click(page, "[data-cell=e5]")
    click(page, "[data-cell=d4]")
    assert statuses and max(statuses) < 400, statuses


# -- links that name what cannot be shown --------------------------------------


@pytest.mark.parametrize("name", ["no-such-game", "mnk-4-4-4"])
def test_a_link_to_an_unknown_or_unbuilt_variant_names_it(page: Any, api: TestClient, name: str) -> None:
    page.goto(f"/#variant={name}&position=...")
    page.wait_for_selector("body[data-state=ready]")
    detail = api.get(f"/api/{name}").json()["detail"]
    assert page.inner_text("#message") == detail and name in detail
    # the tic-tac-toe start instead, and the address says so
    assert page.input_value("#variant") == "tictactoe" and shown_position(page) == ".../.../..."
    assert "variant=tictactoe" in page.url
    # the same for an address edited by hand
    page.evaluate(f"location.hash = '#variant={name}'")
    page.wait_for_function("document.querySelector('#message').textContent !== ''")
    page.wait_for_selector("body[data-state=ready]")
    assert page.inner_text("#message") == detail
    assert "variant=tictactoe" in page.url


def test_an_edited_address_with_a_bad_position_is_put_back(page: Any, api: TestClient) -> None:
    open_board(page, "tictactoe", "x../.../...")
    page.evaluate("location.hash = '#variant=tictactoe&position=zzz'")
    page.wait_for_function("document.querySelector('#message').textContent !== ''")
    page.wait_for_selector("body[data-state=ready]")
    assert "'zzz'" in page.inner_text("#message")
    assert shown_position(page) == "x../.../..."
    assert page.evaluate("new URLSearchParams(location.hash.slice(1)).get('position')") == "x../.../..."


def test_the_page_opens_on_tictactoe(page: Any, api: TestClient) -> None:
    page.goto("/")
    ready(page)
    assert page.input_value("#variant") == "tictactoe"
    assert "variant=tictactoe" in page.url


# -- line, predecessors, winning line, last move, one-click cells ---------------


def test_perfect_line_and_predecessors_on_demand(page: Any, api: TestClient) -> None:
    open_board(page, "tictactoe", "x../.o./...")
    assert page.is_hidden("#explore")
    click(page, "#show-line")
    line = api.get("/api/tictactoe/line", params={"position": "x../.o./..."}).json()
    shown = page.eval_on_selector_all("#explore-list button", "b => b.map(e => [e.textContent, e.dataset.position])")
    assert shown == [list(pair) for pair in zip(line["moves"], line["positions"])]
    click(page, "#explore-list li:last-child button")
    assert shown_position(page) == line["positions"][-1]
    assert [m for m, _, _ in record_items(page)] == line["moves"]
    click(page, "#show-predecessors")
    predecessors = api.get("/api/tictactoe/predecessors", params={"position": line["positions"][-1]}).json()
    listed = page.eval_on_selector_all("#explore-list button", "b => b.map(e => e.dataset.position)")
    assert sorted(listed) == sorted(p["position"] for p in predecessors["predecessors"])


def test_the_winning_line_and_the_last_move_are_marked(page: Any, api: TestClient) -> None:
    open_board(page, "tictactoe", "xx./oo./...")
    assert page.eval_on_selector_all("#board .cell[data-line]", "c => c.length") == 0
    click(page, "[data-cell=c1]")
    assert page.inner_text("#status") == "Game over: x has won"
    line = page.eval_on_selector_all("#board .cell[data-line]", "c => c.map(e => e.dataset.cell)")
    assert line == ["a1", "b1", "c1"]
    assert page.eval_on_selector_all("#board .cell[data-last]", "c => c.map(e => e.dataset.cell)") == ["c1"]
    assert page.locator("#board .win-line").count() == 1
    # a game won down a diagonal, reached from a link: the line, and no last move (nothing before it)
    open_board(page, "tictactoe", "xo./ox./..x")
    line = page.eval_on_selector_all("#board .cell[data-line]", "c => c.map(e => e.dataset.cell)")
    assert line == ["a1", "b2", "c3"]
    assert page.eval_on_selector_all("#board .cell[data-last]", "c => c.length") == 0


def test_the_api_passes_the_line_and_one_click_moves(api: TestClient) -> None:
    over = api.get("/api/tictactoe/board", params={"position": "xxx/oo./..."}).json()
    assert over["line"] == ["a1", "b1", "c1"] and over["outcome"] == "loss"
    assert api.get("/api/tictactoe/board", params={"position": "xx./oo./..."}).json()["line"] == []
    layout = api.get("/api/toy-drop/layout").json()
    assert layout["click_moves"] == {"a1": "1", "a2": "1", "b1": "2", "b2": "2"}
    assert "click_moves" not in api.get("/api/tictactoe/layout").json()


def test_one_click_cells_play_their_column(page: Any, api: TestClient) -> None:
    open_board(page, "toy-drop")
    start = probe(api, "toy-drop", "../..")
    # every empty cell of a column plays the column; its value is written on the cell the disc lands on
    moves = page.eval_on_selector_all("#board .cell[data-move]", "c => c.map(e => [e.dataset.cell, e.dataset.move])")
    assert sorted(moves) == [["a1", "1"], ["a2", "1"], ["b1", "2"], ["b2", "2"]]
    values = page.eval_on_selector_all("#board .value", "v => v.map(e => e.dataset.cell)")
    assert sorted(values) == ["a2", "b2"]
    click(page, "[data-cell=a1]")  # the top cell: the disc drops to the bottom
    after = next(m for m in start["moves"] if m["move"] == "1")["position"]
    assert shown_position(page) == after == "../x."
    assert page.eval_on_selector_all("#board .cell[data-last]", "c => c.map(e => e.dataset.cell)") == ["a2"]
    click(page, "[data-cell=a2]")  # a full cell of a column with room: plays the column
    assert shown_position(page) == "o./x."


# -- dark mode -----------------------------------------------------------------


def _luminance(colour: str) -> float:
    channels = [int(c) / 255 for c in colour[colour.index("(") + 1 : colour.index(")")].split(",")[:3]]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    """WCAG contrast ratio of two ``rgb(...)`` colours."""
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_colours_follow_the_system_setting_and_stay_readable(browser: Any, base_url: str, scheme: str) -> None:
    context = board_context(browser, base_url, color_scheme=scheme)
    page = context.new_page()
    try:
        open_board(page, "tictactoe", "x../.o./...")
        colours = page.evaluate(
            """() => {
                const style = (s, p) => getComputedStyle(document.querySelector(s))[p];
                return {page: style('body', 'backgroundColor'), text: style('body', 'color'),
                        status: style('#status', 'color'),
                        cells: [...document.querySelectorAll('#board .value')].map(v => [
                            getComputedStyle(v).fill,
                            getComputedStyle(document.querySelector(`.cell[data-cell=${v.dataset.cell}] .shape`)).fill]),
                        piece: style('[data-cell=a1] .piece', 'fill'), board: style('[data-cell=a1] .shape', 'fill')};
            }"""
        )
        dark = _luminance(colours["page"]) < 0.1
        assert dark == (scheme == "dark"), colours["page"]
        assert contrast(colours["page"], colours["text"]) >= 7
        assert contrast(colours["page"], colours["status"]) >= 4.5
        assert contrast(colours["piece"], colours["board"]) >= 3
        assert colours["cells"] and all(contrast(text, fill) >= 3 for text, fill in colours["cells"])
    finally:
        context.close()


@pytest.mark.parametrize(("variant", "position"), [("tictactoe", None), ("wild", None), ("toy-drop", None)])
def test_values_stay_well_inside_their_cells(page: Any, variant: str, position: str | None) -> None:
    open_board(page, variant, position)
    boxes = page.eval_on_selector_all(
        "#board .value",
        """vs => vs.map(v => { const t = v.getBoundingClientRect();
              const c = document.querySelector(`.cell[data-cell='${v.dataset.cell}'] .shape`).getBoundingClientRect();
              return [v.textContent, t.width / c.width, t.left >= c.left, t.right <= c.right, t.bottom <= c.bottom]; })""",
    )
    assert boxes
    for text, share, *inside in boxes:
        assert share <= 0.8 and all(inside), (text, share, inside)


def test_copy_link_copies_the_address_of_the_shown_position(browser: Any, base_url: str) -> None:
    context = board_context(browser, base_url)
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base_url)
    page = context.new_page()
    try:
        open_board(page, "tictactoe", "x../.o./...")
        page.click("#copy-link")
        page.wait_for_selector("#copied:visible")
        copied = page.evaluate("navigator.clipboard.readText()")
        assert copied == page.url and copied.endswith("#variant=tictactoe&position=x..%2F.o.%2F...")
    finally:
        context.close()


def test_connect4_offers_solve_and_shows_the_value(page: Any, api: TestClient) -> None:
    pytest.importorskip("numba")
    position = "...x.o./..ox.o./o.oo.o./o.xo.xx/xxxoxox/xooxxxo"  # 28 discs from a random game
    open_board(page, "connect4", position)
    assert page.inner_text("#status") == "x to move: not solved yet"
    assert page.is_visible("#solve") and page.is_enabled("#solve")
    click(page, "#solve")
    solved = api.get("/api/connect4/solve", params={"position": position, "time_limit": 20}).json()
    assert page.inner_text("#status") == status_of(solved)
    assert page.is_enabled("#best") and page.is_disabled("#solve")


# -- gravity boards (Connect Four) ----------------------------------------------

EMPTY_C4 = "/".join(["......."] * 6)


def test_connect4_looks_like_connect4_columns_numbered_and_a_disc_drops(page: Any, api: TestClient) -> None:
    layout = api.get("/api/connect4/layout").json()
    assert layout["gravity"] is True and "gravity" not in api.get("/api/tictactoe/layout").json()
    open_board(page, "connect4")
    assert page.eval_on_selector("#board", "b => b.classList.contains('gravity')")
    # the columns numbered 1..7 under the board, as the moves are named; no cell names
    numbers = page.eval_on_selector_all(
        "#board .column-number", "n => n.map(e => [e.textContent, e.getBoundingClientRect().top])"
    )
    assert [text for text, _ in numbers] == ["1", "2", "3", "4", "5", "6", "7"]
    lowest = page.eval_on_selector_all(
        "#board .cell .shape", "s => Math.max(...s.map(e => e.getBoundingClientRect().bottom))"
    )
    assert all(top >= lowest for _, top in numbers)
    assert page.locator("#board .name").count() == 0
    assert page.locator("#board .frame").count() == 1
    assert page.eval_on_selector_all("#board .cell .shape", "s => s.map(e => e.tagName)") == ["circle"] * 42
    # a click on the top cell of column 3 drops a disc to the bottom of it, marked as the last one
    click(page, "[data-cell=c1]")
    assert shown_position(page) == "/".join(["......."] * 5 + ["..x...."])
    assert page.eval_on_selector_all("#board .cell[data-last]", "c => c.map(e => e.dataset.cell)") == ["c6"]
    assert page.eval_on_selector_all("#board .cell[data-dropped] .disc.falling", "d => d.length") == 1
    assert page.eval_on_selector_all("#board .disc", "d => d.map(e => e.parentNode.dataset.cell)") == ["c6"]
    # the next disc in that column lands on the first
    click(page, "[data-cell=c1]")
    assert shown_position(page) == "/".join(["......."] * 4 + ["..o....", "..x...."])
    assert page.eval_on_selector_all("#board .cell[data-last]", "c => c.map(e => e.dataset.cell)") == ["c5"]


def test_connect4_marks_the_winning_four(page: Any, api: TestClient) -> None:
    position = "/".join(["......."] * 5 + ["xxx.ooo"])
    open_board(page, "connect4", position)
    assert page.locator("#board .cell[data-line]").count() == 0
    click(page, "[data-cell=d1]")  # the top of column 4: x's disc falls to d6 and makes four
    assert shown_position(page) == "/".join(["......."] * 5 + ["xxxxooo"])
    assert page.inner_text("#status") == "Game over: x has won"
    board = api.get("/api/connect4/board", params={"position": shown_position(page)}).json()
    line = page.eval_on_selector_all("#board .cell[data-line]", "c => c.map(e => e.dataset.cell)")
    assert sorted(line) == sorted(board["line"]) == ["a6", "b6", "c6", "d6"]
    assert page.eval_on_selector_all("#board .cell[data-last]", "c => c.map(e => e.dataset.cell)") == ["d6"]
    assert page.locator("#board .win-line").count() == 1


def test_connect4_shows_each_columns_value_once_above_it(page: Any, api: TestClient) -> None:
    pytest.importorskip("numba")
    position = "...x.o./..ox.o./o.oo.o./o.xo.xx/xxxoxox/xooxxxo"  # 28 discs from a random game
    open_board(page, "connect4", position)
    click(page, "#solve")
    solved = api.get("/api/connect4/solve", params={"position": position, "time_limit": 20}).json()
    values = page.eval_on_selector_all(
        "#board .column-value", "v => v.map(e => [e.dataset.column, e.dataset.outcome, e.textContent])"
    )
    expected = sorted((m["move"], m["outcome"]) for m in solved["moves"])
    assert sorted((column, outcome) for column, outcome, _ in values) == expected
    for column, outcome, text in values:
        move = next(m for m in solved["moves"] if m["move"] == column)
        assert text == (outcome if move["distance"] is None else f"{outcome} {move['distance']}")
    # above the board, and over the column it names
    frame = page.eval_on_selector("#board .frame", "f => f.getBoundingClientRect().top")
    tops = page.eval_on_selector_all("#board .column-value", "v => v.map(e => e.getBoundingClientRect().bottom)")
    assert all(bottom <= frame for bottom in tops)


# -- the help text -------------------------------------------------------------


@pytest.mark.parametrize(
    ("variant", "position", "says", "not_said"),
    [
        ("connect4", None, ["Click a column", "drop a disc", "value above a column"], ["cell", "token"]),
        ("tictactoe", None, ["Click a cell", "play there"], ["token", "disc", "column"]),
        ("rota", "xxox.oo./. x", ["Click a token", "then where it goes"], ["Click a cell", "disc"]),
        ("wild", None, ["Click a cell", "pick one of the moves offered"], ["token", "disc"]),
        ("ultimate", ULTIMATE_LATE, ["Click a cell", "goes in the highlighted field"], ["token", "disc"]),
    ],
)
def test_the_help_text_speaks_of_the_game_shown(page: Any, variant: str, position: str | None, says: list[str], not_said: list[str]) -> None:
    open_board(page, variant, position)
    hint = page.inner_text("#board-hint")
    assert all(text in hint for text in says), hint
    assert not any(text in hint for text in not_said), hint


def test_the_help_text_follows_the_moves_of_the_position(page: Any) -> None:
    # Rota places its tokens first, then slides them
    open_board(page, "rota")
    assert "Click a cell" in page.inner_text("#board-hint") and "token" not in page.inner_text("#board-hint")
    open_board(page, "rota", "xxox.oo./. x")
    assert "Click a token" in page.inner_text("#board-hint")


# -- Connect Four boards of 4 to 7 columns, positions solved by search ---------

#: Boards and the discs of a late position of each, with every column open (solved in a moment).
C4_BOARDS = {"connect4-4-4": 6, "connect4-5-4": 8, "connect4-6-4": 10, "connect4": 30}


def open_columns_position(name: str, discs: int, seed: int = 0) -> str:
    """A position of ``name`` with ``discs`` discs from a seeded random game, not over, every column open."""
    game = games.get(name)
    rng = random.Random(seed)
    while True:
        state = game.initial_state()
        for _ in range(discs):
            if game.outcome(state) is not None:
                break
            state = rng.choice(game.children(state))[1]
        if game.outcome(state) is None and game.move_count(state) == game.columns:  # type: ignore[attr-defined]
            return game.format_position(state)


@pytest.fixture(scope="module")
def c4_positions() -> dict[str, str]:
    return {name: open_columns_position(name, discs) for name, discs in C4_BOARDS.items()}


@pytest.fixture(scope="module")
def c4_db(tmp_path_factory: pytest.TempPathFactory, c4_positions: dict[str, str]) -> Path:
    """A file holding each of :data:`C4_BOARDS`' late positions with all its columns, solved by search."""
    pytest.importorskip("numba")
    path = tmp_path_factory.mktemp("c4") / "tablebase.db"
    with tablebase.open(path) as tb:
        for name, position in c4_positions.items():
            assert tb.solve(name, position, time_limit=600).proved
    return path


@pytest.fixture(scope="module")
def c4_url(c4_db: Path) -> Iterator[str]:
    for port in serving(create_app(c4_db, solvers=0)):
        yield f"http://127.0.0.1:{port}"


@pytest.fixture(scope="module")
def c4_api(c4_db: Path) -> Iterator[TestClient]:
    with TestClient(create_app(c4_db, solvers=0)) as client:
        yield client


#: Widths from a phone to a wide desktop, in CSS pixels.
WIDTHS = (360, 480, 768, 1024, 1200, 1600)


@pytest.mark.slow
def test_each_column_value_stands_on_its_own_above_its_column(browser: Any, c4_url: str, c4_positions: dict[str, str]) -> None:
    for width in WIDTHS:
        context = board_context(browser, c4_url, viewport={"width": width, "height": 900})
        page = context.new_page()
        try:
            for name, position in c4_positions.items():
                open_board(page, name, position)
                click(page, "#solve")  # the file holds it: answered at once
                shown = page.evaluate(
                    """() => ({
                        numbers: [...document.querySelectorAll('#board .column-number')].map(n => {
                            const r = n.getBoundingClientRect(); return [n.dataset.column, (r.left + r.right) / 2]; }),
                        values: [...document.querySelectorAll('#board .column-value')].map(v => {
                            const r = v.getBoundingClientRect(); return [v.dataset.column, r.left, r.right, v.textContent]; }),
                        text: document.querySelector('#board').textContent,
                    })"""
                )
                columns = games.get(name).columns  # type: ignore[attr-defined]
                assert len(shown["values"]) == columns, (width, name)
                centre = dict(shown["numbers"])
                pitch = centre["2"] - centre["1"]
                for column, left, right, text in shown["values"]:
                    # within its column, with room to spare on each side
                    assert centre[column] - 0.45 * pitch <= left and right <= centre[column] + 0.45 * pitch, (width, name, text)
                ordered = sorted(shown["values"], key=lambda v: v[1])
                for before, after in zip(ordered, ordered[1:]):
                    assert after[1] - before[2] >= 0.1 * pitch, (width, name, before, after)
                # the board's text reads column by column, every word apart: "1 draw 12 2 loss 2 ..."
                values = {column: text.split() for column, _, _, text in shown["values"]}
                expected = [word for column, _ in shown["numbers"] for word in [column, *values[column]]]
                assert shown["text"].split() == expected, (width, name)
                assert all(len(words) == 2 and words[1].isdigit() for words in values.values()), values
        finally:
            context.close()


def perfect(api: TestClient, variant: str, before: str, after: str) -> bool:
    """Whether the move from ``before`` to ``after`` keeps the value of ``before`` (a perfect move)."""
    result = api.get(f"/api/{variant}/solve", params={"position": before, "time_limit": 30}).json()
    move = next(m for m in result["moves"] if m["position"] == after)
    return (move["outcome"], move["distance"]) == (result["outcome"], result["distance"])


@pytest.mark.slow
def test_perfect_play_answers_on_a_board_explored_by_search(browser: Any, c4_url: str, c4_api: TestClient) -> None:
    variant = "connect4-5-4"  # not built: the file holds one position, the rest comes from searches on request
    start = open_columns_position(variant, 4)
    context = board_context(browser, c4_url)
    page = context.new_page()
    try:
        open_board(page, variant, start)
        assert page.inner_text("#status") == "x to move: not solved yet"
        # "Play best move" searches the position, then plays its best move
        click(page, "#best")
        assert perfect(c4_api, variant, start, shown_position(page))
        page.check("#answer")
        for _ in range(3):
            before = shown_position(page)
            column = c4_api.get(f"/api/{variant}/board", params={"position": before}).json()["moves"][0]
            click(page, f"#board .cell[data-move='{column['move']}']")
            mine = column["position"]
            if c4_api.get(f"/api/{variant}/board", params={"position": mine}).json()["moves"] == []:
                break
            # perfect play searched the position after my move and answered it
            answered = shown_position(page)
            assert answered != mine and perfect(c4_api, variant, mine, answered)
            assert page.eval_on_selector_all("#record li", "l => l.length") >= 3
        # undo takes back the answer and the move it answered
        click(page, "#undo")
        assert shown_position(page) == before
    finally:
        context.close()
