"""How the engine calls a strategy it was not compiled with: through a C function pointer.

The engine is compiled once, for every line-up. Each decision function is compiled on its own
into a C entry point ``void entry(void *batch, int64 game, int64 seat)`` (``numba.cfunc``, cached
on disk), and a decision site calls the seat's entry point by address (``Control.entries``). So a
new or edited strategy costs seconds of compile, not a new engine, and the strategies of a line-up
can compile in another process while the engine compiles in this one (``precompile``).

Why ``batch``: at the start of a batch the engine copies the headers of its arrays (component
data, state, control; not their contents) into ``Control.batch``, and an entry point reads back the
few it uses, then makes the seat's view itself. Packing the view at every call instead (Numba
passes a NamedTuple of arrays as some two hundred scalars) made the cheap strategies 2-5x slower.

An entry point lives in a generated module under the kernel cache folder (``samsim.kernel.jit``), named
after the decision function and the hash of its sources, so Numba's file-keyed cache can never
serve the code of an edited strategy.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import numba
import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.core.errors import TypingError
from numba.core.registry import cpu_target
from numba.extending import intrinsic

from samsim import components
from samsim.kernel.contract import strategy_args_nb
from samsim.kernel.jit import CACHE_DIR, compiling
from samsim.kernel.state import Control, allocate

#: The C signature of every entry point: ``void entry(void *batch, int64 game, int64 seat)``.
SIGNATURE = types.void(types.voidptr, types.int64, types.int64)


@functools.cache
def packed_type() -> types.Tuple:
    """The Numba type of ``(comp, st, ctl)`` as the engine packs it for a batch."""
    comp = components.load().components
    st = allocate(comp, 1, 3)
    i64 = np.zeros((1, 1), np.int64)
    ctl = Control(np.uint64(0), 0, 1, np.zeros(1, np.uint8), i64, i64, np.zeros((1, 1)),
                  np.zeros((1, 1, 1, 1), np.int64), np.zeros((1, 1, 1, 1), np.int64))
    return numba.typeof((comp, st, ctl))


def packed_bytes() -> int:
    """Size of the packed ``(comp, st, ctl)`` (``Control.batch``)."""
    context = cpu_target.target_context
    return context.get_abi_sizeof(context.get_value_type(packed_type()))


def _check(packed):
    if packed != packed_type():
        raise TypingError(f"packed batch {packed} differs from the entry points' {packed_type()}")


@intrinsic
def pack_nb(typingctx, comp, st, ctl):
    """Copy the batch's array headers (not their data) into ``ctl.batch``, for the entry points."""
    packed = types.Tuple((comp, st, ctl))
    _check(packed)

    def codegen(context, builder, signature, args):
        value = context.make_tuple(builder, packed, args)
        batch = context.make_array(ctl.types[ctl.fields.index("batch")])(
            context, builder, builder.extract_value(args[2], ctl.fields.index("batch")))
        builder.store(value, builder.bitcast(batch.data, value.type.as_pointer()))
        return context.get_dummy_value()

    return types.none(comp, st, ctl), codegen


@intrinsic
def call_nb(typingctx, address, batch, g, p):
    """Call the entry point at ``address`` for seat p of game g of the packed ``batch``."""
    def codegen(context, builder, signature, args):
        data = context.make_array(batch)(context, builder, args[1]).data
        i64 = ir.IntType(64)
        entry = builder.inttoptr(args[0], ir.FunctionType(
            ir.VoidType(), [cgutils.voidptr_t, i64, i64]).as_pointer())
        builder.call(entry, [builder.bitcast(data, cgutils.voidptr_t), args[2], args[3]])
        return context.get_dummy_value()

    return types.none(address, batch, types.int64, types.int64), codegen


def _load(builder, pointer):
    """Load a struct field by field: LLVM then drops the loads of fields nobody reads (one load
    of the whole struct would read all of them at every call)."""
    pointee = pointer.type.pointee
    if not isinstance(pointee, ir.BaseStructType):
        return builder.load(pointer)
    value = ir.Constant(pointee, ir.Undefined)
    for i in range(len(pointee.elements)):
        value = builder.insert_value(value, _load(builder, cgutils.gep_inbounds(builder, pointer, 0, i)), i)
    return value


@intrinsic
def unpack_nb(typingctx, pointer):
    """``(comp, st, ctl)`` read back from the packed batch, in an entry point."""
    packed = packed_type()

    def codegen(context, builder, signature, args):
        return _load(builder, builder.bitcast(args[0], context.get_value_type(packed).as_pointer()))

    return packed(pointer), codegen


