"""Throughput and latency of the HTTP API: ``GET /api/{variant}?position=...`` over loopback.

Starts ``tablebase serve`` (this checkout's CLI) as a subprocess on 127.0.0.1,
then this process sends a bounded number of probe requests over a few
keep-alive HTTP/1.1 connections (a minimal asyncio client, so the load
generator costs little next to the server) and prints requests per second and
latency percentiles. Positions are drawn from random games through the
variant's rules, so every one is reachable and a real database lookup.

    python benchmarks/serve.py --db tablebase.db                 # tictactoe, and mnk-4-4-4 or mnk-4-3-3
    python benchmarks/serve.py --db tb.db --variant mnk-4-4-4 --requests 10000 --concurrency 8

With ``--searches N`` it measures instead what on-demand searches do to
probes: probe latency (p50, p99, max) idle, then while N clients each run
``/api/ultimate-classic/solve`` searches (positions the search cannot finish
within ``--search-seconds``, so they run their whole time), and the resident
memory of the server process and of its search workers before and after:

    python benchmarks/serve.py --db tablebase.db --searches 2 --solvers 1

It also reports the server's CPU time per request (from ``/proc``; steadier than
wall-clock figures when other work shares the cores) and, for comparison, the
same probes in process (``VariantTable.probe``), the floor the HTTP layer adds to.
The memory columns are the whole process tree (every HTTP process, the search
workers); after the last search the tree is sampled for ``--settle`` seconds.

With ``--wrk`` the load comes from ``wrk`` (a C load generator; Debian's
package, not pip: ``apt-get install -y wrk``): random positions of a built
variant (use a packed or dense one), 64 keep-alive connections, against
``tablebase serve --workers 1`` and then ``--workers 2`` (or ``--workers``
as given) in the same run; it prints requests per second, latency
percentiles, errors and the ratio to the first run, then where the time of a
request goes in one process (parse, probe, JSON, the framework, and the HTTP
server and sockets: the server's CPU per request less the rest):

    apt-get install -y wrk
    tablebase build mnk-4-3-3 --storage packed --db tb.db
    python benchmarks/serve.py --db tb.db --wrk --variant mnk-4-3-3 --duration 10 --repeat 2

``--repeat N`` alternates the runs (1, 2, 1, 2, ...) and shows the best of each,
since other work on a shared machine only ever slows a run down.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import random
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import tablebase  # noqa: E402
from tablebase import games  # noqa: E402

HOST = "127.0.0.1"


def sample_positions(variant: str, count: int, seed: int = 1) -> list[str]:
    """Up to ``count`` distinct positions met in random games of ``variant`` (start included)."""
    game = games.get(variant)
    rng = random.Random(seed)
    seen: dict[str, None] = {}
    for _ in range(count * 20):
        state = game.initial_state()
        seen[game.format_position(state)] = None
        for _ in range(200):
            if game.outcome(state) is not None:
                break
            state = game.apply(state, rng.choice(game.legal_moves(state)))
            seen[game.format_position(state)] = None
        if len(seen) >= count:
            break
    return list(seen)[:count]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def start_server(db: Path, port: int, solvers: int | None = None, workers: int = 1) -> subprocess.Popen[bytes]:
    """``tablebase serve`` in a subprocess; returns once it answers."""
    cmd = [sys.executable, "-m", "cli.main", "serve", "--db", str(db.resolve()), "--host", HOST, "--port", str(port)]
    cmd += ["--workers", str(workers)]
    if solvers is not None:
        cmd += ["--solvers", str(solvers)]
    server = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"the server exited: {server.stderr.read().decode() if server.stderr else ''}")
        try:
            with urllib.request.urlopen(f"http://{HOST}:{port}/api/variants", timeout=1):
                return server
        except OSError:
            time.sleep(0.1)
    server.terminate()
    raise SystemExit("the server did not answer within 30 s")


@contextlib.contextmanager
def serving(db: Path, port: int, solvers: int | None = None, workers: int = 1) -> Iterator[subprocess.Popen[bytes]]:
    """:func:`start_server` for the ``with`` block; stops it after."""
    server = start_server(db, port, solvers, workers)
    try:
        yield server
    finally:
        server.terminate()
        server.wait(timeout=30)


def print_json(rows: list[dict[str, Any]]) -> None:
    """Each row as a line of JSON."""
    for row in rows:
        print(json.dumps(row))


async def load(port: int, paths: list[str], total: int, concurrency: int) -> tuple[list[float], float]:
    """Send ``total`` GETs of ``paths`` (cycled) over ``concurrency`` connections; latencies in s, wall time."""
    latencies: list[float] = []
    next_index = iter(range(total))

    async def client() -> None:
        reader, writer = await asyncio.open_connection(HOST, port)
        try:
            for i in next_index:
                request = f"GET {paths[i % len(paths)]} HTTP/1.1\r\nHost: {HOST}\r\n\r\n".encode()
                t0 = time.perf_counter()
                writer.write(request)
                head = await reader.readuntil(b"\r\n\r\n")
                status = head[9:12]
                length = 0
                for line in head.split(b"\r\n"):
                    if line[:15].lower() == b"content-length:":
                        length = int(line[15:])
                await reader.readexactly(length)
                latencies.append(time.perf_counter() - t0)
                if status != b"200":
                    raise RuntimeError(f"{paths[i % len(paths)]}: HTTP {status.decode()}")
        finally:
            writer.close()

    start = time.perf_counter()
    await asyncio.gather(*(client() for _ in range(concurrency)))
    return latencies, time.perf_counter() - start


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of process ``pid`` (Linux ``/proc``), or ``None`` elsewhere."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> float | None:
    """Resident memory of process ``pid`` in MB (Linux ``/proc``), or ``None``."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def children(pid: int) -> list[int]:
    """Descendants of ``pid`` (Linux ``/proc``): HTTP processes and search workers."""
    direct = []
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():  # every thread: the search pool starts workers from its own
            direct += [int(c) for c in (task / "children").read_text().split()]
    except OSError:
        return []
    return [*direct, *(grandchild for child in direct for grandchild in children(child))]


