"""Throughput and latency of the HTTP API: ``GET /api/{variant}?position=...`` over loopback.

Starts ``tablebase serve`` (this checkout's CLI) as a subprocess on 127.0.0.1,
then this process sends a bounded number of probe requests over a few
keep-alive HTTP/1.1 connections (a minimal asyncio client, so the load
generator costs little next to the server) and prints requests per second and
latency percentiles. Positions are drawn from random games through the
variant's rules, so every one is reachable and a real database lookup.

    python benchmarks/serve.py --db tablebase.db                 # tictactoe, and mnk-4-4-4 or mnk-4-3-3
    python benchmarks/serve.py --db tb.db --variant mnk-4-4-4 --requests 10000 --concurrency 8

It also reports the server's CPU time per request (from ``/proc``; steadier than
wall-clock figures when other work shares the cores) and, for comparison, the
same probes in process (``VariantTable.probe``), the floor the HTTP layer adds to.
"""

from __future__ import annotations

import argparse
import asyncio
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


def start_server(db: Path, port: int) -> subprocess.Popen[bytes]:
    """``tablebase serve`` in a subprocess; returns once it answers."""
    cmd = [sys.executable, "-m", "cli.main", "serve", "--db", str(db), "--host", HOST, "--port", str(port)]
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
    args = parser.parse_args()
    if not 1 <= args.requests <= 100_000:
        parser.error("--requests must be 1..100,000")
    with tablebase.open(args.db) as tb:
        built = {info.name for info in tb.variants()}
    variants = args.variant or ["tictactoe", "mnk-4-4-4" if "mnk-4-4-4" in built else "mnk-4-3-3"]
    missing = [v for v in variants if v not in built]
    if missing:
        parser.error(f"not built in {args.db}: {', '.join(missing)}")
    port = free_port()
    server = start_server(args.db, port)
    rows = []
    try:
        for variant in variants:
            for concurrency in args.concurrency or [1, 8]:
                rows.append(bench_variant(args.db, server, port, variant, args.requests, concurrency))
    finally:
        server.terminate()
        server.wait(timeout=10)
    if args.json:
        for row in rows:
            print(json.dumps(row))
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
