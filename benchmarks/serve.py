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


@contextlib.contextmanager
def running_server(db: Path, solvers: int | None = None) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    """``tablebase serve`` in a subprocess on a free loopback port, once it answers; stopped on leaving."""
    port = free_port()
    cmd = [sys.executable, "-m", "cli.main", "serve", "--db", str(db), "--host", HOST, "--port", str(port)]
    if solvers is not None:
        cmd += ["--solvers", str(solvers)]
    server = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while True:
            if server.poll() is not None:
                raise SystemExit(f"the server exited: {server.stderr.read().decode() if server.stderr else ''}")
            try:
                with urllib.request.urlopen(f"http://{HOST}:{port}/api/variants", timeout=1):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise SystemExit("the server did not answer within 30 s") from None
                time.sleep(0.1)
        yield server, port
    finally:
        server.terminate()
        server.wait(timeout=10)


def print_json(rows: list[dict[str, object]]) -> None:
    """One JSON object a line, for ``--json``."""
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
    """Child processes of ``pid`` (Linux ``/proc``): the server's search workers."""
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def memory(pid: int) -> dict[str, object]:
    workers = [m for m in (rss_mb(c) for c in children(pid)) if m is not None]
    return {"server_mb": rss_mb(pid), "workers": len(workers), "workers_mb": round(sum(workers), 1)}


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
    port: int, paths: list[str], searches: list[str], seconds: float, concurrency: int, most: int
) -> tuple[list[float], list[tuple[str, float]]]:
    started = [asyncio.create_task(search(port, path, seconds)) for path in searches]
    await asyncio.sleep(0.5)  # the searches are under way
    latencies = await timed_probes(port, paths, seconds - 1.0, concurrency, most)
    return latencies, list(await asyncio.gather(*started))


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
    rows: list[dict[str, object]] = []
    with running_server(db, args.solvers) as (server, port):
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
            busy, answers = asyncio.run(
                during_searches(port, paths, searches, args.search_seconds, args.clients, 20_000)
            )
            statuses = ", ".join(sorted(f"{code} in {took:.1f} s" for code, took in answers))
            rows.append({"phase": f"search {round_ + 1} ({statuses})", **summary(busy), **memory(server.pid)})
        time.sleep(1.0)
        after = asyncio.run(timed_probes(port, paths, 2.0, args.clients, 20_000))
        rows.append({"phase": "after", **summary(after), **memory(server.pid)})
    if args.json:
        print_json(rows)
        return
    print(
        f"# {platform.python_version()}, {os.cpu_count()} CPUs; probes of {variant} by {args.clients} clients; "
        f"{args.searches} concurrent /solve of {args.search_seconds:g} s per round, --solvers {args.solvers}"
    )
    print("| phase | probes | p50 ms | p99 ms | max ms | server RSS MB | child processes | their RSS MB |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        server_mb = r["server_mb"]
        shown = "-" if server_mb is None else f"{server_mb:.0f}"
        print(
            f"| {r['phase']} | {r['probes']:,} | {r['p50_ms']} | {r['p99_ms']} | {r['max_ms']} "
            f"| {shown} | {r['workers']} | {r['workers_mb']} |"
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
    args = parser.parse_args()
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
    rows = []
    with running_server(args.db) as (server, port):
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