def memory(pid: int) -> dict[str, object]:
    workers = [m for m in (rss_mb(c) for c in children(pid)) if m is not None]
    server = rss_mb(pid)
    tree = round((server or 0) + sum(workers), 1)
    return {"server_mb": server, "workers": len(workers), "workers_mb": round(sum(workers), 1), "tree_mb": tree}


async def timed_probes(port: int, paths: list[str], seconds: float, concurrency: int, most: int) -> list[float]:
    """Probe latencies of ``concurrency`` clients for ``seconds`` (at most ``most`` requests)."""
    stop = time.perf_counter() + seconds
    latencies: list[float] = []

    async def client(offset: int) -> None:
        i = offset
        while time.perf_counter() < stop and len(latencies) < most:
            done, _ = await load(port, [paths[i % len(paths)]], 1, 1)
            latencies.extend(done)
            i += concurrency

    await asyncio.gather(*(client(k) for k in range(concurrency)))
    return sorted(latencies)


async def search(port: int, path: str, seconds: float) -> tuple[str, float]:
    """One ``/solve`` request; its status and duration."""
    reader, writer = await asyncio.open_connection(HOST, port)
    t0 = time.perf_counter()
    try:
        writer.write(f"GET {path} HTTP/1.1\r\nHost: {HOST}\r\n\r\n".encode())
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), seconds + 30)
        return head[9:12].decode(), time.perf_counter() - t0
    finally:
        writer.close()


async def during_searches(
    port: int, paths: list[str], searches: list[str], seconds: float, concurrency: int, most: int, pid: int
) -> tuple[list[float], list[tuple[str, float]], dict[str, object]]:
    """Probe latencies while ``searches`` run, their answers, and the memory near their end."""
    started = [asyncio.create_task(search(port, path, seconds)) for path in searches]
    await asyncio.sleep(0.5)  # the searches are under way
    latencies = await timed_probes(port, paths, seconds - 1.0, concurrency, most)
    during = memory(pid)
    return latencies, list(await asyncio.gather(*started)), during


def summary(latencies: list[float]) -> dict[str, float | int]:
    return {
        "probes": len(latencies),
        "p50_ms": round(percentile(latencies, 0.50) * 1000, 2),
        "p99_ms": round(percentile(latencies, 0.99) * 1000, 2),
        "max_ms": round(latencies[-1] * 1000, 2),
    }


