"""How fast this machine plays: what ``samsim bench`` measures and prints.

* games/s of the compiled kernel on ONE thread per player count (per core, so the figure does not
  depend on how many cores the machine has), random in every seat: the engine's own cost;
* the reference engine's games/s on the same games (it plays the identical games: the equivalence
  tests demand it), and the kernel's speed-up over it;
* the line-ups users study (``LINEUPS``: random, greedy, undercut, lookahead, the showdown pool) at
  4 players, per core and on all threads, and what that is against the reference engine playing
  random: what realistic play costs on this machine; on a Dask cluster too, when one is active
  (``samsim.engine.cluster``), measured in the same run as the threads it is compared with;
* scaling: games/s at 4 players with 1, 2, 4, ... threads up to all of Numba's threads, and the
  parallel efficiency (games/s per thread relative to one thread);
* optionally, compile time of the first game in a fresh process, with an empty and a warm cache.

Every timed run follows a warm-up (loading the compiled kernel, touching memory) and repeats
``repeat`` times, keeping the best: a busy machine only ever makes a run slower. Figures from one
run are compared as ratios; the machine line says what they were measured on.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

_COMPILE_PROBE = """
import json, time
t0 = time.perf_counter()
from samsim import engine
t1 = time.perf_counter()
engine.run_batch(1, 4, 0, threads=1)
t2 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "first_call": t2 - t1}))
"""


#: The line-ups ``samsim bench`` times at 4 players: a name, the strategies (one for every seat,
#: or a pool seated by its balanced design) and the share of ``games`` they play (slow play, fewer
#: games). The pool is the showdown's (experiments/showdown.toml): every library strategy but random.
SHOWDOWN_POOL = ("lookahead", "holiday", "undercut", "weighted", "greedy", "fixed", "builder",
                 "saver")
LINEUPS = {"random": ("random", 1), "greedy": ("greedy", 1 / 8), "undercut": ("undercut", 1 / 4),
           "lookahead": ("lookahead", 1 / 50), "showdown pool": (SHOWDOWN_POOL, 1 / 10)}
#: Chunks a cluster's measurement is cut into per task slot: every worker gets several.
CHUNKS_PER_SLOT = 4


@dataclass
class BenchResult:
    kernel: dict[int, float] = field(default_factory=dict)  # players -> games/s, 1 thread
    reference: dict[int, float] = field(default_factory=dict)  # players -> games/s
    scaling: dict[int, float] = field(default_factory=dict)  # threads -> games/s, 4 players
    #: line-up -> {"1 thread": games/s, "all threads": ..., "cluster": ...}, 4 players
    lineups: dict[str, dict[str, float]] = field(default_factory=dict)
    threads: int = 0  # what "all threads" was
    cluster: str = ""  # the cluster measured, in words ("" if none)
    compile: dict[str, float] = field(default_factory=dict)  # cold/warm seconds
    games: int = 0
    reference_games: int = 0
    machine: str = ""
    device: str = ""  # the GPU measured (``--backend cuda``), in words; "" if none
    #: line-up (4 players) or "random, N players" -> {"kernel": games/s, "with outcome": games/s,
    #: "first batch s": seconds}, on the GPU
    gpu: dict[str, dict[str, float]] = field(default_factory=dict)


def _best_rate(run, games: int, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return games / best


def seated(players: int, strategies):
    """A bench line-up's seats: one strategy in every seat, or a pool by its balanced design."""
    from samsim.engine.designs import pool_design
    from samsim.engine.lineup import lineup

    if isinstance(strategies, str):
        return lineup(players, strategies)
    return pool_design(players, list(strategies))


def kernel_rate(players: int, games: int, seed: int = 1, threads: int = 1, repeat: int = 3,
                data=None, strategies="random", chunk: int | None = None) -> float:
    """Games per second of the compiled kernel with ``strategies`` (a spec for every seat, or a
    pool: a list) on ``threads`` threads, played in chunks as a run plays them (of
    ``DEFAULT_CHUNK`` games unless ``chunk``; ``samsim.engine.batches``: on the active cluster,
    if there is one)."""
    from collections import deque

    from samsim import components, engine

    data = data or components.load()
    seats = seated(players, strategies)
    chunk = chunk or engine.DEFAULT_CHUNK

    def play(n):
        deque(engine.batches([(0, n)], players, seed, data, seats, chunk, threads), maxlen=0)

    engine.warm_up(players, seed, data, seats, threads)
    play(min(games, 2000))  # touch the memory, start the workers' first tasks
    return _best_rate(lambda: play(games), games, repeat)


