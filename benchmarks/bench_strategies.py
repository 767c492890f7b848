"""What seating different strategies costs, and what compiling a line-up costs.

* dispatch: a batch with four different strategies against the same batch with one strategy in
  every seat. The four-strategy batch does a quarter of each strategy's work, so the fair yardstick
  is the mean time of the four single-strategy batches; the ratio is the dispatch cost (the issue
  asks for at most 1.25x). Same seed, same games, one thread, best of three.
* compile: the first ``run_batch`` in a fresh process with an empty Numba cache (cold: the engine,
  and the four strategies' entry points in a second process meanwhile), again with the cache
  filled (cached), then with a user strategy file (the README's example) in one seat: only its
  entry points compile, the engine comes from the cache. Each in a subprocess.

    .venv/bin/python benchmarks/bench_strategies.py
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FOUR = ["random", "greedy", "undercut", "saver"]

TIMED = """
import time, json
t = time.perf_counter()
from samsim import engine
engine.run_batch(10, 4, 0, strategies={seats!r})
print(json.dumps(time.perf_counter() - t))
"""


def best_time(run, repeats=3):
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - t)
    return best


def dispatch(games: int) -> dict:
    from samsim import engine
    from samsim.engine.lineup import lineup
    out = {}
    for seats in [[s] * 4 for s in FOUR] + [FOUR]:
        line = lineup(4, seats)
        engine.run_batch(100, 4, 1, strategies=line, threads=1)
        out[",".join(seats)] = best_time(
            lambda: engine.run_batch(games, 4, 1, strategies=line, threads=1))
    single = sum(out[",".join([s] * 4)] for s in FOUR) / len(FOUR)
    out["ratio"] = out[",".join(FOUR)] / single
    return out


def compile_times() -> dict:
    readme = Path(__file__).resolve().parent.parent / "README.md"
    text = readme.read_text()
    example = text.split("<!-- example-strategy -->")[1].split("```python\n")[1].split("```")[0]
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "strategies").mkdir()
        (Path(tmp) / "strategies" / "cautious.py").write_text(example)
        env = {**os.environ, "NUMBA_CACHE_DIR": str(Path(tmp) / "cache")}

        def timed(seats):
            done = subprocess.run([sys.executable, "-c", TIMED.format(seats=seats)], cwd=tmp,
                                  env=env, capture_output=True, text=True, check=True)
            return json.loads(done.stdout.strip().splitlines()[-1])

        return {"four strategies, cold": timed(FOUR), "four strategies, cached": timed(FOUR),
                "a user strategy file added, cold": timed(["cautious"] + FOUR[1:]),
                "a user strategy file added, cached": timed(["cautious"] + FOUR[1:])}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=20000)
    ap.add_argument("--no-compile", action="store_true", help="skip the compile-time runs")
    args = ap.parse_args(argv)
    d = dispatch(args.games)
    print(f"dispatch, {args.games} 4-player games, 1 thread, best of 3 (s):")
    for k, v in d.items():
        print(f"  {k:40s} {v:.3f}")
    if not args.no_compile:
        print("compile, first run_batch in a fresh process (s):")
        for k, v in compile_times().items():
            print(f"  {k:40s} {v:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
