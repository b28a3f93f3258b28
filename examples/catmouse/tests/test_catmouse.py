"""The cat and mouse plugin: registered through its entry point, checked by tablebase's own checks,
cross-checked against a solver written here from the puzzle's rules, and through the command line."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

import tablebase
from catmouse import HOUSE, HOUSE_PLACES, RING, RING_MIRROR, RING_PLACES, CatMouse
from tablebase import testing

VARIANTS = ("catmouse", "catmouse-small", "catmouse-ring")
#: The walk-through of this example in the project's documentation.
DOC = Path(__file__).resolve().parents[3] / "docs" / "games.md"
#: The command line installed next to this interpreter.
TABLEBASE = str(Path(sys.executable).with_name("tablebase"))


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("catmouse") / "t.db"
    with tablebase.open(path) as tb:
        for name in VARIANTS:
            tb.build(name)
    return path


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([TABLEBASE, *args], capture_output=True, text=True, check=False)


def test_registered_through_the_entry_point() -> None:
    listed = {v.variant: v for v in tablebase.registered_variants()}
    assert {(listed[name].package, listed[name].family) for name in VARIANTS} == {("tablebase-catmouse", "catmouse")}


@pytest.mark.parametrize("name", VARIANTS)
def test_rules_pass_the_shared_checks(name: str) -> None:
    # includes unmoves (every parent listed, none where the game was over) and the wheel's mirror
    testing.check_game(name, playouts=40)


@pytest.mark.parametrize("name", VARIANTS)
def test_built_variant_passes_the_shared_checks(tmp_path: Path, name: str) -> None:
    # build, verify (every label re-derived from its children), then random games through probe and play
    testing.check_built(name, tmp_path / "checked.db", playouts=20)


def reference(edges: list[tuple[int, int]], mouse: int, cat: int) -> dict[tuple[int, int, int], str]:
    """The puzzle solved as it is usually stated, by a fixpoint over (mouse, cat, turn), turn 0 the
    mouse's: the mouse may step onto the cat (and is caught), the cat may not enter the hole 0, a
    player without a move loses. Each position reachable from the start, with who wins it: "mouse",
    "cat", or "-" for a draw. Shares no code with the plugin or the solver."""
    around: dict[int, list[int]] = {}
    for a, b in edges:
        around.setdefault(a, []).append(b)
        around.setdefault(b, []).append(a)

    def children(node: tuple[int, int, int]) -> list[tuple[int, int, int]]:
        m, c, turn = node
        if m == 0 or m == c:
            return []
        if turn == 0:
            return [(to, c, 1) for to in around[m]]
        return [(m, to, 0) for to in around[c] if to != 0]

    graph: dict[tuple[int, int, int], list[tuple[int, int, int]]] = {}
    todo = [(mouse, cat, 0)]
    while todo:
        node = todo.pop()
        if node not in graph:
            graph[node] = children(node)
            todo.extend(graph[node])
    mover = ("mouse", "cat")
    over: dict[tuple[int, int, int], str] = {}
    for node, kids in graph.items():
        m, c, turn = node
        if m == c:
            over[node] = "cat"
        elif m == 0:
            over[node] = "mouse"
        elif not kids:
            over[node] = mover[1 - turn]
    winner = testing.winners(graph, over, lambda node: (mover[node[2]], mover[1 - node[2]]))
    return {node: winner.get(node, "-") for node in graph}


@pytest.mark.parametrize("name", VARIANTS)
def test_every_live_position_agrees_with_the_reference_solver(db: Path, name: str) -> None:
    with tablebase.open(db) as tb:
        table = tb.variant(name)
        game = table.game
        solved = reference(game.edges, *game.start)
        keys = set()
        for (m, c, turn), winner in solved.items():
            if m == 0 or m == c:
                continue  # over: the puzzle also lets the mouse step onto the cat, which is no move here
            board = "".join("c" if node == c else "m" if node == m else "." for node in range(game.nodes))
            side = ("mouse", "cat")[turn]
            probe = table.probe(f"{board} {side}")
            want = "draw" if winner == "-" else "win" if winner == side else "loss"
            assert probe.outcome == want, (probe.position, probe.outcome, want)
            assert (probe.distance is None) == (want == "draw"), probe.position
            keys.add(table.key(probe.position).key)
        # the same positions on both sides: every stored one with the mouse neither in the hole nor caught
        boards = {row[1]: row[1].split()[0] for row in table.rows()}
        stored = {key for key, board in boards.items() if board[0] != "m" and "m" in board}
    assert keys == stored


def test_the_puzzles_examples_and_the_wheel_by_hand(db: Path) -> None:
    with tablebase.open(db) as tb:
        house, path, ring = (tb.variant(name) for name in VARIANTS)
        # the puzzle's first example: a draw; its second: the mouse runs into the hole at once
        start = house.probe()
        assert (start.position, start.to_move, start.outcome, start.distance) == (".mc... mouse", "mouse", "draw", None)
        assert [(m.move, m.outcome) for m in start.moves] == [("1-3", "draw")]  # the mouse's only step
        small = path.probe()
        assert (small.outcome, small.distance, small.best_move and small.best_move.move) == ("win", 1, "1-hole")
        # the mouse next to the hole steps in; a mouse whose only neighbour holds the cat has lost
        near = house.probe("...c.m mouse")
        assert (near.outcome, near.distance) == ("win", 1)
        shut_in = house.probe(".m.c.. mouse")
        assert (shut_in.terminal, shut_in.outcome, shut_in.moves) == (True, "loss", ())
        # so the cat wins at once by stepping next to a mouse in the corner (4-3 shuts it in)
        corner = house.probe(".m..c. cat")
        assert (corner.outcome, corner.distance, corner.best_move and corner.best_move.move) == ("win", 1, "4-3")
        # the cat cannot reach node 2 from node 3: the mouse there goes into the hole next
        late = house.probe("..mc.. cat")
        assert (late.outcome, late.distance) == ("loss", 2)
        # the wheel: the cat's only step from the centre is down (it may not enter the hole), so the
        # mouse runs up either side of the ring, three steps: 3-2 6-3 2-1 (any) 1-hole, or its mirror image
        start = ring.probe()
        assert (start.position, start.outcome, start.distance) == ("...m..c mouse", "win", 5)
        assert [(m.move, m.outcome, m.distance) for m in start.moves] == [("3-2", "win", 5), ("3-4", "win", 5)]
        run = ring.line()
        assert (run.outcome, run.moves[:3], run.moves[4]) == ("win", ("3-2", "6-3", "2-1"), "1-hole")
        assert [m.move for m in ring.probe("..m...c cat").moves] == ["6-3"]
        # a position and its mirror image in the spoke are stored once
        assert ring.key("....m.c cat").key == ring.key("..m...c cat").key
        with pytest.raises(tablebase.IllegalMoveError, match="'3-6'"):
            ring.play("...m..c mouse", "3-6")  # the cat is there


def test_the_wheels_counts_are_the_same_with_and_without_its_mirror() -> None:
    # the start is its own mirror image, so each ply's positions are the same either way
    counts = [
        [(p.ply, p.positions, p.classes) for p in tablebase.count("catmouse-ring", symmetry=reduced).plies]
        for reduced in (True, False)
    ]
    assert counts[0] == counts[1]
    # and they are the positions the reference solver reaches, but for a mouse that stepped onto the cat
    game = CatMouse("catmouse-ring", RING, RING_PLACES, mouse=3, cat=6, mirrors=[RING_MIRROR])
    reached = [node for node in reference(game.edges, *game.start) if not (node[0] == node[1] and node[2] == 1)]
    assert sum(positions for _, positions, _ in counts[0]) == len(reached) == 34


def test_the_command_line_probes_and_plays_a_line(db: Path) -> None:
    probe = cli("probe", "catmouse", "--db", str(db))
    assert probe.returncode == 0, probe.stderr
    assert ".mc... mouse: mouse to move, perpetual draw" in probe.stdout
    data = json.loads(cli("probe", "catmouse", "--json", "--db", str(db)).stdout)
    assert (data["outcome"], data["distance"], data["to_move"]) == ("draw", None, "mouse")
    line = cli("line", "catmouse", "--db", str(db)).stdout
    assert line.startswith(".mc... mouse: draw\n") and "(position repeats: perpetual play)" in line
    with tablebase.open(db) as tb:  # the wheel has a mirror symmetry, the other two graphs none
        assert {info.name: info.symmetry for info in tb.variants()} == {
            "catmouse": False, "catmouse-ring": True, "catmouse-small": False,
        }
    # playing the cat: perfect play moves the mouse first
    played = subprocess.run(
        [TABLEBASE, "play", "catmouse", "--as", "cat", "--db", str(db)], input="quit\n", capture_output=True, text=True
    )
    assert played.returncode == 0 and "you play cat" in played.stdout and "perfect play: 1-3" in played.stdout
    bad = cli("probe", "catmouse", "c.m... mouse", "--db", str(db))
    assert bad.returncode == 1 and bad.stderr.strip().splitlines() == [
        "error: invalid position 'c.m... mouse': the cat may not enter the hole (the first node)"
    ]


def test_unmoves_leave_out_parents_where_the_game_was_over() -> None:
    game = CatMouse("catmouse", HOUSE, HOUSE_PLACES)
    # the mouse on node 5 came from node 2 (node 3 holds the cat); from the hole it could not have come
    parents = game.unmoves(game.parse_position("...c.m cat"))
    assert [(game.format_position(p), game.format_move(m)) for p, m in parents] == [("..mc.. mouse", "2-5")]


def test_states_only_storage_derives_the_moves_backwards(tmp_path: Path) -> None:
    # a states-only build keeps no moves: verify and predecessors come from the rules (unmoves)
    with tablebase.open(tmp_path / "s.db") as tb:
        tb.build("catmouse", storage="states")
        assert tb.verify("catmouse").ok
        before = tb.variant("catmouse").predecessors("..cm.. cat")
    # the mouse reached node 3 from node 1, 4 or 5
    assert [(p.position, p.move) for p in before] == [("..c..m mouse", "5-3"), ("..c.m. mouse", "4-3"), (".mc... mouse", "1-3")]


@pytest.mark.skipif(not DOC.exists(), reason="the project's docs are not next to this example")
def test_the_documentation_shows_what_the_commands_print(db: Path) -> None:
    shown = next(b for b in re.findall(r"^```console\n(.*?)^```$", DOC.read_text(), re.M | re.S) if "catmouse" in b)
    commands = re.split(r"^\$ ", shown, flags=re.M)[1:]
    assert len(commands) == 4
    for command in commands:
        line, _, output = command.partition("\n")
        args = shlex.split(line)
        assert args[0] == "tablebase"
        assert cli(*args[1:], "--db", str(db)).stdout == output, line
