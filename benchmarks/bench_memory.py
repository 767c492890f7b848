"""Peak memory of a run against its number of games: the README's claim that ten million games
need no more memory than a hundred thousand.

Each size runs ``samsim simulate --games N --out <tmp>`` (random strategy, default chunk size,
every chunk written to Parquet and summarised) in a fresh process and reads that process's peak
resident set size (``ru_maxrss``); the same process reports its games/s. One run each: compare
the peaks as a ratio.

    .venv/bin/python benchmarks/bench_memory.py                      # 100,000 and 10,000,000
    .venv/bin/python benchmarks/bench_memory.py --games 100000 1000000
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time

_PROBE = """
import atexit, resource, sys
atexit.register(lambda: print("peak", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                              file=sys.stderr))
from samsim.cli import app
app(sys.argv[1:])
"""


def peak_mib(games: int, players: int, folder: str) -> tuple[float, float]:
    """(peak RSS in MiB, wall seconds) of one run in a fresh process."""
    args = ["simulate", "--games", str(games), "--players", str(players), "--out", folder]
    start = time.perf_counter()
    # cwd: `python -c` imports from its working folder first (a checkout, not the install)
    done = subprocess.run([sys.executable, "-c", _PROBE, *args], capture_output=True, text=True,
                          cwd=folder.rsplit("/", 1)[0])
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(done.stderr)
    return int(done.stderr.split("peak")[-1].split()[0]) / 1024, seconds


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, nargs="+", default=[100_000, 10_000_000])
    parser.add_argument("--players", type=int, default=4)
    args = parser.parse_args(argv)
    rows = []
    for games in args.games:
        with tempfile.TemporaryDirectory(prefix="samsim-bench-memory-") as folder:
            peak, seconds = peak_mib(games, args.players, folder + "/run")
        rows.append((games, peak, seconds))
        print(f"{games:,} games: peak {peak:,.0f} MiB, {seconds:.1f} s", file=sys.stderr)
    base = rows[0][1]
    print("| games | peak memory (MiB) | vs first | wall time (s) |")
    print("| ---: | ---: | ---: | ---: |")
    for games, peak, seconds in rows:
        print(f"| {games:,} | {peak:,.0f} | {peak / base:.2f}x | {seconds:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
