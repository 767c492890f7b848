"""Seconds to compile the CUDA simulator's kernel of some strategies, from an empty cache, and
which functions take them.

    python benchmarks/sim_compile.py builder,fixed,greedy,holiday,lookahead,random,saver,tuned,undercut,weighted
    NUMBA_OPT=1 python benchmarks/sim_compile.py random --inline none

What the tests of the GPU backend spend most of their time on (tests/test_cuda.py compiles
random's kernel for the simulator in CI, the library's in its slow tests): the wall and CPU
seconds of a first batch of the strategies' pool design in Numba's CUDA simulator, and of a
second (compiled) for comparison, then each compiled function's own seconds (Numba's
"numba:compile" events, its callees' compiles taken out), longest first. ``--inline`` sets
samsim.kernel.cuda.INLINE, how the copies of the rules compile; ``--wrappers`` compiles every
copy with the wrappers that let Python and C call it, as before samsim left them out
(samsim.kernel.retarget), for a comparison run beside one without. The cache is a fresh
temporary folder, removed afterwards. The README's figures of the simulator's compile come
from it.
"""

from __future__ import annotations

import argparse
import collections
import os
import resource
import shutil
import sys
import tempfile
import time


def _own_times(event):
    """A Numba event listener: seconds per compiled function (``.seconds``), less those of the
    compiles nested in it (a callee compiles while its caller is typed)."""

    class OwnTimes(event.Listener):
        def __init__(self):
            self.seconds = collections.Counter()
            self._open = []

        def on_start(self, e):
            fn = e.data["dispatcher"].py_func
            self._open.append([f"{fn.__module__}:{fn.__qualname__}", time.perf_counter(), 0.0])

        def on_end(self, e):
            name, start, nested = self._open.pop()
            took = time.perf_counter() - start
            self.seconds[name] += took - nested
            if self._open:
                self._open[-1][2] += took

    return OwnTimes()


def _with_wrappers() -> None:
    """samsim.kernel.retarget compiling every copy with its wrappers."""
    from numba import njit

    from samsim.kernel import retarget

    def wrapped(**options):
        for name in ("no_cpython_wrapper", "no_cfunc_wrapper"):
            options.pop(name, None)
        return njit(**options)

    retarget.njit = wrapped


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("strategies", help="comma-separated strategy specs")
    parser.add_argument("--players", type=int, default=3, choices=range(3, 7))
    parser.add_argument("--games", type=int, default=64, help="games of each batch")
    parser.add_argument("--inline", choices=("never", "none"), default="never")
    parser.add_argument("--top", type=int, default=25, help="functions listed")
    parser.add_argument("--wrappers", action="store_true",
                        help="compile every copy with Python's and C's wrappers")
    args = parser.parse_args()
    if args.games < 1:
        print("sim_compile: --games must be a positive whole number", file=sys.stderr)
        return 2
    cache = tempfile.mkdtemp(prefix="samsim-sim-compile-")
    os.environ["NUMBA_CACHE_DIR"] = cache  # read when samsim.kernel.jit is imported, below
    os.environ["NUMBA_ENABLE_CUDASIM"] = "1"  # read when numba.cuda is imported
    try:
        from numba.core import event

        from samsim.engine import play
        from samsim.engine.designs import pool_design
        from samsim.engine.registry import StrategyError
        from samsim.kernel import cuda

        cuda.INLINE = None if args.inline == "none" else args.inline
        if args.wrappers:
            _with_wrappers()
        try:
            seats = pool_design(args.players, args.strategies.split(","))
        except StrategyError as error:
            print(f"sim_compile: {error}", file=sys.stderr)
            return 2
        own = _own_times(event)
        event.register("numba:compile", own)
        for batch in ("first", "second"):
            wall, cpu = time.perf_counter(), time.process_time()
            with play.backend("cuda"):
                play.run_batch(args.games, args.players, 11, 0, strategies=seats)
            print(f"{batch} batch: {time.perf_counter() - wall:.2f} s, "
                  f"{time.process_time() - cpu:.2f} s of CPU", flush=True)
        event.unregister("numba:compile", own)
        print(f"compiled functions, their own seconds ({sum(own.seconds.values()):.1f} s in all; "
              f"peak memory {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024} MB):")
        for name, seconds in own.seconds.most_common(args.top):
            print(f"{seconds:8.1f} s  {name}")
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
