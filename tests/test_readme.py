"""README.md says what is true: the commands of its tour run as shown, and no link of the docs is broken.

Every command of a ```console block of README.md (a line ``$ COMMAND``), then of docs/cli.md, is run
in one fresh folder, in order (the tour builds tic-tac-toe first, into the default ``tablebase.db``),
and must exit with code 0 and print the lines shown under it, in that order, by these rules:

- a line with a figure in seconds (``0.02 s``) is compared up to its first figure, which must
  begin a line printed (timings vary from run to run);
- a line ending in `` ...`` must begin a line printed; a line ``...`` alone ends the comparison;
- any other line must equal a line printed (trailing spaces aside);
- ``your move: MOVE`` is typed in: the moves shown make the input, and the input ends after them.

``tablebase`` runs in this process through the console script's entry point; ``sqlite3`` through
Python's ``sqlite3`` module, printing as ``sqlite3 -header -column`` does; ``curl`` through the
HTTP application's test client; ``tablebase serve`` is not run (it serves until stopped).

Then each ```python block of README.md runs in the same folder; an expression whose comment is a value
(``# ('draw', 6)``, ``# MoveValue(...)``: it begins with a bracket, a quote, a digit or a class
name and a parenthesis) must have that ``repr``.

Every relative link of README.md and docs/*.md must name a file that exists and, with ``#anchor``,
a heading of that file.
"""

from __future__ import annotations

import ast
import io
import re
import shlex
import sqlite3
import sys
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from click.testing import CliRunner

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
CLI_PAGE = ROOT / "docs" / "cli.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]

SECONDS = re.compile(r"\d[\d,.]*\s*s\b")
PROMPT = "your move: "
FENCE = re.compile(r"^```.*?^```[^\n]*$", re.M | re.S)
CODE_SPAN = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
VALUE = re.compile(r"[(\[{'\"\d-]|[A-Z]\w*\(")


@dataclass(frozen=True)
class Shown:
    """A command shown on a page of the docs and the lines shown under it."""

    page: str
    line: int
    command: str
    output: tuple[str, ...]

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"

    @property
    def argv(self) -> list[str]:
        return shlex.split(self.command)


def tour(page: Path) -> list[Shown]:
    """The ``$ `` commands of ``page``'s ```console blocks, in order, with their output lines."""
    name = page.relative_to(ROOT).as_posix()
    shown: list[Shown] = []
    inside = False
    for number, line in enumerate(page.read_text().splitlines(), start=1):
        if line.startswith("```"):
            inside = line == "```console"
        elif inside and line.startswith("$ "):
            shown.append(Shown(name, number, line[2:], ()))
        elif inside and shown:
            last = shown[-1]
            shown[-1] = Shown(name, last.line, last.command, (*last.output, line))
    return [replace(each, output=trimmed(each.output)) for each in shown]


def trimmed(output: tuple[str, ...]) -> tuple[str, ...]:
    """``output`` without its blank last lines (a blank line before the next command separates the two)."""
    end = len(output)
    while end and not output[end - 1].strip():
        end -= 1
    return output[:end]


def expected_input(output: tuple[str, ...]) -> str:
    """What the user types in a transcript: the answers shown after the prompt."""
    return "".join(line[len(PROMPT) :] + "\n" for line in output if line.startswith(PROMPT))


def find(shown: str, printed: list[str], start: int) -> int | None:
    """The index of the first line of ``printed`` from ``start`` that ``shown`` stands for."""
    figure = SECONDS.search(shown)
    for i in range(start, len(printed)):
        line = printed[i].rstrip()
        if figure is not None:
            if line.startswith(shown[: figure.start()]):
                return i
        elif shown.endswith(" ..."):
            if line.startswith(shown[: -len(" ...")]):
                return i
        elif line == shown.rstrip():
            return i
    return None


def mismatch(shown: Shown, printed: str) -> str | None:
    """Why ``printed`` is not what its page shows under the command, or ``None`` when it is."""
    lines = printed.splitlines()
    at = 0
    for expected in shown.output:
        if expected == "...":
            return None
        found = find(expected, lines, at)
        if found is None:
            return f"{shown.where}: `{shown.command}` did not print {expected!r} (after line {at}):\n{printed}"
        at = found + 1
    return None


