"""The README's strategy table: every library strategy, its idea, its speed, and its win rate in a
4-player round-robin against the others, with 95% intervals.

Design: every 4-strategy subset of the library, each rotated through the 4 seats (so every
strategy sits in every seat equally often), each line-up playing its own deals (games k*N ..
k*N+N-1 of one seed), so every game is an independent deal. A strategy's win rate is its mean win
credit (draws shared) over its games; the interval is Wilson's. Head-to-head: over the games where
both sat, the mean difference of win credit between lookahead and each rival, with a 95% normal
interval from the games' spread. Speed: games/s with the strategy in all four seats, all cores.

    .venv/bin/python benchmarks/round_robin.py                     # ~2 minutes after the compile
    .venv/bin/python benchmarks/round_robin.py --games 20 --markdown table.md
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time

import numpy as np

from samsim import engine, strategy
from samsim.stats import wilson_interval

PLAYERS = 4


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=100, help="deals per line-up (default 100)")
    ap.add_argument("--speed-games", type=int, default=20000, help="games per speed measurement")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--best", default="lookahead", help="strategy compared head-to-head")
    ap.add_argument("--markdown", help="also write the table to this file")
    args = ap.parse_args(argv)

    names = sorted(strategy.available())
    t = time.perf_counter()
    engine.run_batch(10, PLAYERS, 0, strategies=strategy.rotation(PLAYERS, names))
    print(f"compile (or cache load): {time.perf_counter() - t:.1f} s", file=sys.stderr)

    speed = {}
    for name in names:
        seats = [name] * PLAYERS
        engine.run_batch(200, PLAYERS, 1, strategies=seats)
        t = time.perf_counter()
        engine.run_batch(args.speed_games, PLAYERS, 1, strategies=seats)
        speed[name] = args.speed_games / (time.perf_counter() - t)

    credit = {n: [] for n in names}
    pair = {}  # (a, b) -> list of per-game credit differences a - b
    t = time.perf_counter()
    lineups = [[combo[(s + rot) % PLAYERS] for s in range(PLAYERS)]
               for combo in itertools.combinations(names, PLAYERS) for rot in range(PLAYERS)]
    for k, seats in enumerate(lineups):
        st = engine.run_batch(args.games, PLAYERS, args.seed, game0=k * args.games,
                              strategies=seats)
        for s, name in enumerate(seats):
            credit[name].append(st.win_credit[:, s].copy())
        if args.best in seats:
            b = seats.index(args.best)
            for s, name in enumerate(seats):
                if s != b:
                    pair.setdefault(name, []).append(st.win_credit[:, b] - st.win_credit[:, s])
    played = sum(len(c) for c in credit.values()) * args.games // PLAYERS
    print(f"round-robin: {played} games in {time.perf_counter() - t:.0f} s", file=sys.stderr)

    rows = ["| strategy | idea | games/s (4 seats, all cores) | games | win rate (95% CI) |",
            "| --- | --- | ---: | ---: | --- |"]
    for name in sorted(names, key=lambda n: -np.concatenate(credit[n]).mean()):
        c = np.concatenate(credit[name])
        lo, hi = wilson_interval(c.sum(), len(c))
        idea = strategy.load_strategy(name).idea.split(". ")[0].split(": ", 1)[-1]
        rows.append(f"| `{name}` | {idea}. | {speed[name]:,.0f} | {len(c):,} | "
                    f"{100 * c.mean():.1f}% ({100 * lo:.1f}–{100 * hi:.1f}) |")
    rows += ["", f"Head-to-head, `{args.best}` minus each rival, win credit over the games both "
             "played (mean, 95% interval):", "",
             "| rival | games | difference (points of win rate) |", "| --- | ---: | --- |"]
    for name in sorted(pair):
        d = np.concatenate(pair[name])
        half = 1.96 * d.std(ddof=1) / np.sqrt(len(d))
        rows.append(f"| `{name}` | {len(d):,} | {100 * d.mean():+.1f} ± {100 * half:.1f} |")
    table = "\n".join(rows)
    print(table)
    if args.markdown:
        with open(args.markdown, "w") as fh:
            fh.write(table + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
