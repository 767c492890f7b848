"""The one script to run on a machine with a GPU: identical games, then speed.

    python benchmarks/gpu_check.py [--games 4096] [--out DIR]

1. Every library strategy, seated by one balanced pool at 3, 4, 5 and 6 players: ``--games``
   games each on the GPU and on the CPU, every field of every game's final state compared.
2. ``samsim bench --backend cuda``'s measurements (the line-ups of ``samsim bench``), with the
   CPU's all-thread rate of random at 4 players from the same run for the ratio.

Prints one line per result and writes ``DIR/gpu_check.json`` (and ``bench.md``) when ``--out``
is given; exits 1 if any game differs.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4096)
    parser.add_argument("--bench-games", type=int, default=None)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()

    from samsim import components
    from samsim.engine import bench, gpu, play
    from samsim.engine.designs import pool_design
    from samsim.engine.registry import available
    from samsim.kernel.state import State

    data = components.load()
    library = sorted(n for n, where in available().items() if where.startswith("strategies."))
    report = {"device": gpu.check(), "machine": bench.machine(), "identical": {}, "bench": {}}
    print(f"GPU: {report['device']}", flush=True)
    failed = False
    for players in (3, 4, 5, 6):
        seats = pool_design(players, library)
        start = time.perf_counter()
        with play.backend("cuda"):
            on_gpu = play.run_batch(args.games, players, 11, 0, data, strategies=seats)
        took = time.perf_counter() - start
        cpu = play.run_batch(args.games, players, 11, 0, data, strategies=seats)
        differ = [f for f in State._fields if not np.array_equal(getattr(cpu, f), getattr(on_gpu, f))]
        report["identical"][players] = {"games": args.games, "differ": differ, "gpu_s": took}
        failed |= bool(differ)
        print(f"{players} players, {args.games:,} games of {len(library)} strategies: "
              f"{'identical' if not differ else 'DIFFER in ' + ', '.join(differ)} "
              f"(GPU {took:.1f} s, compile included)", flush=True)
    with play.backend("cuda"):
        result = bench.run_gpu(games=args.bench_games or bench.GPU_GAMES,
                               note=lambda text: print(f"bench: {text}", flush=True))
    report["bench"] = result.gpu
    cpu_rate = bench.kernel_rate(4, 200_000, threads=None, strategies="random")
    report["cpu_random_4p_all_threads"] = cpu_rate
    print(f"CPU, random, 4 players, all threads: {cpu_rate:,.0f} games/s", flush=True)
    print(bench.markdown(result))
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "gpu_check.json").write_text(json.dumps(report, indent=1, default=str))
        (args.out / "bench.md").write_text(bench.markdown(result))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
