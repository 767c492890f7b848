"""The one script to run on a machine with a GPU: identical games, then speed, in one command.

    python benchmarks/gpu_check.py [--games 4096] [--bench-games 4194304] [--deadline 540]
                                   [--jobs random,lookahead] [--registers 64,128]
                                   [--memory local,global] [--leave | --collect] [--out DIR]

One job per line-up of ``samsim bench`` (random, greedy, undercut, lookahead, the showdown pool
with tuned beside it: together every library strategy) and place of a thread's game
(``--memory``: ``samsim.kernel.cuda.STATE_MEMORY``, local or global; both by default, so that one
lease says which is faster and proves the games of each), each in its own process, all at once:

1. compile the line-up's GPU kernel (minutes on one core; the pool's nine 2 min 20 s on the
   2-core VM since the switch goes stage by stage, 9.5 minutes before, which took more than the
   755 s a lent H200 machine's lease left it), while one more
   process compiles the CPU engine and the library for all of them; in parallel the check fits
   the device's ten-minute command, in turn it would not;
2. ``--games`` games at each of 3, 4, 5 and 6 players on the GPU and on the CPU, every field of
   every game's final state compared;
3. ``samsim bench --backend cuda``'s measurement of the line-up (random: at every player count);
4. random's job in the default memory then runs the command line on the GPU: ``samsim simulate
   --backend cuda`` of ``--run-games`` games written to Parquet, the same run stopped by Ctrl-C
   after its first chunks and finished with ``--resume``, and the two folders' games compared.

``--registers 64,128`` adds a job per cap and memory: random's kernel compiled with at most that
many registers per thread (``samsim.kernel.cuda.MAX_REGISTERS``), its games checked, its speed at 4
players measured: what the cap's extra blocks per multiprocessor buy against its spills.

The GPU runs of steps 2 and 3 hold a lock, so that one process at a time uses the GPU and the
speeds are measured alone. Each job writes its results as it goes (``DIR/<job>.json``, its output
in ``DIR/<job>.log``); what is not done by ``--deadline`` seconds is reported unfinished and
killed, or with ``--leave`` left running (the jobs run in sessions of their own), for ``--collect
--out DIR`` to wait for and report in a second command. Then the CPU's all-thread rate of random at
4 players, for the ratio, and the seconds random's kernel takes to load from the cache in a new
process. Prints one line per result, writes ``DIR/gpu_check.json`` and ``DIR/bench.md``; exits 1 if
any game differs or a job did not finish.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from cuda_ptx import caps  # beside this script

#: Identity checks seat these beside a bench line-up's strategies: tuned decides with weighted's
#: functions (one kernel), so the pool's games also check its parameters.
BESIDE = {"showdown pool": ("tuned",)}
#: The command line's run on the GPU (step 4, ``--run-games``), in 16 chunks (Parquet files),
#: the interrupted copy stopped once 3 are written.
RUN_GAMES, RUN_CHUNKS, RUN_CUT = 1 << 22, 16, 3
#: A job's name: its line-up, then where a thread keeps its game (``--memory``: each line-up in
#: each), then for random's kernel a cap on registers (``--registers``).
MEMORY, CAPPED = "{} memory", "at most {} registers"


def _name(lineup: str, memory: str, cap: int | None = None) -> str:
    return ", ".join([lineup, MEMORY.format(memory), *([CAPPED.format(cap)] if cap else [])])


def _lineup(name: str) -> tuple[str, str, int | None]:
    """A job's line-up, state memory and cap on registers (None: the assembler's choice)."""
    found = re.fullmatch(r"(.+), (\w+) memory(?:, at most (\d+) registers)?", name)
    lineup, memory, cap = found.groups()
    return lineup, memory, int(cap) if cap else None


def _lock(path: Path):
    """Hold ``path``'s lock until the returned file closes."""
    held = path.open("a")
    fcntl.flock(held, fcntl.LOCK_EX)
    return held


def warm_cpu() -> None:
    """The CPU engine and every library strategy, compiled while the kernels compile: the jobs'
    CPU games then load them (a job needing one being compiled waits for it: jit.compiling)."""
    from samsim import components
    from samsim.engine import play
    from samsim.engine.bench import seated
    from samsim.engine.registry import library_names

    play.run_batch(1, 4, 11, 0, components.load(), strategies=seated(4, library_names()))


