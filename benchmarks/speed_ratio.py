"""How many times faster one line-up plays than another, measured in one run: each strategy in
all four seats, alternating (best of ``--repeat``), so both meet the same machine load.

    .venv/bin/python benchmarks/speed_ratio.py tuned lookahead
"""

from __future__ import annotations

import argparse
import sys
import time

from samsim import engine


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("fast")
    ap.add_argument("slow")
    ap.add_argument("--seconds", type=float, default=1.5, help="play per timing, about")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    best, games = {}, {}
    for spec in (args.fast, args.slow):
        engine.run_batch(200, 4, 1, strategies=[spec] * 4)  # compile or load first
        t = time.perf_counter()
        engine.run_batch(2000, 4, 1, strategies=[spec] * 4)
        games[spec] = max(2000, int(2000 * args.seconds / (time.perf_counter() - t)))
    for _ in range(args.repeat):
        for spec in (args.fast, args.slow):
            t = time.perf_counter()
            engine.run_batch(games[spec], 4, 1, strategies=[spec] * 4)
            best[spec] = max(best.get(spec, 0.0), games[spec] / (time.perf_counter() - t))
    for spec in (args.fast, args.slow):
        print(f"{spec}: {best[spec]:,.0f} games/s (4 seats, all cores, best of {args.repeat})")
    print(f"{args.fast} / {args.slow}: {best[args.fast] / best[args.slow]:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
