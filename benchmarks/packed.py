"""Packed storage: the block codec on real layers, and the packed storage next to states-only rows.

Usage::

    python benchmarks/packed.py codecs --build-dir DIR [--fraction 0.1]
    python benchmarks/packed.py storages --variant mnk-4-4-4 [--build-dir DIR] [--dir OUT]
        [--storages packed,states] [--samples 2000] [--no-verify]

``codecs`` reads the layer files an out-of-core build leaves in ``DIR``
(``tablebase build VARIANT --build-dir DIR`` or
:func:`tablebase.solve.chunked.solve_chunked`) and encodes them with each
compressor (zlib, lzma, and zstd when the ``zstandard`` package is installed)
and block size: total size, bytes per class, compression time on one core,
decode and lookup time per block. ``--fraction`` encodes that share of each
layer (evenly spaced runs of blocks) and scales the sizes up.

``storages`` builds the variant into one file per storage in the same
run (with ``--build-dir`` the solve is resumed from its finished layer files,
so both storages write the same layers) and prints, per storage: file size,
bytes per class and bits per position, the build phases, peak RSS, probe
p50/p99 cold (the packed storage's cache of decoded blocks emptied before the
probe, so every block it needs is read and decompressed), warm (the same
probe again right after: its blocks in the cache) and again (a second pass
over all the positions, after the others: what stays cached depends on the
cache's 64 MB), and the full ``verify``. The probed positions are the same
random stored classes in every storage.
"""

from __future__ import annotations

import argparse
import json
import lzma
import os
import random
import resource
import statistics
import sys
import time
import zlib
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402

import tablebase  # noqa: E402
from phases import Phases  # noqa: E402
from tablebase.solve.chunked import LayerDir  # noqa: E402
from tablebase.store.packed import decode_block, encode_block, pack_values  # noqa: E402


def compressors() -> dict[str, tuple[Callable[[bytes], bytes], Callable[[bytes], bytes]]]:
    """Name to (compress, decompress) of every compressor available here."""
    found: dict[str, tuple[Callable[[bytes], bytes], Callable[[bytes], bytes]]] = {
        "zlib-6": (lambda b: zlib.compress(b, 6), zlib.decompress),
        "zlib-9": (lambda b: zlib.compress(b, 9), zlib.decompress),
        "lzma-6": (lambda b: lzma.compress(b, format=lzma.FORMAT_RAW, filters=_LZMA), _lzma_decompress),
    }
    try:
        import zstandard
    except ImportError:
        return found
    for level in (3, 9, 19):
        c = zstandard.ZstdCompressor(level=level)
        d = zstandard.ZstdDecompressor()
        found[f"zstd-{level}"] = (c.compress, d.decompress)
    return found


_LZMA = [{"id": lzma.FILTER_LZMA2, "preset": 6}]


def _lzma_decompress(data: bytes) -> bytes:
    return lzma.decompress(data, format=lzma.FORMAT_RAW, filters=_LZMA)


def layer_blocks(folder: Path, block: int, fraction: float) -> list[tuple[int, np.ndarray, np.ndarray]]:
    """``(ply, keys, values)`` blocks of every layer (the share ``fraction`` of each, evenly spread)."""
    bdir = LayerDir(folder)
    manifest = bdir.load_manifest()
    if manifest is None:
        raise SystemExit(f"no manifest.json in {folder}")
    out = []
    for info in manifest.layers:
        states = bdir.states(info.depth)
        values = pack_values(np.array(bdir.outcome(info.depth)), np.array(bdir.distance(info.depth)))
        starts = list(range(0, states.size, block))
        if fraction < 1:
            step = max(1, round(1 / fraction))
            starts = starts[::step]
        for lo in starts:
            out.append((info.depth, np.array(states[lo : lo + block]), values[lo : lo + block]))
    return out


def codecs(args: argparse.Namespace) -> None:
    folder = Path(args.build_dir)
    manifest = LayerDir(folder).load_manifest()
    assert manifest is not None
    classes = sum(layer.states for layer in manifest.layers)
    positions = sum(layer.positions for layer in manifest.layers)
    print(f"{manifest.game}: {classes:,} classes, {positions:,} positions; fraction {args.fraction}")
    print(f"{'codec':8} {'block':>6} {'MB':>8} {'B/class':>8} {'bit/pos':>8} {'compress s':>10} {'decode us':>10} {'lookup us':>10}")
    rng = np.random.default_rng(1)
    for block in [int(b) for b in args.blocks.split(",")]:
        blocks = layer_blocks(folder, block, args.fraction)
        sampled = sum(k.size for _, k, _ in blocks)
        scale = classes / sampled
        for name, (compress, decompress) in compressors().items():
            t = time.perf_counter()
            encoded = [encode_block(k, v, p, compress) for p, k, v in blocks]
            seconds = (time.perf_counter() - t) * scale
            size = sum(len(e) for e in encoded) * scale
            picks = rng.choice(len(blocks), size=min(300, len(blocks)), replace=False)
            decode, lookup = [], []
            for i in picks:
                ply, keys, _ = blocks[i]
                key = int(keys[rng.integers(keys.size)])
                t = time.perf_counter()
                got, _ = decode_block(encoded[i], ply, int(keys[0]), int(keys.size), decompress)
                decode.append(time.perf_counter() - t)
                at = int(np.searchsorted(got, np.uint64(key)))
                lookup.append(time.perf_counter() - t)
                assert int(got[at]) == key
            print(
                f"{name:8} {block:>6} {size / 1e6:>8.1f} {size / classes:>8.3f} {8 * size / positions:>8.3f}"
                f" {seconds:>10.1f} {1e6 * statistics.median(decode):>10.0f} {1e6 * statistics.median(lookup):>10.0f}",
                flush=True,
            )


