"""The README's strategy table: every library strategy, its idea, its speed, and its win rate among
the others, read from the committed comparison (``samsim run experiments/pricing.toml``: the quick
start's games, so the table, the quick start and ``compare`` are one answer).

Win rate: the strategy's share of the wins of its games (draws shared) over the balanced pool
design of the eight pricing strategies, 95% interval with groups as units; strength: Plackett-Luce
on finishing orders. Head-to-head: the best strategy minus each rival, simultaneous intervals over
the 28 pairs. Games/s: the strategy in all four seats, all cores.

    .venv/bin/python benchmarks/strategy_table.py                  # ~1 minute after the compile
    .venv/bin/python benchmarks/strategy_table.py --markdown table.md
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pandas as pd

from samsim import engine
from samsim.engine import registry as strategy

PLAYERS = 4
REPORT = Path(__file__).resolve().parent.parent / "results" / "pricing" / "report"


def table(ranking: pd.DataFrame, pairs: pd.DataFrame, speed: dict[str, float]) -> str:
    """The Markdown table (the README's, between its strategy-table markers)."""
    rows = ["| strategy | idea | games/s (4 seats, all cores) | games | win rate (95% CI) | "
            "P-L strength |", "| --- | --- | ---: | ---: | --- | ---: |"]
    for _, r in ranking.sort_values("win_rate", ascending=False, kind="stable").iterrows():
        name = r["strategy"]
        rows.append(f"| `{name}` | {_idea(name)} | {speed.get(name, 0):,.0f} "
                    f"| {int(r['games']):,} | {100 * r['win_rate']:.1f}% ({100 * r['win_low']:.1f}"
                    f"–{100 * r['win_high']:.1f}) | {r['strength']:+.2f} |")
    rest = sorted(set(speed) - set(ranking["strategy"]))
    for name in rest:
        rows.append(f"| `{name}` | {_idea(name)} | {speed[name]:,.0f} | | not in the pool (never "
                    f"wins) | |")
    best = ranking.sort_values("win_rate", ascending=False)["strategy"].iloc[0]
    rows += ["", f"Head-to-head, `{best}` minus each rival, points of win rate (simultaneous "
             f"intervals over the {len(pairs)} pairs):", "",
             "| rival | difference (simultaneous CI) |", "| --- | --- |"]
    for _, p in pairs[(pairs["a"] == best) | (pairs["b"] == best)].iterrows():
        sign = 1 if p["a"] == best else -1
        low, high = sorted((sign * p["win_low"], sign * p["win_high"]))
        rival = p["b"] if p["a"] == best else p["a"]
        rows.append(f"| `{rival}` | {sign * p['win_diff']:+.1f} ({low:+.1f} to {high:+.1f}) |")
    return "\n".join(rows)


def _idea(name: str) -> str:
    return strategy.load_strategy(name).idea.split(". ")[0].split(": ", 1)[-1] + "."


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--speed-games", type=int, default=20000, help="games per speed measurement")
    ap.add_argument("--markdown", help="also write the table to this file")
    args = ap.parse_args(argv)

    ranking = pd.read_csv(REPORT / "ranking.csv")
    pairs = pd.read_csv(REPORT / "pairs.csv")
    speed = {}
    for name in sorted(strategy.available()):
        seats = [name] * PLAYERS
        engine.run_batch(200, PLAYERS, 1, strategies=seats)  # compile or load first
        t = time.perf_counter()
        engine.run_batch(args.speed_games, PLAYERS, 1, strategies=seats)
        speed[name] = args.speed_games / (time.perf_counter() - t)
    text = table(ranking, pairs, speed)
    print(text)
    if args.markdown:
        Path(args.markdown).write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
