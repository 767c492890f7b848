"""This checkout against an earlier commit: do the library's strategies play the same games, and
how much faster is each line-up? Both answers from one run, old and new code side by side.

* same games: every library strategy in every seat at 3, 4 and 6 players (and non-default
  parameters, and the showdown pool), played by REV's code and by this checkout, results tables
  compared row for row. A faster strategy must not be a weaker one; the same games prove it.
* speed: the line-ups of ``samsim bench`` at 4 players, on 1 thread and on all threads, old and
  new alternating (best of ``--repeat``), so both meet the same machine load.

    .venv/bin/python benchmarks/against.py --rev 2417dc1 [--markdown FILE]

REV is checked out in a git worktree with its own Numba cache: from a cold cache each side
compiles the engine and every strategy first (several minutes).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
POOL = ["lookahead", "holiday", "undercut", "weighted", "greedy", "fixed", "builder", "saver"]
#: (line-up, games at each player count): slow strategies fewer.
CASES = [("random", 4000), ("greedy", 3000), ("greedy(temperature=20)", 2000),
         ("greedy(tile_scale=2.5)", 2000), ("undercut", 3000), ("holiday", 3000),
         ("weighted", 3000), ("builder", 3000), ("saver", 3000), ("fixed", 3000),
         ("lookahead", 600), ("lookahead(samples=3)", 600), ("pool", 3360)]
PLAYERS = (3, 4, 6)
SEED = 5
#: line-up -> games per timing on one thread (x threads with more)
SPEED = {"random": 200_000, "greedy": 40_000, "undercut": 60_000, "lookahead": 6_000,
         "pool": 20_000}

PLAY = """
import sys
from pathlib import Path
from samsim.engine.designs import pool_design
from samsim.runs.simulate import simulate
folder = Path(sys.argv[1])
for arg in sys.argv[2:]:
    name, players, games = arg.rsplit(":", 2)
    seats = pool_design(int(players), {pool!r}) if name == "pool" else name
    df = simulate(int(games), int(players), {seed}, strategies=seats)
    df["strategy"] = df["strategy"].astype(str)
    df.to_parquet(folder / f"{{name}}-{{players}}.parquet")
"""

TIME = """
import json, sys, time
from collections import deque
from samsim import components, engine
from samsim.engine.designs import pool_design
from samsim.engine.lineup import lineup
name, games, threads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
data = components.load()
seats = pool_design(4, {pool!r}) if name == "pool" else lineup(4, name)
chunk = max(256, games // 16)
def play(n):
    deque(engine.batches([(0, n)], 4, 1, data, seats, chunk, threads), maxlen=0)
play(min(games, 2000))
start = time.perf_counter()
play(games)
print(json.dumps(games / (time.perf_counter() - start)))
"""


def _env(source: Path, cache: str | None) -> dict:
    env = {**os.environ, "PYTHONPATH": str(source)}
    if cache:
        env["NUMBA_CACHE_DIR"] = cache
    return env


def play(source: Path, folder: Path, cache: str | None) -> None:
    """Play every case with the samsim of ``source`` into ``folder``."""
    cases = [f"{name}:{n}:{games}" for name, games in CASES for n in PLAYERS]
    subprocess.run([sys.executable, "-c", PLAY.format(pool=POOL, seed=SEED), str(folder), *cases],
                   cwd=source, env=_env(source, cache), check=True)


def rate(source: Path, cache: str | None, name: str, threads: int) -> float:
    done = subprocess.run([sys.executable, "-c", TIME.format(pool=POOL), name,
                           str(SPEED[name] * threads), str(threads)], cwd=source,
                          env=_env(source, cache), check=True, capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def same_games(old: Path, cache: str, tmp: Path) -> tuple[list[str], int]:
    import pandas as pd

    (tmp / "before").mkdir()
    (tmp / "now").mkdir()
    play(old, tmp / "before", cache)
    play(ROOT, tmp / "now", None)
    lines = [f"| line-up | {' | '.join(f'{n} players' for n in PLAYERS)} |",
             f"| --- | {' | '.join('---' for _ in PLAYERS)} |"]
    differ = 0
    for name, games in CASES:
        cells = []
        for n in PLAYERS:
            before = pd.read_parquet(tmp / "before" / f"{name}-{n}.parquet")
            now = pd.read_parquet(tmp / "now" / f"{name}-{n}.parquet")
            same = before.equals(now)
            differ += not same
            cells.append(f"{games:,} games: {'the same' if same else 'DIFFERENT'}")
        lines.append(f"| `{name}` | {' | '.join(cells)} |")
    return lines, differ


def speeds(old: Path, cache: str, repeat: int) -> list[str]:
    import numba

    most = numba.config.NUMBA_NUM_THREADS
    lines = [f"| line-up (4 players) | before, 1 thread | now, 1 thread | speed-up | before, "
             f"{most} threads | now, {most} threads | now, {most} threads vs 1 |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for name in SPEED:
        best = {}
        for _ in range(repeat):
            for side, source, c in (("before", old, cache), ("now", ROOT, None)):
                for threads in (1, most):
                    key = (side, threads)
                    best[key] = max(best.get(key, 0.0), rate(source, c, name, threads))
        lines.append(f"| {name} | {best['before', 1]:,.0f} | {best['now', 1]:,.0f} | "
                     f"{best['now', 1] / best['before', 1]:.2f}x | {best['before', most]:,.0f} | "
                     f"{best['now', most]:,.0f} | {best['now', most] / best['now', 1]:.2f}x |")
    return lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rev", required=True, help="the earlier commit")
    ap.add_argument("--repeat", type=int, default=2, help="timings per line-up and side (best)")
    ap.add_argument("--markdown", type=Path, help="also write the tables here")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="samsim-against-") as tmp:
        tmp = Path(tmp)
        old, cache = tmp / "old", str(tmp / "cache")
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(old),
                        args.rev], check=True, capture_output=True)
        try:
            games, differ = same_games(old, cache, tmp)
            speed = speeds(old, cache, args.repeat)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(old)],
                           check=False, capture_output=True)
    text = "\n".join([f"Same games, samsim at {args.rev} and now:", "", *games, "",
                      f"{'every game the same' if not differ else f'{differ} cases differ'}", "",
                      f"Games/s, samsim at {args.rev} and now, one run:", "", *speed]) + "\n"
    print(text)
    if args.markdown:
        args.markdown.write_text(text)
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
