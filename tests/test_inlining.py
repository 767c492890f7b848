"""samsim's copy of an inlined callee's blocks (``samsim.kernel.inlining``) compiles the code
Numba's own inliner compiles, and copies each callee's scope once instead of once per block.

Each way is a process of its own with an empty cache (``SAMSIM_STOCK_INLINER`` picks), compiling
the same functions in the same order with one hash seed (Numba numbers functions as it meets
them): rules inlined three deep, and random's card decision through its entry point (the
contract's view, the shared moves). The whole engine is compared the same way by
``benchmarks/inline_copy.py`` (README "Performance").
"""

import json
import os
import subprocess
import sys

import pytest

SIDE = """
import copy, hashlib, json
import numpy as np
from numba import njit
from numba.core import inline_closurecall, ir
from samsim.engine.registry import parse_spec
from samsim.kernel import abi, inlining

scopes = inlines = 0
inline_ir = inline_closurecall.InlineWorker.inline_ir


def counted_inline(*args, **kwargs):
    global inlines
    inlines += 1
    return inline_ir(*args, **kwargs)


inline_closurecall.InlineWorker.inline_ir = counted_inline


def counted(self, memo):
    global scopes
    scopes += 1
    new = object.__new__(type(self))
    memo[id(self)] = new
    new.__dict__.update(copy.deepcopy(self.__dict__, memo))
    return new


ir.Scope.__deepcopy__ = counted


@njit(inline="always")
def a(x, n):
    s = 0.0
    for k in range(n):
        if x[k] > 0:
            s += x[k]
        else:
            s -= 1.0
    return s


@njit(inline="always")
def b(x, n):
    return a(x, n) + a(x, n // 2) if n > 3 else a(x, 1)


@njit(inline="always")
def c(x, n):
    t = b(x, n)
    while t > 10:
        t = t / 2 + b(x, 2)
    return t


@njit
def top(x, n):
    return c(x, n) + c(x, n + 1)


def digest(library):
    return hashlib.sha256(library.get_asm_str().encode()).hexdigest()


value = top(np.arange(6.0) * 3 - 2, 4)
nested = digest(top.overloads[top.signatures[0]].library)
nested_scopes, nested_inlines = scopes, inlines
info = parse_spec("random").info
fn = info.function("card")
abi.address(fn, info.stage_sources("card"))
entry = abi.key(fn, info.stage_sources("card"))
import sys
print(json.dumps({"patched": inlining.PATCHED, "value": value, "nested": nested,
                  "scopes": nested_scopes, "inlines": nested_inlines,
                  "card": digest(sys.modules["samsim_entry_" + entry].entry._library)}))
"""


def _side(tmp_path, stock: bool) -> dict:
    cache = tmp_path / ("stock" if stock else "samsim")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "PYTHONHASHSEED": "0",
           "SAMSIM_STOCK_INLINER": "1" if stock else "0"}
    done = subprocess.run([sys.executable, "-c", SIDE], env=env, capture_output=True, text=True,
                          timeout=600, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def sides(tmp_path_factory):
    folder = tmp_path_factory.mktemp("inlining")
    return _side(folder, stock=True), _side(folder, stock=False)


def test_only_the_samsim_side_is_patched(sides):
    stock, ours = sides
    assert stock["patched"] == [] and ours["patched"] == ["numba.core.inline_closurecall"]


def test_the_same_machine_code_comes_out(sides):
    stock, ours = sides
    assert stock["value"] == ours["value"]
    assert stock["nested"] == ours["nested"], "nested inline rules compiled differently"
    assert stock["card"] == ours["card"], "random's card entry point compiled differently"


def test_a_callee_s_scope_is_copied_once_not_once_per_block(sides):
    """Numba 0.68 copies each inlined callee twice (one copy to splice in, one to keep), and with
    the callee's scope the global scope above it: four scope copies an inline at most here,
    where Numba's own copy makes those four once per block of the callee."""
    stock, ours = sides
    assert stock["inlines"] == ours["inlines"] > 0
    assert ours["scopes"] <= 4 * ours["inlines"]
    assert stock["scopes"] > 5 * ours["scopes"], (stock["scopes"], ours["scopes"])


def test_numba_cudas_inliner_is_patched_too():
    """numba-cuda has an inliner of its own, imported with numba.cuda (no GPU needed)."""
    code = "from samsim.kernel import cuda, inlining; print(inlining.PATCHED)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, env={**os.environ, "NUMBA_ENABLE_CUDASIM": "0",
                                            "SAMSIM_STOCK_INLINER": "0"})
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.splitlines()[-1] == \
        "['numba.core.inline_closurecall', 'numba.cuda.core.inline_closurecall']"


def test_blocks_of_one_scope_share_its_copy_and_a_block_copied_again_is_a_new_copy():
    """Inside one inliner call: a callee's blocks come out sharing one copy of their scope, and a
    block copied a second time (a second copy of the same IR) shares nothing with the first."""
    from numba.core import ir

    from samsim.kernel import inlining

    loc = ir.Loc("f.py", 1)
    scope = ir.Scope(ir.Scope(None, loc), loc)
    first, second = ir.Block(scope, loc), ir.Block(scope, loc)
    for block in (first, second):
        block.append(ir.Assign(ir.Const(1, loc), scope.redefine("x", loc), loc))

    def copies():
        return [inlining._Copy.deepcopy(block) for block in (first, second, first)]

    a, b, again = inlining._one_memo_per_scope(copies)()
    assert a.scope is b.scope and a.scope is not scope
    assert again is not a and again.scope is not a.scope
    assert inlining._MEMOS == []  # the call's memos are gone with it
    # outside an inliner call, a block is copied as copy.deepcopy copies it
    alone = inlining._Copy.deepcopy(first)
    assert alone.scope is not scope and alone.scope is not a.scope
