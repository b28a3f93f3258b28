"""Connect Four against perfect play through the server: how long each engine reply takes.

Starts ``tablebase serve`` cold (a new process, nothing proved yet) on a copy of
a tablebase file (``--db``; default a fresh one made by the README's first
command, ``tablebase build tictactoe``), times how long it takes to answer,
then plays ``--games`` games with the engine as the first player and as many
as the second. The other side plays random legal moves (``--seed``); each
engine move is the first move ``GET /api/{variant}/solve?position=P`` lists
(best first), as the web board plays it. For every engine reply it measures
the wall time the client waits and checks that the move is perfect: its value
(for the side that plays it) equals the position's value as the reply states
it. A reply that is not a move (``503``: not proved within the time limit,
or busy) counts as unanswered, and a random move is played instead. It prints
the 50th and 95th percentiles and the maximum, overall and by ply (discs on
the board), how many replies there were, how many the file answered
(``stored``), how many were unanswered or imperfect, the ``--slowest``
replies with their positions, and the server's start-up time.

    python benchmarks/connect4_play.py --games 4
    python benchmarks/connect4_play.py --db tablebase.db --variant connect4-5-4 --games 20

``--cold-compile`` gives the server an empty numba cache (``NUMBA_CACHE_DIR``),
so the compiled search is built from scratch, as on a fresh install.
``--cli`` plays through ``tablebase play`` instead (a process a game, the
random side typing its moves): each reply is timed from the move sent to the
engine's ``perfect play:`` line (the engine's first move of a game from the
start of the process), and checked the same way.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from tablebase import games

HOST = "127.0.0.1"
#: Two late 7x6 positions (28 discs from random games) whose searches are quick: the first request
#: shows what a cold server adds to a search (a worker's start, the compiled code), the second not.
LATE = ("...x.o./..ox.o./o.oo.o./o.xo.xx/xxxoxox/xooxxxo", "oo..x../xo..o../oxo.x../xxo.x../oooxxox/xoxxoox")
#: Longest wait for the server to answer after it starts, in seconds.
START_TIMEOUT = 600.0


@dataclass
class Reply:
    """One engine reply: the plies before it, the client's wait, whether it came (200), whether its move was
    perfect, whether the file held the position."""

    ply: int
    seconds: float
    answered: bool
    perfect: bool
    stored: bool
    position: str


def command() -> list[str]:
    """The ``tablebase`` command of this environment."""
    script = Path(sys.executable).with_name("tablebase")
    return [str(script)] if script.exists() else [sys.executable, "-m", "cli"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def serving(db: Path, port: int, env: dict[str, str], solvers: int | None) -> Iterator[float]:
    """``tablebase serve`` on ``db`` for the ``with`` block; yields the seconds until it answered."""
    cmd = [*command(), "serve", "--db", str(db), "--host", HOST, "--port", str(port)]
    if solvers is not None:
        cmd += ["--solvers", str(solvers)]
    began = time.perf_counter()
    server = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        while True:
            if server.poll() is not None:
                raise SystemExit(f"the server exited: {server.stderr.read().decode() if server.stderr else ''}")
            if time.perf_counter() - began > START_TIMEOUT:
                raise SystemExit(f"the server did not answer within {START_TIMEOUT:g} s")
            try:
                with urllib.request.urlopen(f"http://{HOST}:{port}/health", timeout=1):
                    break
            except OSError:
                time.sleep(0.05)
        yield time.perf_counter() - began
    finally:
        server.terminate()
        server.wait(timeout=60)


def ask(port: int, variant: str, position: str, time_limit: float) -> tuple[int, dict[str, object]]:
    """The status and JSON body of ``/api/{variant}/solve`` for ``position``."""
    query = urllib.parse.urlencode({"position": position, "time_limit": time_limit})
    try:
        with urllib.request.urlopen(f"http://{HOST}:{port}/api/{variant}/solve?{query}", timeout=time_limit + 60) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read() or b"{}")


def play(port: int, variant: str, engine_seat: int, rng: random.Random, time_limit: float, replies: list[Reply]) -> str:
    """One game, the engine in ``engine_seat`` (0 first); returns how it ended."""
    game = games.get(variant)
    state = game.initial_state()
    ply = 0
    while game.outcome(state) is None:
        position = game.format_position(state)
        if ply % 2 == engine_seat:
            began = time.perf_counter()
            status, body = ask(port, variant, position, time_limit)
            seconds = time.perf_counter() - began
            if status != 200:
                print(f"  ply {ply}: {status} {body.get('detail')} after {seconds:.1f} s; a random move instead")
                replies.append(Reply(ply, seconds, False, False, False, position))
                state = rng.choice(game.children(state))[1]
            else:
                moves = body["moves"]
                assert isinstance(moves, list) and moves
                best = moves[0]
                perfect = (best["outcome"], best["distance"]) == (body["outcome"], body["distance"])
                replies.append(Reply(ply, seconds, True, perfect, bool(body["stored"]), position))
                state = game.parse_position(best["position"])
        else:
            state = rng.choice(game.children(state))[1]
        ply += 1
    return f"{game.outcome(state)} for {game.to_move(state)} after {ply} plies"


def play_cli(
    db: Path, variant: str, engine_seat: int, rng: random.Random, replies: list[Reply], env: dict[str, str]
) -> str:
    """One game of ``tablebase play`` (a new process, the human's side random moves), the engine in
    ``engine_seat``; each reply timed from the move sent (from the start of the process for a first move)
    to the engine's ``perfect play:`` line. Returns how it ended."""
    game = games.get(variant)
    side = "second" if engine_seat == 0 else "first"
    cmd = [*command(), "play", variant, "--as", side, "--db", str(db)]
    proc = subprocess.Popen(cmd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert proc.stdin is not None and proc.stdout is not None
    pending, position, value, searched = "", "", "", False
    sent = time.perf_counter()
    try:
        while chunk := os.read(proc.stdout.fileno(), 65536):
            *lines, pending = (pending + chunk.decode()).split("\n")
            for line in lines:
                if line == "searching...":
                    searched = True
                elif line.startswith("game over"):
                    return line
                elif " to move, " in line:
                    position, value = line.split(": ", 1)[0], line.split(" to move, ", 1)[1]
                elif line.startswith("perfect play: "):
                    made = line[line.index("(") + 1 : line.rindex(")")]
                    ply = game.plies_played(game.parse_position(position)) or 0
                    replies.append(Reply(ply, time.perf_counter() - sent, True, made == value, not searched, position))
            if pending.endswith("your move: "):
                pending, searched = "", False
                move = rng.choice(game.children(game.parse_position(position)))[0]
                sent = time.perf_counter()
                proc.stdin.write(f"{game.format_move(move)}\n".encode())
                proc.stdin.flush()
        raise SystemExit(f"tablebase play stopped: {pending.strip()[-200:]}")
    finally:
        proc.kill()
        proc.wait()


def play_games(count: int, one: Callable[[int], str]) -> None:
    """``count`` games with the engine first, then as many with it second; ``one(seat)`` plays a game."""
    for number in range(2 * count):
        seat = number // count
        began = time.perf_counter()
        ended = one(seat)
        side = "first" if seat == 0 else "second"
        print(f"game {number + 1}: engine {side}, {ended} ({time.perf_counter() - began:.1f} s)", flush=True)


def percentile(values: list[float], share: float) -> float:
    """The nearest-rank percentile ``share`` (0..1) of ``values``."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered) + 0.5) - 1))]


def summary(label: str, replies: list[Reply]) -> str:
    seconds = [r.seconds for r in replies]
    return (
        f"{label:>8} {len(replies):>7} {percentile(seconds, 0.5):>8.3f} {percentile(seconds, 0.95):>8.3f}"
        f" {max(seconds):>8.3f} {sum(r.stored for r in replies):>7} {sum(not r.answered for r in replies):>10}"
        f" {sum(r.answered and not r.perfect for r in replies):>9}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", type=Path, help="tablebase file to copy (default: a fresh `tablebase build tictactoe`)")
    parser.add_argument("--variant", default="connect4")
    parser.add_argument("--games", type=int, default=20, help="games with the engine first, and as many second")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--time-limit", type=float, default=30.0, help="seconds each /solve may search (capped at 30)")
    parser.add_argument("--solvers", type=int, help="the server's --solvers (default: its own)")
    parser.add_argument("--cli", action="store_true", help="play through `tablebase play` (a process a game), no server")
    parser.add_argument("--slowest", type=int, default=5, help="list this many slowest replies with their positions")
    parser.add_argument("--cold-compile", action="store_true", help="give the server an empty numba cache")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as work:
        db = Path(work) / "tablebase.db"
        if args.db is None:
            subprocess.run([*command(), "build", "tictactoe", "--db", str(db)], check=True, capture_output=True)
        else:
            shutil.copy(args.db, db)
        env = dict(os.environ)
        if args.cold_compile:
            env["NUMBA_CACHE_DIR"] = str(Path(work) / "numba")
        replies: list[Reply] = []
        if args.cli:
            play_games(args.games, lambda seat: play_cli(db, args.variant, seat, rng, replies, env))
            report(args, replies)
            return
        port = free_port()
        with serving(db, port, env, args.solvers) as start:
            print(f"server ready after {start:.2f} s ({'empty numba cache' if args.cold_compile else 'numba cache as found'})")
            if args.variant == "connect4":
                for label, position in zip(("first request", "second request"), LATE):
                    began = time.perf_counter()
                    status, _ = ask(port, args.variant, position, args.time_limit)
                    print(f"{label} (a late position, {status}): {time.perf_counter() - began:.2f} s", flush=True)
            play_games(args.games, lambda seat: play(port, args.variant, seat, rng, args.time_limit, replies))
    report(args, replies)
    print(f"server start-up until ready: {start:.2f} s")


def report(args: argparse.Namespace, replies: list[Reply]) -> None:
    """The latency table by ply and overall, and the slowest replies."""
    if replies:
        print(f"\n{args.variant}, {2 * args.games} games, reply latency in seconds (client wall time)")
        print(f"{'ply':>8} {'replies':>7} {'p50':>8} {'p95':>8} {'max':>8} {'stored':>7} {'unanswered':>10} {'imperfect':>9}")
        for ply in sorted({r.ply for r in replies}):
            print(summary(str(ply), [r for r in replies if r.ply == ply]))
        print(summary("all", replies))
        print("slowest replies:")
        for reply in sorted(replies, key=lambda r: -r.seconds)[: args.slowest]:
            print(f"  {reply.seconds:8.3f} s  ply {reply.ply:>2}  {reply.position}")


if __name__ == "__main__":
    main()