# ----------------------------------------------------------------------------- entry points

#: key -> decision function, for the generated entry modules to find theirs.
_TARGETS: dict[str, object] = {}
#: key -> address of the compiled entry point, in this process.
_ADDRESSES: dict[str, int] = {}
#: address -> Python function, and the batches, when NUMBA_DISABLE_JIT runs plain Python.
_PYTHON: list = []
_BATCHES: dict[int, tuple] = {}

_TEMPLATE = '''"""Entry point of {name} (sources {source}), generated by samsim.kernel.abi."""
from numba import cfunc
from samsim.kernel.abi import SIGNATURE, inlined, target, unpack_nb
from samsim.kernel.contract import strategy_args_nb
decide = inlined(target({key!r}))


@cfunc(SIGNATURE, cache=True, _nrt=False, error_model="numpy")
def entry(batch, g, p):
    comp, st, ctl = unpack_nb(batch)
    view, params, rng, out = strategy_args_nb(st, ctl, g, p)
    decide(comp, view, params, rng, out)
'''


def key(fn, source_hash: str) -> str:
    """A file-name-safe identity of a decision function and the sources it was compiled from."""
    name = f"{fn.__module__}.{fn.__name__}"
    digest = hashlib.sha256(f"{name}\0{source_hash}".encode()).hexdigest()[:16]
    return f"{re.sub(r'[^A-Za-z0-9_]', '_', name)[-60:]}_{digest}"


def target(k: str):
    return _TARGETS[k]


def inlined(fn):
    """``fn`` compiled into its caller: the entry point then makes the only call of a decision."""
    return njit(inline="always", _nrt=False, error_model="numpy")(getattr(fn, "py_func", fn))


def _write_module(k: str, fn, source_hash: str) -> Path:
    """The entry module's file, written once (atomically): Numba keys its cache on the file's
    modification time, so an unchanged file keeps its compiled code."""
    path = CACHE_DIR / "entries" / f"{k}.py"
    text = _TEMPLATE.format(name=f"{fn.__module__}.{fn.__name__}", source=source_hash, key=k)
    if not path.is_file() or path.read_text() != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(text)
        os.replace(tmp, path)
    return path


def address(fn, source_hash: str) -> int:
    """The address of ``fn``'s compiled entry point (compiled, or loaded from the cache, once per
    process). ``source_hash`` names the sources ``fn`` was compiled from."""
    k = key(fn, source_hash)
    if k not in _ADDRESSES:
        _TARGETS[k] = fn
        if numba.config.DISABLE_JIT:
            _PYTHON.append(fn)
            _ADDRESSES[k] = len(_PYTHON) - 1
        else:
            path = _write_module(k, fn, source_hash)
            name = f"samsim_entry_{k}"  # importable by name: Numba's cache reimports it
            spec = importlib.util.spec_from_file_location(name, path)
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            with compiling(f"entry-{k}"):
                spec.loader.exec_module(module)  # compiles, or loads the cached code
            _ADDRESSES[k] = module.entry.address
    return _ADDRESSES[k]


def is_cached(fn, source_hash: str) -> bool:
    """Whether ``fn``'s entry point is compiled in this process or in the disk cache."""
    k = key(fn, source_hash)
    return k in _ADDRESSES or any(CACHE_DIR.rglob(f"{k}.entry-*.nbi"))


#: What the helper process runs: the strategies are loaded (and their entry points compiled) by the
#: registry that names them, one layer up.
_PRECOMPILE = "import sys; from samsim.engine.registry import compile_entries; compile_entries(sys.argv[1:])"


def precompile(names: list[str]) -> subprocess.Popen | None:
    """Compile the entry points of the named strategies in another process, so that they compile
    while this one compiles the engine. Returns the process (wait for it before asking for the
    addresses, which then load from the cache), or None when there is nothing to do."""
    if numba.config.DISABLE_JIT or not names:
        return None
    return subprocess.Popen([sys.executable, "-c", _PRECOMPILE, *names], cwd=os.getcwd(),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


if numba.config.DISABLE_JIT:  # plain Python: the batch is the tuple itself
    def pack_nb(comp, st, ctl):  # noqa: F811
        _BATCHES[id(ctl.batch)] = (comp, st, ctl)

    def call_nb(address, batch, g, p):  # noqa: F811
        comp, st, ctl = _BATCHES[id(batch)]
        _PYTHON[address](comp, *strategy_args_nb(st, ctl, g, p))
