"""Compile a line-up's GPU kernel for an H200 on a machine without a GPU, and describe its PTX.

    python benchmarks/cuda_ptx.py random,weighted [--inline keep] [--fma]

Uses the real compiler (NVVM, from the CUDA wheels of ``samsim[cuda]``) for compute capability
9.0; only loading the kernel needs the device, so the script stops after NVVM. Prints one line:
seconds, PTX characters, fused multiply-adds (``fma.rn.f64``), double multiplies, and calls
through an address (``callprototype``). ``--inline keep`` compiles the copies of the rules with
their own ``inline="always"`` (the design's measured alternative), ``--fma`` with NVVM's
default contraction (what samsim turns off). The tests run it (tests/test_cuda.py); the README's
compile times come from it. Run it in a fresh cache (NUMBA_CACHE_DIR) with NUMBA_ENABLE_CUDASIM=0.
"""

from __future__ import annotations

import argparse
import re
import sys
import time


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("strategies", help="comma-separated, seated as a pool at 4 players")
    parser.add_argument("--inline", choices=("never", "keep"), default="never")
    parser.add_argument("--fma", action="store_true", help="leave NVVM's contraction on")
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

    from samsim.engine import gpu
    from samsim.engine.designs import pool_design
    from samsim.kernel import cuda

    ptx = []
    compile_ir = nvvm.compile_ir

    def keep(*a, **options):
        if args.fma:
            options.pop("fma", None)
        ptx.append(compile_ir(*a, **options))
        return ptx[-1]

    nvvm.compile_ir = keep
    if args.inline == "keep":
        cuda.INLINE = None
    seats = pool_design(4, args.strategies.split(","))
    start = time.perf_counter()
    try:
        cuda.kernel(*gpu.decisions(seats)[:2])
    except Exception as error:  # noqa: BLE001  (loading needs the device; NVVM has compiled it all)
        if not ptx:
            raise
        print(f"after NVVM: {type(error).__name__}: {error}", file=sys.stderr)
    took = time.perf_counter() - start
    text = b"".join(p if isinstance(p, bytes) else p.encode() for p in ptx).decode(errors="replace")
    print(f"{took:.1f} s, {len(text)} PTX characters, "
          f"{len(re.findall(r'fma[.]rn[.]f64', text))} fma.rn.f64, "
          f"{len(re.findall(r'mul(?:[.]rn)?[.]f64', text))} mul.f64, "
          f"{len(re.findall(r'callprototype', text))} callprototype")
    return 0


if __name__ == "__main__":
    sys.exit(main())
