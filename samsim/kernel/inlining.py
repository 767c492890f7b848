"""Numba's inliner, spared a copy that grows with the square of what it inlines.

Every rule is compiled into its caller (``inline="always"``: ``samsim.kernel.jit``), and most of
a compile was Numba copying intermediate code: to inline a function, its inliner
(``InlineWorker.inline_ir``, in numba and again in numba-cuda) deep-copies the callee's blocks
one at a time, each with a fresh memo, so the scope every block points to, with every variable of
the callee, is copied once per block. A callee that has itself inlined others has hundreds of
blocks and thousands of variables: greedy's card decision spent 96 s of a 128 s compile (under a
profiler) in ``copy.deepcopy``. The cost is numba-cuda issue 688's (related: numba 8989, 9204).

Here each of those copies deep-copies all of a callee's blocks with one memo, so the scope is
copied once per copy and the copied blocks share it, as the blocks they copy do. Nothing else
changes: the same statements and variable names come out, so the same machine code
(tests/test_inlining.py compiles nested rules both ways and compares the code;
``benchmarks/inline_copy.py`` does it for the engine and strategies). Measured from empty caches,
CPU seconds: the engine 153.8 -> 106.2, greedy's card 53.8 -> 23.2; 1.1-2.4x across the runs
(README "Performance").

It is applied to an inliner module only where that module is as described (its ``copy`` is the
standard module and ``InlineWorker.inline_ir`` copies with ``copy_ir``, ``PATCHED`` lists where),
so another Numba compiles as Numba does, more slowly. Importing samsim patches the inliner of the
whole process. ``SAMSIM_STOCK_INLINER=1`` leaves Numba as it is (to compare, or should a Numba
ever disagree).
"""

from __future__ import annotations

import contextlib
import copy
import functools
import importlib
import inspect
import os
import sys

#: The inliner modules, numba's and numba-cuda's (imported only with ``numba.cuda``).
MODULES = ("numba.core.inline_closurecall", "numba.cuda.core.inline_closurecall")
#: The modules patched in this process.
PATCHED: list[str] = []

#: One dict per ``inline_ir`` call in progress: id of a scope being copied -> the memo its
#: blocks are copied with. It lives as long as the call, which holds the scopes (no id reused).
_MEMOS: list[dict[int, dict]] = []


class _Copy:
    """The ``copy`` module as a patched inliner sees it: a block copied inside ``inline_ir``
    shares its memo with the other blocks of its scope."""

    def __getattr__(self, name):
        return getattr(copy, name)

    @staticmethod
    def deepcopy(x, memo=None):
        scope = getattr(x, "scope", None)
        if memo is None and _MEMOS and scope is not None:
            memos = _MEMOS[-1]
            memo = memos.get(id(scope))
            if memo is None or id(x) in memo:  # a block copied again: a new copy of the IR
                memo = memos[id(scope)] = {}
        return copy.deepcopy(x, memo)


def _one_memo_per_scope(inline_ir):
    @functools.wraps(inline_ir)
    def wrapped(*args, **kwargs):
        _MEMOS.append({})
        try:
            return inline_ir(*args, **kwargs)
        finally:
            _MEMOS.pop()

    return wrapped


def _copies_block_by_block(inline_ir) -> bool:
    """Whether ``inline_ir`` is the inliner described above: its ``copy_ir`` deep-copies blocks."""
    try:
        source = inspect.getsource(inline_ir)
    except (OSError, TypeError):
        return False
    return "def copy_ir(" in source and "copy.deepcopy(" in source


def install() -> None:
    """Patch numba's inliner, and numba-cuda's once ``numba.cuda`` is imported (call again)."""
    if os.environ.get("SAMSIM_STOCK_INLINER", "") not in ("", "0"):
        return
    with contextlib.suppress(ImportError):
        importlib.import_module(MODULES[0])  # numba imports it at its first compile
    for name in MODULES:
        module = sys.modules.get(name)
        worker = getattr(module, "InlineWorker", None)
        if name in PATCHED or getattr(module, "copy", None) is not copy or \
                not _copies_block_by_block(getattr(worker, "inline_ir", None)):
            continue
        module.copy = _Copy()
        worker.inline_ir = _one_memo_per_scope(worker.inline_ir)
        PATCHED.append(name)