def bench_searches(db: Path, args: argparse.Namespace) -> None:
    """Probe latency idle and during ``args.searches`` concurrent searches; memory before and after."""
    variant = (args.variant or ["tictactoe"])[0]
    paths = [f"/api/{variant}?position={quote(p, safe='')}" for p in sample_positions(variant, 1000)]
    game = games.get("ultimate-classic")
    openings = [game.format_position(game.apply(game.initial_state(), m)) for m in game.legal_moves(game.initial_state())]
    port = free_port()
    rows = []
    with serving(db, port, args.solvers, args.workers or 1) as server:
        asyncio.run(load(port, paths, 500, 2))  # warm-up
        before = memory(server.pid)
        idle = asyncio.run(timed_probes(port, paths, args.search_seconds - 1.0, args.clients, 20_000))
        rows.append({"phase": "idle", **summary(idle), **before})
        for round_ in range(args.rounds):
            chosen = openings[round_ * args.searches : (round_ + 1) * args.searches]
            searches = [
                f"/api/ultimate-classic/solve?position={quote(p, safe='')}&time_limit={args.search_seconds:g}"
                for p in chosen
            ]
            busy, answers, during = asyncio.run(
                during_searches(port, paths, searches, args.search_seconds, args.clients, 20_000, server.pid)
            )
            statuses = ", ".join(sorted(f"{code} in {took:.1f} s" for code, took in answers))
            rows.append({"phase": f"search {round_ + 1} ({statuses})", **summary(busy), **during})
        time.sleep(1.0)
        after = asyncio.run(timed_probes(port, paths, 2.0, args.clients, 20_000))
        rows.append({"phase": "after", **summary(after), **memory(server.pid)})
        ended = time.monotonic() - 3.0
        for mark in (5, 15, args.settle):
            if mark > args.settle or mark < time.monotonic() - ended:
                continue
            time.sleep(max(0.0, ended + mark - time.monotonic()))
            rows.append({"phase": f"{mark:g} s after the last search", "probes": 0, "p50_ms": "-", "p99_ms": "-",
                         "max_ms": "-", **memory(server.pid)})
    if args.json:
        print_json(rows)
        return
    print(
        f"# {platform.python_version()}, {os.cpu_count()} CPUs; probes of {variant} by {args.clients} clients; "
        f"{args.searches} concurrent /solve of {args.search_seconds:g} s per round, --solvers {args.solvers}"
    )
    print("| phase | probes | p50 ms | p99 ms | max ms | server RSS MB | child processes | their RSS MB | tree MB |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        server_mb = r["server_mb"]
        shown = "-" if server_mb is None else f"{server_mb:.0f}"
        print(
            f"| {r['phase']} | {r['probes']:,} | {r['p50_ms']} | {r['p99_ms']} | {r['max_ms']} "
            f"| {shown} | {r['workers']} | {r['workers_mb']} | {r['tree_mb']:.0f} |"
        )
    first, last = rows[0]["tree_mb"], rows[-1]["tree_mb"]
    print(f"tree memory: {first:.0f} MB before the searches, {last:.0f} MB at the end ({last - first:+.0f} MB)")


WRK_SCRIPT = """
local paths = {}
for line in io.lines("%s") do paths[#paths + 1] = line end
local thread_seed = 0
function setup(thread)
  thread_seed = thread_seed + 1
  thread:set("seed", thread_seed)
end
function init(args)
  math.randomseed(seed or 1)
end
function request()
  return wrk.format("GET", paths[math.random(#paths)])
end
"""


def wrk_seconds(text: str) -> float:
    """``12.5ms`` -> 0.0125 (wrk's units: us, ms, s, m)."""
    for unit, scale in (("us", 1e-6), ("ms", 1e-3), ("m", 60.0), ("s", 1.0)):
        if text.endswith(unit):
            return float(text[: -len(unit)]) * scale
    return float(text)


def run_wrk(port: int, script: Path, connections: int, threads: int, seconds: float) -> dict[str, float]:
    """One ``wrk --latency`` run; requests per second, latency percentiles (ms) and errors."""
    out = subprocess.run(
        ["wrk", f"-t{threads}", f"-c{connections}", f"-d{seconds:g}s", "--latency", "-s", str(script),
         f"http://{HOST}:{port}"],
        capture_output=True, text=True, check=True,
    ).stdout
    row: dict[str, float] = {"errors": 0}
    for line in out.splitlines():
        words = line.split()
        if line.startswith("Requests/sec:"):
            row["requests_per_second"] = float(words[1])
        elif len(words) == 2 and words[0] in ("50%", "90%", "99%"):
            row[f"p{words[0][:-1]}_ms"] = round(wrk_seconds(words[1]) * 1000, 2)
        elif "requests in" in line:
            row["requests"] = int(words[0])
        elif line.strip().startswith("Non-2xx or 3xx responses:"):
            row["errors"] += int(words[-1])
        elif line.strip().startswith("Socket errors:"):
            row["errors"] += sum(int(w.rstrip(",")) for w in words[2:] if w.rstrip(",").isdigit())
    return row


def tree_cpu(pid: int) -> float:
    """CPU seconds of ``pid`` and its descendants."""
    return sum(cpu_seconds(p) or 0.0 for p in [pid, *children(pid)])


def breakdown(db: Path, variant: str, positions: list[str], rounds: int = 3) -> dict[str, float]:
    """Microseconds per request in one process: parse, probe (less the parse), JSON, the app
    around them (FastAPI/Starlette and its middleware, the ETag; called without sockets), each the best of ``rounds``, in
    processor time (steadier than wall time on a shared machine)."""
    from tablebase.serve import create_app

    paths = [f"/api/{variant}?position={quote(p, safe='')}" for p in positions]
    best: dict[str, float] = {}

    def keep(name: str, seconds: float) -> None:
        best[name] = min(best.get(name, float("inf")), seconds / len(positions) * 1e6)

    with tablebase.open(db) as tb:
        table = tb.variant(variant)
        app = create_app(tb)
        probes = [table.probe(p) for p in positions]

        async def through_app() -> None:
            async def receive() -> dict[str, object]:
                return {"type": "http.request", "body": b"", "more_body": False}

            async def send(message: dict[str, object]) -> None:
                return None

            for path in paths:
                target, _, query = path.partition("?")
                scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET",
                         "scheme": "http", "path": target, "raw_path": target.encode(), "root_path": "",
                         "query_string": query.encode(), "headers": [(b"host", b"127.0.0.1")],
                         "client": ("127.0.0.1", 1), "server": ("127.0.0.1", 80)}
                await app(scope, receive, send)

        for _ in range(rounds):
            t0 = time.process_time()
            for p in positions:
                table.parse(p)
            keep("parse", time.process_time() - t0)
            t0 = time.process_time()
            for p in positions:
                table.probe(p)
            keep("probe_total", time.process_time() - t0)
            t0 = time.process_time()
            for probe in probes:
                json.dumps(probe.to_dict()).encode()
            keep("json", time.process_time() - t0)
            t0 = time.process_time()
            asyncio.run(through_app())
            keep("app", time.process_time() - t0)
    best["probe"] = best.pop("probe_total") - best["parse"]
    best["framework"] = best["app"] - best["parse"] - best["probe"] - best["json"]
    return best


