"""The numbers behind the README's performance table, measured in one run.

* kernel games/s on ONE thread per player count (``samsim.engine.simulate(..., threads=1)``): one
  thread, so the figure does not depend on how many cores the machine has and the speed-up below
  compares like with like;
* the reference engine's games/s (``samsim.reference.play_game``), the honest baseline: it plays
  the identical games (the equivalence tests demand it), written to be read rather than to be fast;
* the speed-up, kernel / reference;
* compile time of the first ``simulate`` call in a fresh process: cold (``NUMBA_CACHE_DIR`` pointed
  at an empty folder, so everything compiles) and warm (the same folder, now filled).

Each timed run is preceded by a warm-up, so compilation and first-touch memory stay out of the
throughput. The machine (CPU, versions, git revision) is printed with the table: a games/s figure
without its machine means little.

    .venv/bin/python benchmarks/bench_engine.py                   # full run, a few minutes
    .venv/bin/python benchmarks/bench_engine.py --markdown bench.md
    .venv/bin/python benchmarks/bench_engine.py --kernel-games 20000 --reference-games 100 --no-compile
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_COMPILE_PROBE = """
import json, time
t0 = time.perf_counter()
from samsim import engine
t1 = time.perf_counter()
engine.simulate(1, 4, 0, threads=1)
t2 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "first_call": t2 - t1}))
"""


def kernel_rate(players: int, games: int, seed: int) -> float:
    """Games per second of the compiled kernel on one thread."""
    from samsim import engine

    engine.simulate(min(games, 5000), players, seed, threads=1)  # compile/load, touch memory
    start = time.perf_counter()
    engine.simulate(games, players, seed, threads=1)
    return games / (time.perf_counter() - start)


def reference_rate(players: int, games: int, seed: int) -> float:
    """Games per second of the plain-Python reference engine (same games as the kernel's)."""
    from samsim import components, reference

    data = components.load()
    reference.play_game(data, players, seed, 0)  # warm-up: imports, data, first-call caches
    start = time.perf_counter()
    for game in range(games):
        reference.play_game(data, players, seed, game)
    return games / (time.perf_counter() - start)


def compile_times() -> dict[str, float]:
    """Import and first-``simulate`` times in fresh processes, with an empty then a warm cache."""
    with tempfile.TemporaryDirectory(prefix="samsim-numba-cache-") as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        out = {}
        for label in ("cold", "warm"):
            done = subprocess.run([sys.executable, "-c", _COMPILE_PROBE], env=env, check=True,
                                  capture_output=True, text=True)
            times = json.loads(done.stdout.strip().splitlines()[-1])
            out[label] = times["first_call"]
            out[f"{label}_import"] = times["import"]
    return out


def machine() -> str:
    import numba
    import numpy

    import samsim

    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        rev = subprocess.run(["git", "describe", "--always", "--dirty"], capture_output=True,
                             text=True, cwd=Path(__file__).parent).stdout.strip()
    except OSError:
        rev = ""
    return (f"{cpu}, {os.cpu_count()} logical cores; Python {platform.python_version()}, "
            f"Numba {numba.__version__}, NumPy {numpy.__version__}; samsim {samsim.__version__}"
            + (f" (git {rev})" if rev else ""))


def markdown(rows, compiled, kernel_games, reference_games, seed) -> str:
    lines = ["| players | kernel, 1 thread (games/s) | reference (games/s) | speed-up |",
             "| ---: | ---: | ---: | ---: |"]
    for players, fast, slow in rows:
        lines.append(f"| {players} | {fast:,.0f} | {slow:,.0f} | {fast / slow:,.0f}x |")
    lines.append("")
    if compiled:
        lines.append(f"Compile, first `simulate` call in a fresh process: cold {compiled['cold']:.1f} s "
                     f"(empty Numba cache), warm {compiled['warm']:.1f} s (from the cache); "
                     f"`import samsim.engine` {compiled['warm_import']:.1f} s.")
        lines.append("")
    lines.append(f"Kernel: {kernel_games:,} games per player count after a warm-up; reference: "
                 f"{reference_games:,} games; seed {seed}.")
    lines.append(f"Machine: {machine()}.")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, nargs="+", default=[3, 4, 5, 6])
    parser.add_argument("--kernel-games", type=int, default=200_000)
    parser.add_argument("--reference-games", type=int, default=1_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-compile", action="store_true", help="skip the compile-time probes "
                        "(the cold one recompiles everything, about a minute)")
    parser.add_argument("--markdown", type=Path, metavar="PATH", help="also write the table here")
    args = parser.parse_args(argv)

    def note(text):
        print(text, file=sys.stderr, flush=True)

    compiled = {}
    if not args.no_compile:
        note("compile time: cold (empty cache), then warm ...")
        compiled = compile_times()
        note(f"  cold {compiled['cold']:.1f} s, warm {compiled['warm']:.1f} s")
    rows = []
    for players in args.players:
        fast = kernel_rate(players, args.kernel_games, args.seed)
        note(f"{players} players: kernel {fast:,.0f} games/s")
        slow = reference_rate(players, args.reference_games, args.seed)
        note(f"{players} players: reference {slow:,.0f} games/s")
        rows.append((players, fast, slow))
    table = markdown(rows, compiled, args.kernel_games, args.reference_games, args.seed)
    print(table)
    if args.markdown:
        args.markdown.write_text(table, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
