"""Do the library's strategies still play the same games as at an earlier commit?

A faster strategy must not be a weaker one; the strongest proof is that it plays the same games.
This plays every library strategy in every seat, at 3, 4 and 6 players (and the showdown pool,
and non-default parameters), with the code of REV (a git worktree, its own Numba cache) and with
this checkout, and compares the results tables row for row. Prints a Markdown table.

    .venv/bin/python benchmarks/same_games.py --against 2417dc1

From a cold cache each side compiles the engine and every strategy first: several minutes.
"""

from __future__ import annotations

import argparse
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


def play(source: Path, folder: Path, cache: str | None) -> None:
    """Play every case with the samsim of ``source`` into ``folder``."""
    env = {**os.environ, "PYTHONPATH": str(source)}
    if cache:
        env["NUMBA_CACHE_DIR"] = cache
    cases = [f"{name}:{n}:{games}" for name, games in CASES for n in PLAYERS]
    subprocess.run([sys.executable, "-c", PLAY.format(pool=POOL, seed=SEED), str(folder), *cases],
                   cwd=source, env=env, check=True)


def main(argv=None) -> int:
    import pandas as pd

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--against", required=True, help="the commit to compare with")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="samsim-same-games-") as tmp:
        tmp = Path(tmp)
        old_tree = tmp / "old"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(old_tree),
                        args.against], check=True, capture_output=True)
        try:
            (tmp / "before").mkdir()
            (tmp / "now").mkdir()
            play(old_tree, tmp / "before", str(tmp / "cache"))
            play(ROOT, tmp / "now", None)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force",
                            str(old_tree)], check=False, capture_output=True)
        print(f"| line-up | {' | '.join(f'{n} players' for n in PLAYERS)} |")
        print(f"| --- | {' | '.join('---' for _ in PLAYERS)} |")
        differ = 0
        for name, games in CASES:
            cells = []
            for n in PLAYERS:
                before = pd.read_parquet(tmp / "before" / f"{name}-{n}.parquet")
                now = pd.read_parquet(tmp / "now" / f"{name}-{n}.parquet")
                same = before.equals(now)
                differ += not same
                cells.append(f"{games:,} games: {'the same' if same else 'DIFFERENT'}")
            print(f"| `{name}` | {' | '.join(cells)} |")
        print(f"\nsamsim at {args.against} and this checkout: "
              f"{'every game the same' if not differ else f'{differ} line-ups differ'}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
