"""Bit tricks on the int64 bitmaps of the state (rooms, cards, chips), as CPU instructions.

``popcount`` and ``count trailing zeros`` compile to single instructions through LLVM intrinsics;
loops over bits were a measurable share of the kernel. With ``NUMBA_DISABLE_JIT=1`` plain Python
versions stand in, so the rules still run (slowly) for debugging.
"""

import numba
from llvmlite import ir
from numba.core import types
from numba.extending import intrinsic

from samsim.kernel.jit import rule

if numba.config.DISABLE_JIT:
    def popcount_nb(mask):
        return int(mask).bit_count()

    def lowest_bit_nb(mask):
        """Index of the lowest set bit (mask != 0)."""
        return (int(mask) & -int(mask)).bit_length() - 1
else:
    @intrinsic
    def popcount_nb(typingctx, mask):
        def codegen(context, builder, signature, args):
            return builder.ctpop(args[0])
        return types.int64(types.int64), codegen

    @intrinsic
    def lowest_bit_nb(typingctx, mask):
        """Index of the lowest set bit (mask != 0)."""
        def codegen(context, builder, signature, args):
            return builder.cttz(args[0], ir.Constant(ir.IntType(1), 1))
        return types.int64(types.int64), codegen


@rule
def kth_bit_nb(mask, k):
    """Index of the k-th set bit (0-based, from the lowest)."""
    for _ in range(k):
        mask &= mask - 1
    return lowest_bit_nb(mask)
