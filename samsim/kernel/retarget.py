"""One source, compiled again with one call swapped: how a GPU kernel gets the CPU's rules.

A compiled function calls the functions its module names (``from ... import rule_nb``), and
Numba freezes those names when it compiles. To compile the same rules with another callee at one
site (the GPU's switch over a line-up's strategies in place of the CPU's call by address:
``samsim.kernel.cuda``), ``retarget`` copies every function on the way from a root to that
site: the same code object, globals that name the copies instead. Functions off that way are
shared as they are; nothing is written twice and no rule is edited.

How the copies are compiled decides the compile time, which is most of what a new line-up
costs on a GPU. Numba compiles a callee on its own before it inlines it into each caller, so
copies that keep the ``@rule``s' ``inline="always"`` compile the game twice over: the simulator's
kernel of ``random`` took 211 s on two cores that way. ``inline="never"`` (the default) compiles
the copies out of line instead: 126 s. The rules below the copies keep their own inlining (a
function that returns a view of an array cannot be called out of line, on the CPU or a GPU,
without reference counting; those are all off the way) and load from the CPU engine's cache.
``inline=None`` keeps each copy's options (the measured alternative: benchmarks/cuda_ptx.py).
Every copy but the root is called from compiled code alone, so it is compiled without the
wrappers that let Python and C call it (as Numba compiles its own ``@overload``s): a wrapper
unpacks the whole state and the components, argument by argument, and took longer to compile
than the small functions on the way (a ``decide_*_nb``): the simulator's kernel of ``random``
in 0.81x the time (``benchmarks/sim_compile.py random --wrappers``, side by side). Called from
Python, such a copy would crash the process (Numba has nothing to unpack Python's arguments
with): only ``retarget``'s caller holds one, the root.

``tag`` names a compiled version (the line-up's source hashes): copies then get it in their
qualified names and are cached on disk like the originals (Numba keys its cache by file and
qualified name), so a second process loads what the first compiled.

With ``NUMBA_DISABLE_JIT=1`` the rules are plain Python functions, and so are the copies: the
same swap, nothing compiled (how CI plays every library strategy in the CUDA simulator in
seconds: tests/test_cuda.py). Only samsim's own functions are followed there; no rule calls a
strategy's, and a strategy's never leads back to the swapped site.
"""

from __future__ import annotations

import types

import numba
from numba import njit
from numba.core.registry import CPUDispatcher

INLINE = ("never", None)


def _names(code: types.CodeType) -> set[str]:
    """Global names a function's code (nested code included) may read."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _names(const)
    return names


def _compiled(fn) -> bool:
    """Whether ``fn`` is a rule (or the switch) ``retarget`` may have to copy: a compiled
    function, or with NUMBA_DISABLE_JIT one of samsim's plain functions (njit returns them as
    they are)."""
    if isinstance(fn, CPUDispatcher):
        return True
    return bool(numba.config.DISABLE_JIT) and isinstance(fn, types.FunctionType) and \
        (fn.__module__ or "").startswith("samsim")


def retarget(root: CPUDispatcher, swap: dict, inline: str | None = "never",
             tag: str | None = None) -> CPUDispatcher:
    """``root`` compiled with each call of a key of ``swap`` made to its value instead (both
    compiled functions; the values are retargeted too), its copies compiled as ``inline`` says
    (module docstring), without wrappers but for ``root``'s, and cached under ``tag`` if one is
    given."""
    if inline not in INLINE:
        raise ValueError(f"inline must be one of {INLINE}, got {inline!r}")
    copies: dict = {}

    def copy(fn: CPUDispatcher) -> CPUDispatcher:
        if fn in copies:
            return copies[fn]
        copies[fn] = fn  # a recursive call (none today) would keep the original; off the way too
        target = swap.get(fn, fn)
        py = getattr(target, "py_func", target)
        changed = {}
        for name in _names(py.__code__):
            callee = py.__globals__.get(name)
            if _compiled(callee):
                new = copy(callee)
                if new is not callee:
                    changed[name] = new
        if not changed and target is fn:  # off the way: shared as it is
            return fn
        options = {k: v for k, v in getattr(target, "targetoptions", {}).items()
                   if k not in ("cache", "nopython")}
        if inline is not None:
            options["inline"] = inline
        if fn is not root:
            options.update(no_cpython_wrapper=True, no_cfunc_wrapper=True)
        clone = types.FunctionType(py.__code__, {**py.__globals__, **changed}, py.__name__,
                                   py.__defaults__, py.__closure__)
        clone.__qualname__ = py.__qualname__ if tag is None else f"{py.__qualname__}__{tag}"
        copies[fn] = njit(**options, cache=tag is not None)(clone)
        return copies[fn]

    return copy(root)
