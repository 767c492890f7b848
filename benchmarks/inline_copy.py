"""The engine and some strategies compiled with Numba's own inliner and with samsim's copy of a
callee's blocks (``samsim.kernel.inlining``): seconds, and whether the machine code is the same.

    python benchmarks/inline_copy.py greedy,lookahead

Each side is a new process with an empty cache of its own, one after the other: the CPU engine
(``samsim.kernel.game.run_batch_nb``) and each decision function of the strategies given (their
entry points: ``samsim.kernel.abi``), compiled in the same order and with one hash seed (the order
of a set of names decides the order things compile in), so that the names Numba numbers as it goes
come out alike. Prints a line per part: seconds with Numba's inliner, with samsim's,
their ratio, and whether the assembly (of the whole linked module) is byte for byte the same, but
for the memory address a parallel loop's function is named after.
Exits 1 where any differs. The README's figures of the inliner's copy come from it.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

_SIDE = """
import hashlib, json, re, sys, time
from samsim import engine
from samsim.engine.registry import parse_spec
from samsim.kernel import abi, inlining
from samsim.kernel.contract import STAGES
from samsim.kernel.game import run_batch_nb

def digest(library, part):
    # a parallel loop's function is named after a memory address of the compiling process
    text = re.sub(r"gufunc_0x[0-9a-f]+", "gufunc_0x", library.get_asm_str())
    if sys.argv[2]:
        with open(f"{sys.argv[2]}/{part.replace(' ', '_')}.s", "w") as out:
            out.write(text)
    return hashlib.sha256(text.encode()).hexdigest()

parts = {"patched": inlining.PATCHED}
start = time.process_time()
engine.run_batch(1, 4, 0, strategies=["fixed"] * 4)
parts["engine"] = [time.process_time() - start,
                   digest(run_batch_nb.overloads[run_batch_nb.signatures[0]].library,
                                                   "engine")]
for spec in sys.argv[1].split(","):
    info = parse_spec(spec).info
    for stage in STAGES:
        if getattr(info.module, stage, None) is None:
            continue
        fn = info.function(stage)
        start = time.process_time()
        abi.address(fn, info.stage_sources(stage))
        entry = sys.modules["samsim_entry_" + abi.key(fn, info.stage_sources(stage))].entry
        part = f"{spec} {stage}"
        parts[part] = [time.process_time() - start, digest(entry._library, part)]
print(json.dumps(parts))
"""


def side(strategies: str, stock: bool, asm: Path | None) -> dict:
    cache = tempfile.mkdtemp(prefix="samsim-inline-copy-")
    try:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache, "PYTHONHASHSEED": "0",
               "SAMSIM_STOCK_INLINER": "1" if stock else "0"}
        folder = ""
        if asm:
            folder = asm / ("numba" if stock else "samsim")
            folder.mkdir(parents=True, exist_ok=True)
        done = subprocess.run([sys.executable, "-c", _SIDE, strategies, str(folder)], env=env,
                              capture_output=True, text=True)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    if done.returncode != 0:
        sys.exit(f"inline_copy: a side failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("strategies", nargs="?", default="greedy",
                        help="comma-separated strategy specs (default greedy)")
    parser.add_argument("--asm", type=Path, help="keep each part's assembly in this folder")
    args = parser.parse_args()
    stock = side(args.strategies, True, args.asm)
    ours = side(args.strategies, False, args.asm)
    if stock.pop("patched") or not ours.pop("patched"):
        sys.exit("inline_copy: SAMSIM_STOCK_INLINER did not switch the copy as expected")
    print(f"{'part':<24} {'Numba s':>8} {'samsim s':>9} {'ratio':>6}  same code")
    same = True
    for part, (seconds, code) in stock.items():
        mine, mine_code = ours[part]
        same &= code == mine_code
        print(f"{part:<24} {seconds:8.1f} {mine:9.1f} {seconds / mine:6.2f}  "
              f"{'yes' if code == mine_code else 'NO'}")
    total = sum(s for s, _ in stock.values()), sum(s for s, _ in ours.values())
    print(f"{'all':<24} {total[0]:8.1f} {total[1]:9.1f} {total[0] / total[1]:6.2f}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
