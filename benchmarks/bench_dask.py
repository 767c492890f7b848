"""Dask against threads: games/s of one line-up (4 players) on N threads of this process and on a
``LocalCluster`` of N worker processes of one thread each, the same games, in one run (best of
two each, after a warm-up), in chunks of ``--chunk`` games as a run plays them.

    .venv/bin/python benchmarks/bench_dask.py greedy --games 262144
    .venv/bin/python benchmarks/bench_dask.py random --games 524288
"""

from __future__ import annotations

import argparse
import time
from collections import deque


def rate(data, seats, games: int, chunk: int, threads: int | None) -> float:
    from samsim import engine

    best = float("inf")
    for _ in range(2):
        start = time.perf_counter()
        deque(engine.batches([(0, games)], 4, 1, data, seats, chunk, threads), maxlen=0)
        best = min(best, time.perf_counter() - start)
    return games / best


def main(argv=None) -> None:
    from samsim import components, engine
    from samsim.engine.lineup import lineup

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("strategy", help="the strategy in every seat")
    ap.add_argument("--games", type=int, default=262144)
    ap.add_argument("--chunk", type=int, default=engine.DEFAULT_CHUNK)
    ap.add_argument("-n", type=int, default=2, help="threads, and worker processes")
    args = ap.parse_args(argv)
    data = components.load()
    seats = lineup(4, args.strategy)
    engine.warm_up(4, 1, data, seats, args.n)
    rate(data, seats, 2000, 1000, args.n)
    threads = rate(data, seats, args.games, args.chunk, args.n)
    with engine.Cluster(workers=args.n, threads=1):
        engine.warm_up(4, 1, data, seats, None)
        rate(data, seats, 4000, 1000, None)
        dask = rate(data, seats, args.games, args.chunk, None)
    print(f"{args.strategy}: {args.n} threads {threads:,.0f} games/s, Dask {args.n} workers "
          f"{dask:,.0f} games/s: {dask / threads:.0%}")


if __name__ == "__main__":  # the cluster's worker processes import this file again
    main()