def run_tablebase(argv: list[str], stdin: str) -> tuple[int, str]:
    """Run the ``tablebase`` console script in this process: its exit code and its terminal output."""
    from cli.fast import main

    runner = CliRunner(echo_stdin=True)
    saved = sys.argv
    with runner.isolation(input=stdin, env={"TABLEBASE_DB": None, "TABLEBASE_SCHEDULER": None}) as (_, _, output):
        sys.argv = ["tablebase", *argv]
        try:
            main()
            code = 0
        except SystemExit as stopped:
            code = stopped.code if isinstance(stopped.code, int) else 1
        finally:
            sys.argv = saved
            sys.stdout.flush()
            sys.stderr.flush()
        return code, output.getvalue().decode()


def run_sqlite3(argv: list[str]) -> tuple[int, str]:
    """``sqlite3 -header -column FILE SQL``, through Python's sqlite3 module."""
    assert argv[:2] == ["-header", "-column"] and len(argv) == 4, f"not a form this test runs: {argv}"
    with sqlite3.connect(argv[2]) as conn:
        cursor = conn.execute(argv[3])
        header = [column[0] for column in cursor.description]
        rows = [["" if value is None else str(value) for value in row] for row in cursor.fetchall()]
    widths = [max(len(cell) for cell in column) for column in zip(header, *rows)]
    lines = [header, ["-" * width for width in widths], *rows]
    return 0, "".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() + "\n" for row in lines)


def run_curl(argv: list[str], db: Path) -> tuple[int, str]:
    """``curl -s URL`` of the local server, through the application's test client on ``db``."""
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from tablebase.serve import create_app

    assert argv[0] == "-s" and len(argv) == 2, f"not a form this test runs: {argv}"
    url = urlsplit(argv[1])
    with TestClient(create_app(db)) as client:
        reply = client.get(url.path + ("?" + url.query if url.query else ""))
    return (0 if reply.status_code == 200 else 22), reply.text + "\n"


def python_blocks(text: str) -> list[tuple[int, str]]:
    """The ```python blocks of ``text``: the README line of each block's first line, and its source."""
    return [
        (text.count("\n", 0, block.start(1)) + 1, block.group(1))
        for block in re.finditer(r"^```python\n(.*?)^```$", text, re.M | re.S)
    ]


class ShownValues(ast.NodeTransformer):
    """Wraps each expression statement whose line ends in a value comment in ``_shown(value, comment, line)``."""

    def __init__(self, comments: dict[int, str]):
        self.comments = comments

    def visit_Expr(self, node: ast.Expr) -> ast.AST:
        comment = self.comments.get(node.end_lineno or node.lineno, "")
        if not VALUE.match(comment):
            return node
        arguments = [node.value, ast.Constant(comment), ast.Constant(node.lineno)]
        call = ast.Call(ast.Name("_shown", ast.Load()), arguments, [])
        return ast.copy_location(ast.Expr(call), node)


def run_python(source: str, first: int) -> list[str]:
    """Run one block of the README; what its value comments got wrong, by README line."""
    comments = {
        token.start[0]: token.string[1:].strip()
        for token in tokenize.generate_tokens(io.StringIO(source).readline)
        if token.type == tokenize.COMMENT
    }
    tree = ast.fix_missing_locations(ShownValues(comments).visit(ast.parse(source)))
    wrong: list[str] = []

    def shown(value: object, comment: str, line: int) -> None:
        if repr(value) != comment:
            wrong.append(f"README.md:{first + line - 1}: {value!r}, shown as {comment}")

    exec(compile(tree, "README.md", "exec"), {"_shown": shown})
    return wrong


SHOWN = [*tour(README), *tour(CLI_PAGE)]


@pytest.fixture(scope="module")
def tour_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("tour")


@pytest.fixture(scope="module")
def transcripts(tour_folder: Path) -> Iterator[dict[str, tuple[int, str]]]:
    """Every command shown, run in order in one fresh folder: exit code and output by page and line."""
    done: dict[str, tuple[int, str]] = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(tour_folder)
        for shown in SHOWN:
            program, *args = shown.argv
            if program == "tablebase" and args[:1] != ["serve"]:
                done[shown.where] = run_tablebase(args, expected_input(shown.output))
            elif program == "sqlite3":
                done[shown.where] = run_sqlite3(args)
            elif program == "curl":
                done[shown.where] = run_curl(args, tour_folder / "tablebase.db")
        yield done


def test_the_tour_has_the_commands_of_each_kind() -> None:
    programs = [shown.argv[0] for shown in SHOWN]
    commands = [shown.argv[1] for shown in SHOWN if shown.argv[0] == "tablebase"]
    assert commands[0] == "build" and {"probe", "line", "play", "key", "serve"} <= set(commands)
    assert {"best", "predecessors", "stats"} <= {shown.argv[1] for shown in tour(CLI_PAGE)}
    assert {"sqlite3", "curl"} <= set(programs) <= {"tablebase", "sqlite3", "curl"}