def bench_wrk(db: Path, args: argparse.Namespace) -> None:
    """Requests per second and latency under ``wrk`` for ``--workers 1`` then each of ``args.workers``."""
    import shutil
    import tempfile

    if shutil.which("wrk") is None:
        raise SystemExit("wrk is not installed: apt-get install -y wrk (Debian's package)")
    with tablebase.open(db) as tb:
        infos = {info.name: info for info in tb.variants()}
    variant = (args.variant or [next((n for n, i in infos.items() if i.storage in ("packed", "dense")), "")])[0]
    if variant not in infos:
        raise SystemExit(f"no packed or dense variant built in {db}; see the docstring")
    positions = sample_positions(variant, 2000)
    counts = [1, *[n for n in (args.workers_list or [2]) if n != 1]]
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        listing = Path(folder) / "paths.txt"
        listing.write_text("".join(f"/api/{variant}?position={quote(p, safe='')}\n" for p in positions))
        script = Path(folder) / "probe.lua"
        script.write_text(WRK_SCRIPT % listing)
        runs = [workers for _ in range(args.repeat) for workers in counts]  # alternating: 1, 2, 1, 2, ...
        for workers in runs:
            port = free_port()
            with serving(db, port, workers=workers) as server:
                run_wrk(port, script, args.connections, args.threads, 2)  # warm-up: every process, every cache
                cpu = tree_cpu(server.pid)
                each = {p: cpu_seconds(p) or 0.0 for p in [server.pid, *children(server.pid)]}
                row = run_wrk(port, script, args.connections, args.threads, args.duration)
                row["cpu_us_per_request"] = round((tree_cpu(server.pid) - cpu) / max(1, row["requests"]) * 1e6)
                used = sorted(((cpu_seconds(p) or 0.0) - was for p, was in each.items()), reverse=True)
                row["cpu_split"] = "/".join(f"{u:.1f}" for u in used[:workers])
                row["workers"] = workers
                rows.append(row)
    best: dict[int, dict[str, Any]] = {}
    for row in rows:  # the best run of each --workers: other work on the machine only slows runs down
        kept = best.get(int(row["workers"]))
        if kept is None or row["requests_per_second"] > kept["requests_per_second"]:
            best[int(row["workers"])] = row
    rows = [best[workers] for workers in counts]
    cost = breakdown(db, variant, positions[:500])
    if args.json:
        print_json([*rows, {"breakdown_us": cost}])
        return
    print(
        f"# {platform.python_version()}, {os.cpu_count()} CPUs (shared with other work: figures are noisy); "
        f"wrk -t{args.threads} -c{args.connections} -d{args.duration:g}s, best of {args.repeat} alternating run(s), "
        f"random probes of {variant} "
        f"({infos[variant].storage}, {len(positions):,} positions)"
    )
    print("| --workers | requests | req/s | vs 1 | p50 ms | p90 ms | p99 ms | errors | server CPU us/req | CPU s by process |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    base = rows[0]["requests_per_second"]
    for r in rows:
        print(
            f"| {r['workers']} | {r['requests']:,} | {r['requests_per_second']:,.0f} | "
            f"{r['requests_per_second'] / base:.2f}x | {r['p50_ms']} | {r['p90_ms']} | {r['p99_ms']} | "
            f"{r['errors']:.0f} | {r['cpu_us_per_request']} | {r['cpu_split']} |"
        )
    server_cpu = rows[0]["cpu_us_per_request"]
    print(f"\nwhere a request's time goes (one process, us; best of 3 over {min(500, len(positions))} positions):")
    print("| parse | probe | JSON | framework, ETag, middleware | HTTP server and sockets | total (server CPU per request) |")
    print("|---:|---:|---:|---:|---:|---:|")
    rest = server_cpu - cost["app"]
    print(
        f"| {cost['parse']:.0f} | {cost['probe']:.0f} | {cost['json']:.0f} | {cost['framework']:.0f} "
        f"| {rest:.0f} | {server_cpu} |"
    )


def percentile(sorted_values: list[float], q: float) -> float:
    return sorted_values[min(len(sorted_values) - 1, int(q * len(sorted_values)))]


def bench_variant(
    db: Path, server: subprocess.Popen[bytes], port: int, variant: str, requests: int, concurrency: int
) -> dict[str, object]:
    positions = sample_positions(variant, 1000)
    paths = [f"/api/{variant}?position={quote(p, safe='')}" for p in positions]
    with tablebase.open(db) as tb:
        table = tb.variant(variant)
        t0 = time.perf_counter()
        for p in positions:
            table.probe(p)
        in_process = len(positions) / (time.perf_counter() - t0)
    asyncio.run(load(port, paths, min(500, requests), concurrency))  # warm-up, not counted
    cpu_before = cpu_seconds(server.pid)
    latencies, wall = asyncio.run(load(port, paths, requests, concurrency))
    cpu_after = cpu_seconds(server.pid)
    latencies.sort()
    server_cpu = None if cpu_before is None or cpu_after is None else (cpu_after - cpu_before) / len(latencies)
    return {
        "variant": variant,
        "positions": len(positions),
        "requests": len(latencies),
        "concurrency": concurrency,
        "seconds": round(wall, 3),
        "requests_per_second": round(len(latencies) / wall),
        "p50_ms": round(percentile(latencies, 0.50) * 1000, 3),
        "p90_ms": round(percentile(latencies, 0.90) * 1000, 3),
        "p99_ms": round(percentile(latencies, 0.99) * 1000, 3),
        "max_ms": round(latencies[-1] * 1000, 3),
        "mean_ms": round(statistics.fmean(latencies) * 1000, 3),
        "server_cpu_us_per_request": None if server_cpu is None else round(server_cpu * 1e6),
        "in_process_probes_per_second": round(in_process),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", type=Path, default=Path(tablebase.DEFAULT_DB), help="tablebase file")
    parser.add_argument("--variant", action="append", help="variant to probe (repeatable)")
    parser.add_argument("--requests", type=int, default=10_000, help="requests per run (at most 100,000)")
    parser.add_argument("--concurrency", type=int, action="append", help="connections (repeatable; default 1 and 8)")
    parser.add_argument("--json", action="store_true", help="print JSON lines instead of a table")
    parser.add_argument("--searches", type=int, default=0, help="concurrent /solve clients (1..8; 0: throughput run)")
    parser.add_argument("--search-seconds", type=float, default=8.0, help="time limit of each search (2..30)")
    parser.add_argument("--rounds", type=int, default=2, help="rounds of searches (1..4)")
    parser.add_argument("--clients", type=int, default=2, help="probe clients during the search run (1..8)")
    parser.add_argument("--solvers", type=int, help="the server's --solvers")
    parser.add_argument("--workers", type=int, help="the server's --workers in the search run (default 1)")
    parser.add_argument("--settle", type=float, default=30.0, help="seconds the search run samples memory after (0..60)")
    parser.add_argument("--wrk", action="store_true", help="load from wrk: --workers 1 against the --workers-list")
    parser.add_argument("--workers-list", type=int, action="append", help="--workers to compare with 1 (default 2)")
    parser.add_argument("--duration", type=float, default=10.0, help="seconds of each wrk run (2..60)")
    parser.add_argument("--connections", type=int, default=64, help="wrk connections (1..1024)")
    parser.add_argument("--threads", type=int, default=1, help="wrk threads (1..8)")
    parser.add_argument(
        "--repeat", type=int, default=1, help="alternating runs of each --workers; the best is shown (1..5)"
    )
    args = parser.parse_args()
    if args.wrk:
        if not (2 <= args.duration <= 60 and 1 <= args.connections <= 1024 and 1 <= args.threads <= 8):
            parser.error("--duration 2..60, --connections 1..1024, --threads 1..8")
        if not 1 <= args.repeat <= 5:
            parser.error("--repeat must be 1..5")
        if any(not 1 <= n <= 16 for n in args.workers_list or []):
            parser.error("--workers-list must be 1..16")
        bench_wrk(args.db, args)
        return
    if not 0 <= args.settle <= 60:
        parser.error("--settle must be 0..60")
    if args.searches:
        if not (1 <= args.searches <= 8 and 2 <= args.search_seconds <= 30 and 1 <= args.rounds <= 4):
            parser.error("--searches 1..8, --search-seconds 2..30, --rounds 1..4")
        if not 1 <= args.clients <= 8:
            parser.error("--clients must be 1..8")
        bench_searches(args.db, args)
        return
    if not 1 <= args.requests <= 100_000:
        parser.error("--requests must be 1..100,000")
    with tablebase.open(args.db) as tb:
        built = {info.name for info in tb.variants()}
    variants = args.variant or ["tictactoe", "mnk-4-4-4" if "mnk-4-4-4" in built else "mnk-4-3-3"]
    missing = [v for v in variants if v not in built]
    if missing:
        parser.error(f"not built in {args.db}: {', '.join(missing)}")
    port = free_port()
    rows = []
    with serving(args.db, port) as server:
        for variant in variants:
            for concurrency in args.concurrency or [1, 8]:
                rows.append(bench_variant(args.db, server, port, variant, args.requests, concurrency))
    if args.json:
        print_json(rows)
        return
    print(f"# {platform.python_version()}, {os.cpu_count()} CPUs, {platform.platform()}; server: tablebase serve")
    print(
        "| variant | conc. | requests | req/s | p50 ms | p90 ms | p99 ms | max ms "
        "| server CPU µs/req | in-process probes/s |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(
            f"| {r['variant']} | {r['concurrency']} | {r['requests']:,} | {r['requests_per_second']:,} "
            f"| {r['p50_ms']} | {r['p90_ms']} | {r['p99_ms']} | {r['max_ms']} | {r['server_cpu_us_per_request']} "
            f"| {r['in_process_probes_per_second']:,} |"
        )


if __name__ == "__main__":
    main()