def job(name: str, games: int, bench_games: int, run_games: int, folder: Path,
        out: Path) -> None:
    """One line-up's compile, identity check and speed, written to ``out`` as they come."""
    from samsim import components
    from samsim.engine import bench, play
    from samsim.kernel import cuda
    from samsim.kernel.state import State

    data = components.load()
    plain = _name("random", cuda.STATE_MEMORY)  # random as a user runs it: step 4
    lineup, cuda.STATE_MEMORY, cuda.MAX_REGISTERS = _lineup(name)
    strategies, share = bench.LINEUPS[lineup]
    checked = strategies if lineup not in BESIDE else (*strategies, *BESIDE[lineup])
    found = {"job": name, "identical": {}, "bench": {}}

    def write(**more):
        found.update(more)
        out.write_text(json.dumps(found, indent=1))

    start = time.perf_counter()
    with play.backend("cuda"):
        play.run_batch(1, 4, 11, 0, data, strategies=bench.seated(4, checked))
    write(compile_s=time.perf_counter() - start)
    cpu = {n: play.run_batch(games, n, 11, 0, data, strategies=bench.seated(n, checked))
           for n in (3, 4, 5, 6)}
    with _lock(folder / "gpu.lock"):  # one process on the GPU at a time
        for n, on_cpu in cpu.items():
            with play.backend("cuda"):
                on_gpu = play.run_batch(games, n, 11, 0, data, strategies=bench.seated(n, checked))
            differ = [f for f in State._fields
                      if not np.array_equal(getattr(on_cpu, f), getattr(on_gpu, f))]
            found["identical"][n] = {"games": games, "differ": differ,
                                     "strategies": [checked] if isinstance(checked, str)
                                     else list(checked)}
            write()
        with play.backend("cuda"):
            if cuda.MAX_REGISTERS is not None:
                found["bench"][name] = bench.gpu_rates(4, bench_games, "random")
            elif lineup == "random":  # as samsim bench measures it: at every player count
                for n in bench.GPU_PLAYERS:
                    found["bench"][f"random, {n} players, {cuda.STATE_MEMORY} memory"] = \
                        bench.gpu_rates(n, bench_games, "random")
                    write()
            else:
                found["bench"][name] = bench.gpu_rates(4, max(1024, int(bench_games * share)),
                                                       strategies)
            write()
            if name == plain and run_games:
                try:
                    write(run=command_line(run_games))
                except Exception as error:  # noqa: BLE001  (reported, the rest kept)
                    write(run={"error": f"{type(error).__name__}: {error}"})
    write(done=True)