@pytest.mark.parametrize("shown", SHOWN, ids=[f"{shown.page} {shown.command}" for shown in SHOWN])
def test_the_tour_runs_as_shown(shown: Shown, transcripts: dict[str, tuple[int, str]]) -> None:
    if shown.where not in transcripts:
        pytest.skip(f"`{shown.command}` serves until stopped; its API is run by the curl command")
    code, printed = transcripts[shown.where]
    assert code == 0, f"{shown.where}: `{shown.command}` exited with {code}:\n{printed}"
    problem = mismatch(shown, printed)
    assert problem is None, problem


def test_the_python_blocks_give_the_values_shown(
    tour_folder: Path, transcripts: dict[str, tuple[int, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tour_folder)
    blocks = python_blocks(README.read_text())
    assert len(blocks) >= 2
    wrong = [problem for first, source in blocks for problem in run_python(source, first)]
    assert not wrong, wrong


def test_a_changed_value_comment_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert run_python("x = (1, 'a')\nx  # (1, 'a')\nlen('ab')  # two letters\n", 1) == []
    assert run_python("x = (1, 'a')\nx  # (1, 'b')\n", 10) == ["README.md:11: (1, 'a'), shown as (1, 'b')"]


def test_a_changed_line_of_output_fails() -> None:
    probe = next(shown for shown in SHOWN if shown.argv[1:2] == ["probe"])
    build = next(shown for shown in SHOWN if shown.argv[1:2] == ["build"])
    printed = "\n".join(probe.output) + "\n"
    assert mismatch(probe, printed) is None
    assert mismatch(probe, printed.replace("win in 1", "win in 3")) is not None
    assert mismatch(probe, "\n".join(reversed(probe.output))) is not None
    printed = "\n".join(build.output)
    assert mismatch(build, printed.replace("0.02 s", "9.99 s")) is None
    assert "765 states" in build.output[-1]
    assert mismatch(build, printed.replace("765 states", "766 states")) is not None


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """The anchors of ``page``'s headings (a repeated heading gets ``-1``, ``-2``, ... as on GitHub)."""
    seen: dict[str, int] = {}
    out: set[str] = set()
    for line in FENCE.sub("", page.read_text()).splitlines():
        heading = re.match(r"#{1,6} (.+)", line)
        if heading:
            base = slug(heading.group(1))
            count = seen.get(base, 0)
            seen[base] = count + 1
            out.add(base if count == 0 else f"{base}-{count}")
    return out


def links(page: Path) -> list[str]:
    """The relative link targets of ``page``, outside code blocks and code spans."""
    text = CODE_SPAN.sub("", FENCE.sub("", page.read_text()))
    return [target for target in LINK.findall(text) if not re.match(r"[a-z]+:", target)]


def test_slugs_are_githubs() -> None:
    assert slug("The `best_moves` view") == "the-best_moves-view"
    wrk = "http-processes-under-wrk-benchmarksservepy---wrk"
    assert slug("HTTP processes under wrk (`benchmarks/serve.py --wrk`)") == wrk
    assert slug("A worked example: take-away") == "a-worked-example-take-away"


def broken_links(page: Path) -> list[str]:
    """The relative links of ``page`` to a file that does not exist, or to a heading it lacks."""
    broken = []
    for target in links(page):
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        if not linked.exists():
            broken.append(f"{target}: no such file")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            broken.append(f"{target}: no such heading")
    return broken


@pytest.mark.parametrize("page", PAGES, ids=[page.relative_to(ROOT).as_posix() for page in PAGES])
def test_every_relative_link_leads_somewhere(page: Path) -> None:
    assert broken_links(page) == [], page.relative_to(ROOT)


def test_a_broken_link_is_found(tmp_path: Path) -> None:
    (tmp_path / "there.md").write_text("# A `heading`: here\n\n```sh\n# not a heading\n```\n")
    page = tmp_path / "page.md"
    page.write_text(
        "[ok](there.md) [ok](there.md#a-heading-here) [ok](#top) [web](https://example.org/x.md)\n"
        "[gone](missing.md) [gone](there.md#not-a-heading) `[code](in-code.md)`?\n\n# Top\n"
    )
    assert broken_links(page) == ["missing.md: no such file", "there.md#not-a-heading: no such heading"]


def test_the_index_lists_every_page() -> None:
    index = ROOT / "docs" / "index.md"
    listed = {target.partition("#")[0] for target in links(index)}
    pages = {page.name for page in (ROOT / "docs").glob("*.md")} - {"index.md"}
    assert listed - {"../README.md"} == pages
    assert "docs/index.md" in links(README)