def percentiles(times: list[float]) -> tuple[float, float]:
    times = sorted(times)
    return 1e6 * times[len(times) // 2], 1e6 * times[int(len(times) * 0.99)]


def storages(args: argparse.Namespace) -> None:
    out = Path(args.dir)
    out.mkdir(parents=True, exist_ok=True)
    print(f"load before: {os.getloadavg()}")
    keys: list[str] | None = None
    results = []
    for storage in args.storages.split(","):
        db = out / f"{args.variant}-{storage}.db"
        for stale in (db, Path(f"{db}-wal"), Path(f"{db}-shm")):
            stale.unlink(missing_ok=True)
        phases = Phases(show=False)
        t0 = time.perf_counter()
        with tablebase.open(db) as tb:
            info = tb.build(args.variant, storage=storage, build_dir=args.build_dir, progress=phases)
        wall = time.perf_counter() - t0
        phases.close()
        rss = max(resource.getrusage(who).ru_maxrss for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)) / 2**20
        size = db.stat().st_size
        with tablebase.open(db) as tb:
            stats = tb.variant(args.variant).stats()
            if keys is None:
                table = tb.variant(args.variant)
                with table.snapshot() as conn:
                    rows = table.storage.sample(conn, args.samples, 1)
                keys = [r[1] for r in rows]
        result = {
            "storage": storage,
            "classes": info.states,
            "positions": stats.positions,
            "bytes": size,
            "bytes_per_class": size / info.states,
            "bits_per_position": 8 * size / stats.positions,
            "build_s": wall,
            "phases": {k: round(v, 1) for k, v in phases.seconds.items()},
            "peak_rss_gb": rss,
        }
        with tablebase.open(db) as tb:
            table = tb.variant(args.variant)
            cache = getattr(getattr(table.storage, "reader", None), "cache", None)
            cold, warm, again = [], [], []
            for key in keys:
                if cache is not None:
                    cache.clear()
                t = time.perf_counter()
                table.probe(key)
                cold.append(time.perf_counter() - t)
                t = time.perf_counter()
                table.probe(key)
                warm.append(time.perf_counter() - t)
            for key in keys:
                t = time.perf_counter()
                table.probe(key)
                again.append(time.perf_counter() - t)
            for run, times in (("cold", cold), ("warm", warm), ("again", again)):
                result[f"probe_{run}_us"] = [round(x) for x in percentiles(times)]
            if not args.no_verify:
                t = time.perf_counter()
                report = tb.verify(args.variant)
                result["verify_s"] = time.perf_counter() - t
                result["verify_ok"] = report.ok
        results.append(result)
        print(json.dumps(result), flush=True)
    print(f"load after: {os.getloadavg()}")
    print()
    print(
        "| storage | file | bytes/class | bits/position | build | phases | peak RSS"
        " | probe p50/p99 cold | warm | second pass | verify |"
    )
    print("|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|")
    for r in results:
        phases = ", ".join(f"{k} {v:.1f} s" for k, v in r["phases"].items())
        verify = f"{r['verify_s']:.1f} s {'ok' if r['verify_ok'] else 'FAILED'}" if "verify_s" in r else "-"
        print(
            f"| {r['storage']} | {r['bytes'] / 1e6:,.1f} MB | {r['bytes_per_class']:.3f} | {r['bits_per_position']:.3f}"
            f" | {r['build_s']:.1f} s | {phases} | {r['peak_rss_gb']:.2f} GB"
            + "".join(f" | {r[f'probe_{run}_us'][0]} / {r[f'probe_{run}_us'][1]} us" for run in ("cold", "warm", "again"))
            + f" | {verify} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("codecs")
    c.add_argument("--build-dir", required=True)
    c.add_argument("--fraction", type=float, default=1.0)
    c.add_argument("--blocks", default="1024,4096,16384")
    c.set_defaults(run=codecs)
    stored = sub.add_parser("storages")
    stored.add_argument("--variant", default="mnk-4-4-4")
    stored.add_argument("--build-dir", default=None)
    stored.add_argument("--dir", default="packed-bench")
    stored.add_argument("--storages", default="packed,states")
    stored.add_argument("--samples", type=int, default=2000)
    stored.add_argument("--no-verify", action="store_true")
    stored.set_defaults(run=storages)
    args = parser.parse_args()
    random.seed(1)
    args.run(args)


if __name__ == "__main__":
    main()
