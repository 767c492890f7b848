"""The one script to run on a machine with a GPU: identical games, then speed, in one command.

    python benchmarks/gpu_check.py [--games 4096] [--bench-games 4194304] [--deadline 540]
                                   [--jobs random,lookahead] [--out DIR]

One job per line-up of ``samsim bench`` (random, greedy, undercut, lookahead, the showdown pool
with tuned beside it: together every library strategy), each in its own process, all at once:

1. compile the line-up's GPU kernel and the CPU engine (minutes each, on one core: in parallel
   the whole check fits the device's ten-minute command limit; run one after another they
   would not);
2. ``--games`` games at each of 3, 4, 5 and 6 players on the GPU and on the CPU, every field of
   every game's final state compared;
3. ``samsim bench --backend cuda``'s measurement of the line-up (random: at every player count).

The GPU runs of steps 2 and 3 hold a lock, so that one process at a time uses the GPU and the
speeds are measured alone. Each job writes its results as it goes (``DIR/<job>.json``); what is
not done by ``--deadline`` seconds is reported unfinished. Then the CPU's all-thread rate of
random at 4 players, for the ratio. Prints one line per result, writes ``DIR/gpu_check.json``
and ``DIR/bench.md``; exits 1 if any game differs or a job did not finish.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

#: Identity checks seat these beside a bench line-up's strategies: tuned decides with weighted's
#: functions (one kernel), so the pool's games also check its parameters.
BESIDE = {"showdown pool": ("tuned",)}


def _seats(players: int, strategies):
    from samsim.engine.designs import pool_design
    from samsim.engine.lineup import lineup

    if isinstance(strategies, str):
        return lineup(players, strategies)
    return pool_design(players, list(strategies))


def job(name: str, games: int, bench_games: int, lock: Path, out: Path) -> None:
    """One line-up's compile, identity check and speed, written to ``out`` as they come."""
    from samsim import components
    from samsim.engine import bench, play
    from samsim.kernel.state import State

    data = components.load()
    strategies, share = bench.LINEUPS[name]
    checked = strategies if name not in BESIDE else (*strategies, *BESIDE[name])
    found = {"job": name, "identical": {}, "bench": {}}

    def write(**more):
        found.update(more)
        out.write_text(json.dumps(found, indent=1))

    start = time.perf_counter()
    with play.backend("cuda"):
        play.run_batch(1, 4, 11, 0, data, strategies=_seats(4, checked))
    write(compile_s=time.perf_counter() - start)
    cpu = {n: play.run_batch(games, n, 11, 0, data, strategies=_seats(n, checked))
           for n in (3, 4, 5, 6)}
    with lock.open("w") as gpu_lock:
        fcntl.flock(gpu_lock, fcntl.LOCK_EX)
        for n, on_cpu in cpu.items():
            with play.backend("cuda"):
                on_gpu = play.run_batch(games, n, 11, 0, data, strategies=_seats(n, checked))
            differ = [f for f in State._fields
                      if not np.array_equal(getattr(on_cpu, f), getattr(on_gpu, f))]
            found["identical"][n] = {"games": games, "differ": differ,
                                     "strategies": list(np.atleast_1d(checked).tolist())}
            write()
        with play.backend("cuda"):
            if name == "random":
                for n in (3, 4, 5, 6):
                    found["bench"][f"random, {n} players"] = bench.gpu_rates(n, bench_games,
                                                                             "random")
                    write()
            else:
                found["bench"][name] = bench.gpu_rates(4, max(1024, int(bench_games * share)),
                                                       strategies)
    write(done=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4096)
    parser.add_argument("--bench-games", type=int, default=None)
    parser.add_argument("--deadline", type=float, default=540.0)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--jobs", default=None, help="some of the line-ups (comma-separated)")
    parser.add_argument("--job", help=argparse.SUPPRESS)
    parser.add_argument("--lock", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--to", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()

    from samsim.engine import bench, gpu

    bench_games = args.bench_games or bench.GPU_GAMES
    if args.job:
        job(args.job, args.games, bench_games, args.lock, args.to)
        return 0

    began = time.perf_counter()
    out = args.out or Path(tempfile.mkdtemp(prefix="gpu-check-"))
    out.mkdir(parents=True, exist_ok=True)
    report = {"device": gpu.check(), "machine": bench.machine(), "identical": {}, "bench": {},
              "unfinished": []}
    print(f"GPU: {report['device']}", flush=True)
    lock = out / "gpu.lock"
    names = args.jobs.split(",") if args.jobs else list(bench.LINEUPS)
    names.sort(key=lambda n: n != "showdown pool")  # the longest compile first
    def path(name):
        return out / f"{name.replace(' ', '_')}.json"

    running = {name: subprocess.Popen(
        [sys.executable, __file__, "--job", name, "--games", str(args.games), "--bench-games",
         str(bench_games), "--lock", str(lock), "--to", str(path(name))]) for name in names}
    for name, process in running.items():
        try:
            process.wait(timeout=max(1.0, args.deadline - (time.perf_counter() - began)))
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    failed = False
    result = bench.BenchResult(games=bench_games, machine=report["machine"],
                               device=report["device"])
    for name, process in running.items():
        found = json.loads(path(name).read_text()) if path(name).is_file() else {}
        if not found.get("done"):
            report["unfinished"].append(name)
            failed = True
        compiled = (f"kernel compiled in {found['compile_s']:.0f} s" if "compile_s" in found
                    else "kernel not compiled")
        unfinished = "" if found.get("done") else f" (UNFINISHED: exit {process.returncode})"
        print(f"{name}: {compiled}{unfinished}", flush=True)
        for n, check in found.get("identical", {}).items():
            report["identical"][f"{name}, {n} players"] = check
            failed |= bool(check["differ"])
            verdict = "DIFFER in " + ", ".join(check["differ"]) if check["differ"] else "identical"
            print(f"  {n} players, {check['games']:,} games: {verdict}", flush=True)
        for label, rates in found.get("bench", {}).items():
            result.gpu[label] = report["bench"][label] = rates
            print(f"  {label}: {rates['kernel']:,.0f} games/s (kernel), "
                  f"{rates['with outcome']:,.0f} with the outcome copied back", flush=True)
    cpu_rate = bench.kernel_rate(4, 200_000, threads=None, strategies="random")
    report["cpu_random_4p_all_threads"] = cpu_rate
    report["seconds"] = time.perf_counter() - began
    print(f"CPU, random, 4 players, all threads: {cpu_rate:,.0f} games/s", flush=True)
    print(bench.markdown(result))
    (out / "gpu_check.json").write_text(json.dumps(report, indent=1, default=str))
    (out / "bench.md").write_text(bench.markdown(result))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
