"""Compile a line-up's GPU kernel for an H200 on a machine without a GPU, and describe its PTX.

    python benchmarks/cuda_ptx.py random,weighted [--inline keep] [--fma] [--memory global]

Uses the real compiler (NVVM, from the CUDA wheels of ``samsim[cuda]``) for compute capability
9.0; only loading the kernel needs the device, so the script stops after NVVM. Prints one line:
seconds (and those in NVVM: the rest is Numba's typing and lowering), PTX characters, fused
multiply-adds (``fma.rn.f64``), double multiplies, and calls through an address
(``callprototype``); a second line: what the PTX assembles to for an H200 (``sm_90a``, by
nvJitLink, which needs no device either; a device's first launch does the same): registers per
thread, stack and spills, and so how many of the kernel's 128-thread blocks one multiprocessor
holds at once (registers are the bound: the stack, a local copy of each game, is not), and the
seconds it took. ``--inline keep`` compiles the copies of the rules with their
own ``inline="always"`` (the design's measured alternative), ``--fma`` with NVVM's default
contraction (what samsim turns off), ``--ptx FILE`` keeps the PTX, ``--registers N,M`` adds a
line per cap on registers (numba-cuda's ``max_registers``: what a cap costs in spills, and the
blocks it lets in), ``--memory global`` the kernel that plays each game in its rows of device
memory instead of a local copy (``samsim.kernel.cuda.STATE_MEMORY``). The tests run it
(tests/test_cuda.py); the README's compile times come from it.
Run it in a fresh cache (NUMBA_CACHE_DIR) with NUMBA_ENABLE_CUDASIM=0.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path


def main() -> int:
    from samsim.kernel.cuda import MEMORIES, STATE_MEMORY

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("strategies", help="comma-separated, seated as a pool at 4 players")
    parser.add_argument("--inline", choices=("never", "keep"), default="never")
    parser.add_argument("--fma", action="store_true", help="leave NVVM's contraction on")
    parser.add_argument("--ptx", type=Path, help="write the PTX to this file")
    parser.add_argument("--registers", type=caps, default=[],
                        help="caps to assemble it with too (N,M)")
    parser.add_argument("--memory", choices=MEMORIES, default=STATE_MEMORY,
                        help="where a thread keeps its game (samsim.kernel.cuda.STATE_MEMORY)")
    args = parser.parse_args()

    import numba.cuda.codegen as codegen
    import numba.cuda.dispatcher as dispatcher

    class H200:  # the device this machine lacks: compiling reads only its compute capability
        compute_capability = (9, 0)

    dispatcher.get_current_device = lambda: H200()
    # the kernel cache's key and the PTX's target ask the driver for the device: none here
    codegen.JITCUDACodegen.magic_tuple = lambda self: ("no driver", H200.compute_capability)
    codegen.CUDACodeLibrary._ensure_cc = lambda self, cc: cc or (*H200.compute_capability, "a")

    from numba.cuda.cudadrv import nvvm

    from samsim import components
    from samsim.engine import gpu
    from samsim.engine.designs import pool_design
    from samsim.kernel import cuda

    ptx, in_nvvm = [], []
    compile_ir = nvvm.compile_ir

    def keep(*a, **options):
        if args.fma:
            options.pop("fma", None)
        start = time.perf_counter()
        ptx.append(compile_ir(*a, **options))
        in_nvvm.append(time.perf_counter() - start)
        return ptx[-1]

    nvvm.compile_ir = keep
    if args.inline == "keep":
        cuda.INLINE = None
    seats = pool_design(4, args.strategies.split(","))
    start = time.perf_counter()
    try:
        cuda.kernel(*gpu.decisions(seats)[:2], None,
                    cuda.state_rows(components.load().components, args.memory))
    except Exception as error:  # noqa: BLE001  (loading needs the device; NVVM has compiled it all)
        if not ptx:
            raise
        print(f"after NVVM: {type(error).__name__}: {error}", file=sys.stderr)
    took = time.perf_counter() - start
    modules = [(p if isinstance(p, bytes) else p.encode()).rstrip(b"\0") for p in ptx]
    text = b"".join(modules).decode(errors="replace")
    print(f"{took:.1f} s ({sum(in_nvvm):.1f} s in NVVM), {len(text)} PTX characters, "
          f"{len(re.findall(r'fma[.]rn[.]f64', text))} fma.rn.f64, "
          f"{len(re.findall(r'mul(?:[.]rn)?[.]f64', text))} mul.f64, "
          f"{len(re.findall(r'callprototype', text))} callprototype")
    if args.ptx:
        args.ptx.write_text(text)
    entry = next(m for m in modules if b".entry" in m)
    for cap in [None, *args.registers]:
        print(assembled(entry, cap))
    return 0


def caps(text: str) -> list[int]:
    """``--registers``: caps a thread may have, 16 to 255 (an H200's most)."""
    try:
        caps = [int(n) for n in text.split(",") if n]
    except ValueError:
        caps = [0]
    if any(not 16 <= cap <= 255 for cap in caps):
        raise argparse.ArgumentTypeError(f"caps between 16 and 255, comma-separated, not {text!r}")
    return caps


def assembled(ptx: bytes, cap: int | None = None) -> str:
    """nvJitLink's account of the kernel assembled for an H200 (at most ``cap`` registers per
    thread), in one line."""
    from cuda.core import Linker, LinkerOptions, ObjectCode

    from samsim.kernel.cuda import BLOCK

    options = LinkerOptions(arch="sm_90a", verbose=True, max_register_count=cap)
    linker = Linker(ObjectCode.from_ptx(ptx), options=options)
    start = time.perf_counter()
    linker.link("cubin")
    took = time.perf_counter() - start
    log = linker.get_info_log()
    registers = int(re.search(r"[Uu]sed (\d+) registers", log).group(1))
    stack, spill_stores, spill_loads = map(int, re.search(
        r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads",
        log).groups())
    # An H200 multiprocessor: 65,536 registers, given out 256 to a warp at a time; 64 warps.
    per_warp = -(-registers * 32 // 256) * 256
    warps = min(64, 65536 // per_warp) // (BLOCK // 32) * (BLOCK // 32)
    capped = f" capped at {cap}" if cap else ""
    return (f"sm_90a{capped}: {registers} registers, {stack} bytes stack, "
            f"{spill_stores} + {spill_loads} bytes spilled; {warps // (BLOCK // 32)} blocks of "
            f"{BLOCK} threads per multiprocessor ({warps * 32} games, {warps / 64:.1%} "
            f"occupancy); assembled in {took:.0f} s")


if __name__ == "__main__":
    sys.exit(main())
