"""Seconds to compile each decision function of some strategies, from an empty cache.

    python benchmarks/entry_compile.py lookahead,weighted

What a strategy's first run costs on the CPU (its entry points: ``samsim.kernel.abi``), one line
per decision function, in the order given; a function already compiled for an earlier strategy
(tuned shares weighted's) or a helper compiled out of line for an earlier one loads at once. The
cache is a fresh temporary folder, removed afterwards. The README's compile times of the SWITCH
decisions come from it.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("strategies", help="comma-separated strategy specs")
    args = parser.parse_args()
    cache = tempfile.mkdtemp(prefix="samsim-entry-compile-")
    os.environ["NUMBA_CACHE_DIR"] = cache  # read when samsim.kernel.jit is imported, below
    try:
        from samsim.engine.registry import StrategyError, parse_spec
        from samsim.kernel import abi
        from samsim.kernel.contract import STAGES

        for spec in args.strategies.split(","):
            try:
                info = parse_spec(spec).info
            except StrategyError as error:
                print(f"entry_compile: {error}", file=sys.stderr)
                return 2
            for stage in STAGES:
                if getattr(info.module, stage, None) is None:
                    continue  # the engine's default decision: not the strategy's own
                fn = info.function(stage)
                start = time.perf_counter()
                abi.address(fn, info.stage_sources(stage))
                print(f"{time.perf_counter() - start:7.1f} s  {spec} {stage} "
                      f"({fn.__module__}.{fn.__name__})", flush=True)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