def lineup_rates(games: int, seed: int = 1, repeat: int = 3, note=lambda text: None) -> dict:
    """``LINEUPS`` at 4 players: games/s per core, on all threads, and on the active cluster."""
    import numba

    from samsim.engine import cluster

    on = cluster.active()
    out = {}
    for name, (strategies, share) in LINEUPS.items():
        n = max(500, int(games * share))
        rates = {}
        with cluster.here():
            rates["1 thread"] = kernel_rate(4, n, seed, 1, repeat, strategies=strategies)
            note(f"{name}: {rates['1 thread']:,.0f} games/s on 1 thread")
            most = numba.config.NUMBA_NUM_THREADS
            rates["all threads"] = kernel_rate(4, n * min(most, 4), seed, most, repeat,
                                               strategies=strategies)
            note(f"{name}: {rates['all threads']:,.0f} games/s on {most} threads")
        if on is not None:
            slots = on.slots()
            total = n * min(slots, 4)
            rates["cluster"] = kernel_rate(4, total, seed, None, repeat, strategies=strategies,
                                           chunk=max(256, total // (CHUNKS_PER_SLOT * slots)))
            note(f"{name}: {rates['cluster']:,.0f} games/s on the cluster")
        out[name] = rates
    return out


#: Games per GPU measurement batch: enough to fill an H200's threads many times over.
GPU_GAMES = 1 << 22


def gpu_rates(players: int, games: int, strategies, seed: int = 1, repeat: int = 3,
              data=None) -> dict[str, float]:
    """Games/s on the GPU (the cuda backend must be on): the kernel alone (the state stays on
    the device) and with each game's outcome brought back to the host as a run brings it
    (``samsim.engine.play.OUTCOME``), and the seconds of the first batch (compiling or loading
    the line-up's kernel)."""
    from samsim import components
    from samsim.engine import play
    from samsim.kernel.state import allocate

    data = data or components.load()
    seats = seated(players, strategies)
    host = allocate(data.components, games, players)  # pages touched only where copied to

    def run(fields):
        play.run_batch(games, players, seed, 0, data, strategies=seats, reuse=host, fields=fields)

    start = time.perf_counter()
    run(())
    first = time.perf_counter() - start
    return {"kernel": _best_rate(lambda: run(()), games, repeat),
            "with outcome": _best_rate(lambda: run(play.OUTCOME), games, repeat),
            "first batch s": first}


#: Player counts ``samsim bench --backend cuda`` measures random at.
GPU_PLAYERS = (3, 4, 5, 6)


def run_gpu(games: int = GPU_GAMES, seed: int = 1, repeat: int = 3,
            note=lambda text: None) -> BenchResult:
    """``samsim bench --backend cuda``: random at each player count (``GPU_PLAYERS``), then
    ``LINEUPS`` at 4 players (each its share of ``games``), on this process's GPU."""
    from samsim.engine import gpu

    out = BenchResult(games=games, machine=machine(), device=gpu.check())
    for n in GPU_PLAYERS:
        out.gpu[f"random, {n} players"] = gpu_rates(n, games, "random", seed, repeat)
        note(f"random, {n} players: {out.gpu[f'random, {n} players']['kernel']:,.0f} games/s")
    for name, (strategies, share) in LINEUPS.items():
        rates = gpu_rates(4, max(1024, int(games * share)), strategies, seed, repeat)
        out.gpu[name] = rates
        note(f"{name}: {rates['kernel']:,.0f} games/s")
    return out


def reference_rate(players: int, games: int, seed: int = 1, data=None) -> float:
    """Games per second of the plain-Python reference engine (same games as the kernel's)."""
    from samsim import components, reference

    data = data or components.load()
    reference.play_game(data, players, seed, 0)  # warm-up: imports, data, first-call caches
    start = time.perf_counter()
    for game in range(games):
        reference.play_game(data, players, seed, game)
    return games / (time.perf_counter() - start)


def thread_counts() -> list[int]:
    import numba

    most = numba.config.NUMBA_NUM_THREADS
    counts, k = [], 1
    while k < most:
        counts.append(k)
        k *= 2
    return counts + [most]


def compile_times() -> dict[str, float]:
    """Import and first-game times in fresh processes, with an empty then a warm cache."""
    with tempfile.TemporaryDirectory(prefix="samsim-numba-cache-") as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        out = {}
        for label in ("cold", "warm"):
            # cwd: `python -c` imports from its working folder first (a checkout, not the install)
            done = subprocess.run([sys.executable, "-c", _COMPILE_PROBE], env=env, check=True,
                                  capture_output=True, text=True, cwd=cache)
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
    return (f"{cpu}, {os.cpu_count()} logical cores, {numba.config.NUMBA_NUM_THREADS} Numba "
            f"threads; Python {platform.python_version()}, Numba {numba.__version__}, NumPy "
            f"{numpy.__version__}; samsim {samsim.__version__}")


def run(players=(3, 4, 5, 6), games: int = 100_000, reference_games: int = 200, seed: int = 1,
        threads=None, compile: bool = False, repeat: int = 3, note=lambda text: None) -> BenchResult:
    """Measure everything ``samsim bench`` prints; ``note`` hears each figure as it comes."""
    import numba

    from samsim.engine import cluster

    on = cluster.active()
    out = BenchResult(games=games, reference_games=reference_games, machine=machine(),
                      threads=numba.config.NUMBA_NUM_THREADS,
                      cluster=on.describe() if on is not None else "")
    if compile:
        note("compile time: empty cache, then warm (the cold one compiles everything: minutes)")
        out.compile = compile_times()
    with cluster.here():
        for n in players:
            out.kernel[n] = kernel_rate(n, games, seed, 1, repeat)
            note(f"{n} players: {out.kernel[n]:,.0f} games/s on 1 thread")
            out.reference[n] = reference_rate(n, reference_games, seed)
            note(f"{n} players: reference engine {out.reference[n]:,.0f} games/s")
    out.lineups = lineup_rates(games, seed, repeat, note)
    with cluster.here():
        for k in threads or thread_counts():
            out.scaling[k] = kernel_rate(4, games * min(k, 4), seed, k, repeat)
            note(f"4 players, {k} threads: {out.scaling[k]:,.0f} games/s")
    return out


GPU_HEADERS = ("line-up", "games/s, kernel", "games/s, with outcome", "first batch s")


def tables(result: BenchResult) -> list[tuple[tuple[str, ...], list[list[str]]]]:
    """(headers, rows) of each table: per player count, per line-up, per thread count (on a
    GPU: one table, per line-up)."""
    if result.device:
        return [(GPU_HEADERS, [[name, f"{r['kernel']:,.0f}", f"{r['with outcome']:,.0f}",
                                f"{r['first batch s']:.1f}"] for name, r in result.gpu.items()])]
    per_players = [[str(n), f"{rate:,.0f}", f"{result.reference[n]:,.1f}",
                    f"{rate / result.reference[n]:,.0f}x"] for n, rate in result.kernel.items()]
    one = result.scaling.get(1)
    per_threads = [[str(k), f"{rate:,.0f}", f"{rate / one:.2f}x" if one else "",
                    f"{rate / one / k:.0%}" if one else ""] for k, rate in result.scaling.items()]
    reference = result.reference.get(4)
    most = f"{result.threads} threads"
    lineup_headers = ("line-up (4 players)", "games/s, 1 thread", f"games/s, {most}",
                      "vs 1 thread", "1 thread vs reference")
    if result.cluster:
        lineup_headers += ("games/s, cluster", f"cluster vs {most}")
    per_lineup = []
    for name, rates in result.lineups.items():
        row = [name, f"{rates['1 thread']:,.0f}", f"{rates['all threads']:,.0f}",
               f"{rates['all threads'] / rates['1 thread']:.2f}x",
               f"{rates['1 thread'] / reference:,.0f}x" if reference else ""]
        if "cluster" in rates:
            row += [f"{rates['cluster']:,.0f}", f"{rates['cluster'] / rates['all threads']:.0%}"]
        per_lineup.append(row)
    return [(PLAYER_HEADERS, per_players), (lineup_headers, per_lineup),
            (THREAD_HEADERS, per_threads)]


PLAYER_HEADERS = ("players", "games/s, 1 thread", "reference games/s", "speed-up")
THREAD_HEADERS = ("threads", "games/s (4 players, random)", "vs 1 thread", "efficiency")


def markdown(result: BenchResult) -> str:
    from samsim.engine.play import DEFAULT_CHUNK

    def table(headers, rows):
        lines = ["| " + " | ".join(headers) + " |", "| " + " | ".join("---:" for _ in headers) + " |"]
        return lines + ["| " + " | ".join(row) + " |" for row in rows]

    lines = []
    for headers, rows in tables(result):
        lines += table(headers, rows) + [""]
    if result.device:
        return "\n".join(lines + [
            f"GPU: {result.device}; {result.games:,} games per measurement (line-ups: a share, "
            f"lookahead 1/50), best of the repeats; kernel: the state stays on the device; with "
            f"outcome: each game's results copied back as a run copies them.",
            f"Machine: {result.machine}."]) + "\n"
    if result.compile:
        c = result.compile
        lines += [f"Compile, first game in a fresh process: cold {c['cold']:.1f} s (empty Numba "
                  f"cache), warm {c['warm']:.1f} s (from the cache); `import samsim.engine` "
                  f"{c['warm_import']:.1f} s.", ""]
    lines += [f"Kernel: {result.games:,} games per player count (x threads for scaling, up to 4x), "
              f"random strategy, best of the repeats after a warm-up, in chunks of "
              f"{DEFAULT_CHUNK:,} games as runs play them; line-ups: a share of that (lookahead "
              f"1/50), on a cluster in {CHUNKS_PER_SLOT} chunks per task slot; reference: {result.reference_games:,} games of random, the "
              f"'vs reference' column against its 4-player rate.", f"Machine: {result.machine}."]
    if result.cluster:
        lines += [f"Cluster: {result.cluster}."]
    return "\n".join(lines) + "\n"


__all__ = ["BenchResult", "run", "run_gpu", "gpu_rates", "kernel_rate", "reference_rate", "compile_times", "markdown",
           "tables", "thread_counts", "machine", "seated"]