def command_line(games: int) -> dict:
    """Step 4: ``samsim simulate --backend cuda`` whole, and interrupted then resumed."""
    import samsim
    from samsim.runs import results

    chunk = -(-games // RUN_CHUNKS)
    simulate = [sys.executable, "-m", "samsim.cli", "simulate", "--players", "4", "--games",
                str(games), "--strategies", "random", "--backend", "cuda", "--chunk-size",
                str(chunk), "--seed", "7", "--out"]
    found = {"games": games, "chunk": chunk}
    with tempfile.TemporaryDirectory(prefix="gpu-check-run-") as folder:
        whole, cut = Path(folder) / "whole", Path(folder) / "cut"
        start = time.perf_counter()
        done = subprocess.run([*simulate, str(whole)], capture_output=True, text=True)
        found["whole s"] = time.perf_counter() - start
        found["whole exit"] = done.returncode
        said = done.stdout + done.stderr
        played = re.search(r"played [\d,]+ games in [\d.]+ s \([\d,]+ games/s\)", said)
        found["whole said"] = played.group(0) if played else said.strip()[-500:]
        # restore Ctrl-C's default, which a shell's background job starts without
        proc = subprocess.Popen([*simulate, str(cut)], stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        while len(list((cut / "results").glob("*.parquet"))) < RUN_CUT and proc.poll() is None:
            time.sleep(0.02)
        proc.send_signal(signal.SIGINT)
        sent = time.perf_counter()
        _, said = proc.communicate(timeout=300)
        found["stopped s"] = time.perf_counter() - sent
        found["interrupted exit"] = proc.returncode
        found["interrupted said"] = said.strip().splitlines()[-2:]
        found["kept"] = results.run_metadata(cut)["games_found"]
        resumed = subprocess.run([*simulate, str(cut), "--resume"], capture_output=True, text=True)
        found["resumed exit"] = resumed.returncode
        try:
            pd.testing.assert_frame_equal(samsim.load(whole), samsim.load(cut))
            found["same"] = True
        except (AssertionError, OSError, ValueError) as error:
            found["same"] = False
            found["differ"] = str(error)[:2000]
    return found


def _run_failed(run: dict) -> bool:
    return "error" in run or not (run["same"] and run["whole exit"] == 0
                                  and run["interrupted exit"] == 130
                                  and 0 < run["kept"] < run["games"] and run["resumed exit"] == 0)


def memories(text: str) -> list[str]:
    """``--memory``: some of samsim.kernel.cuda.MEMORIES, comma-separated, each once."""
    from samsim.kernel.cuda import MEMORIES

    found = text.split(",")
    if set(found) - set(MEMORIES) or len(set(found)) < len(found):
        raise argparse.ArgumentTypeError(f"some of {','.join(MEMORIES)}, each once, not {text!r}")
    return found


def _fail(message: str):
    print(f"gpu_check: {message}", file=sys.stderr)
    raise SystemExit(2)


def _path(out: Path, name: str) -> Path:
    return out / f"{name.replace(' ', '_')}.json"


def _start(args, out: Path, bench_games: int) -> list[str]:
    """Start the jobs (in sessions of their own: with --leave they outlive this command)."""
    from samsim.engine import bench

    lineups = args.jobs.split(",") if args.jobs else list(bench.LINEUPS)
    unknown = sorted(set(lineups) - set(bench.LINEUPS))
    if unknown:
        _fail(f"--jobs: no line-up {', '.join(unknown)} (one of {', '.join(bench.LINEUPS)})")
    names = [_name(lineup, memory, cap) for memory in args.memory
             for lineup, cap in [*((lineup, None) for lineup in lineups),
                                 *(("random", cap) for cap in dict.fromkeys(args.registers))]]
    names.sort(key=lambda n: not n.startswith("showdown pool"))  # the longest compile first
    for old in [*out.glob("*.json"), *out.glob("*.log")]:
        old.unlink()

    def spawn(name, *more):
        """A job in a session of its own, its output in DIR/<job>.log: a job holding this
        command's output open would hold the command (a pipe, a tee) open with it."""
        with open(_path(out, name).with_suffix(".log"), "w") as log:
            return subprocess.Popen([sys.executable, __file__, "--job", name, "--out", str(out),
                                     *more], stdin=subprocess.DEVNULL, stdout=log,
                                    stderr=subprocess.STDOUT, start_new_session=True).pid

    pids = {"cpu": spawn("cpu")}
    for name in names:
        pids[name] = spawn(name, "--games", str(args.games), "--bench-games", str(bench_games),
                           "--run-games", str(args.run_games))
    (out / "jobs.json").write_text(json.dumps(pids))
    return names


_FIRST_GAME = """
import time
from samsim.engine import play
start = time.perf_counter()
with play.backend("cuda"):
    play.run_batch(1, 4, 11, 0, strategies="random")
print(time.perf_counter() - start)
"""


def _from_cache() -> float:
    """Seconds to a first game of random in a new process, its kernel compiled by a job: what
    a user's second run waits (numba-cuda's cache keeps the kernel whole)."""
    done = subprocess.run([sys.executable, "-c", _FIRST_GAME], capture_output=True, text=True,
                          check=True, cwd=Path(__file__).resolve().parents[1])
    return float(done.stdout.split()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4096)
    parser.add_argument("--bench-games", type=int, default=None)
    parser.add_argument("--deadline", type=float, default=540.0)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--jobs", default=None, help="some of the line-ups (comma-separated)")
    parser.add_argument("--run-games", type=int, default=RUN_GAMES,
                        help="games of the command line's run on the GPU (0: none)")
    parser.add_argument("--registers", type=caps, default=[],
                        help="also random's kernel under these caps on registers (comma-separated)")
    parser.add_argument("--memory", type=memories, default=["local", "global"],
                        help="where a thread keeps its game: each line-up in each (local,global)")
    parser.add_argument("--leave", action="store_true",
                        help="leave the jobs unfinished at the deadline running (see --collect)")
    parser.add_argument("--collect", action="store_true",
                        help="start nothing: wait for the jobs an earlier --leave left in --out")
    parser.add_argument("--job", help=argparse.SUPPRESS)
    args = parser.parse_args()

    from samsim.engine import bench, gpu
    from samsim.kernel import cuda

    bench_games = args.bench_games or bench.GPU_GAMES
    if args.job == "cpu":
        warm_cpu()
        return 0
    if args.job:
        job(args.job, args.games, bench_games, args.run_games, args.out,
            _path(args.out, args.job))
        return 0

    if args.collect and (args.out is None or not (args.out / "jobs.json").is_file()):
        _fail("--collect: give the --out of a run that left its jobs running")
    began = time.perf_counter()
    out = args.out or Path(tempfile.mkdtemp(prefix="gpu-check-"))
    out.mkdir(parents=True, exist_ok=True)
    try:
        device = gpu.check()
    except gpu.CudaUnavailable as error:
        _fail(str(error))
    report = {"device": device, "machine": bench.machine(), "identical": {}, "bench": {},
              "unfinished": []}
    print(f"GPU: {device}", flush=True)
    if args.collect:
        names = [n for n in json.loads((out / "jobs.json").read_text()) if n != "cpu"]
    else:
        names = _start(args, out, bench_games)
    pids = json.loads((out / "jobs.json").read_text())

    def finished(name):
        path = _path(out, name)
        return path.is_file() and json.loads(path.read_text()).get("done", False)

    def alive(pid):  # a job this process started and did not reap is a zombie: not alive
        stat = Path(f"/proc/{pid}/stat")
        return stat.is_file() and stat.read_text().rsplit(")", 1)[1].split()[0] != "Z"

    while time.perf_counter() - began < args.deadline and \
            any(alive(pids[n]) and not finished(n) for n in names):
        time.sleep(1)
    running = {n for n in names if alive(pids[n])}
    if not args.leave:
        for pid in pids.values():
            with contextlib.suppress(OSError):
                os.killpg(pid, signal.SIGKILL)
    failed = False
    result = bench.BenchResult(games=bench_games, machine=report["machine"], device=device)
    for name in names:
        path = _path(out, name)
        found = json.loads(path.read_text()) if path.is_file() else {}
        if not found.get("done"):
            report["unfinished"].append(name)
            failed = True
        compiled = (f"kernel compiled in {found['compile_s']:.0f} s" if "compile_s" in found
                    else "no kernel yet")
        if found.get("done"):
            unfinished = ""
        elif name in running:
            unfinished = f" (UNFINISHED: {'still running' if args.leave else 'killed'})"
        else:  # it stopped by itself: its log's last line says why
            said = [line for line in _path(out, name).with_suffix(".log").read_text().splitlines()
                    if line.strip() and "Warning" not in line]
            report.setdefault("failed", {})[name] = why = said[-1] if said else "no output"
            unfinished = f" (FAILED: {why}; the whole of it in {_path(out, name).stem}.log)"
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
        if "run" in found:
            report["run"] = run = found["run"]
            failed |= _run_failed(run)
            print("  samsim simulate --backend cuda" + (f": {run['error']}" if "error" in run else
                  f", {run['games']:,} games in chunks of {run['chunk']:,}: exit "
                  f"{run['whole exit']}, {run['whole s']:.1f} s from start to end "
                  f"({run['whole said']}); Ctrl-C after {RUN_CUT} chunks: exit "
                  f"{run['interrupted exit']} {run['stopped s']:.1f} s after the signal, "
                  f"{run['kept']:,} games kept; --resume: exit {run['resumed exit']}; "
                  f"{'the same games' if run['same'] else 'DIFFERENT games'}"), flush=True)
    plain = _name("random", cuda.STATE_MEMORY)
    if plain in names and plain not in report["unfinished"]:
        report["random kernel from the cache s"] = cached = _from_cache()
        print(f"random's kernel in a new process, from the cache: {cached:.1f} s", flush=True)
    cpu_rate = bench.kernel_rate(4, 200_000, threads=None, strategies="random")
    report["cpu_random_4p_all_threads"] = cpu_rate
    report["seconds"] = time.perf_counter() - began
    print(f"CPU, random, 4 players, all threads: {cpu_rate:,.0f} games/s", flush=True)
    table = bench.markdown(result)
    print(table)
    (out / "gpu_check.json").write_text(json.dumps(report, indent=1, default=str))
    (out / "bench.md").write_text(table)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
