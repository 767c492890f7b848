"""Games played on a GPU (``--backend cuda``): the batch driver's other half.

``samsim.engine.play.run_batch`` hands a batch here when the cuda backend is on. The games are
those the CPU plays (the same kernel sources, compiled for the GPU: ``samsim.kernel.cuda``), so a
batch is cut as a single process cuts it and the rows come back where the CPU would write them.

Memory on the device is bounded: a batch larger than ``capacity`` games is played in several
launches into one set of device arrays, allocated once per shape and reused (the deal overwrites
everything a game reads, as on the CPU), and only the fields the caller asks for come back to
the host (a run keeps the outcome: ``samsim.engine.play.OUTCOME``).
"""

from __future__ import annotations

import functools

import numba
import numpy as np

from samsim.kernel.contract import STAGES
from samsim.kernel.state import Control, State, allocate, row_bytes

#: Device memory a batch may fill with its game state, as a share of what is free when the first
#: batch starts (the rest is left for the kernel itself and anything else on the GPU).
MEMORY_SHARE = 0.25
#: Most games per launch, whatever the memory: about 2.5 GB of state at 4 players.
MAX_LAUNCH = 1 << 20
#: Rows of the host template that initialises device memory, copied as often as needed.
_TEMPLATE_ROWS = 4096


class CudaUnavailable(ValueError):
    """The cuda backend cannot run here: no numba-cuda, or no GPU."""


@functools.cache
def _kernel_module():
    try:
        from samsim.kernel import cuda
    except ImportError as error:
        raise CudaUnavailable(f"the cuda backend needs numba-cuda ({error}): install it with "
                              f"pip install 'samsim[cuda]'") from None
    return cuda


def check() -> str:
    """The GPU games will be played on, in words; CudaUnavailable if there is none."""
    cuda = _kernel_module()
    if cuda.SIMULATOR:
        return "the CUDA simulator (NUMBA_ENABLE_CUDASIM=1: on the CPU, for tests)"
    try:
        available = cuda.cuda.is_available()
    except Exception:  # a broken driver raises where there is none to find
        available = False
    if not available:
        raise CudaUnavailable("--backend cuda: no CUDA GPU found here (numba-cuda found no "
                              "driver or device; see README 'GPU backend')")
    device = cuda.cuda.get_current_device()
    name = device.name.decode() if isinstance(device.name, bytes) else device.name
    return f"{name} (compute capability {'.'.join(map(str, device.compute_capability))})"


def decisions(seats) -> tuple[tuple[tuple, ...], tuple[tuple[str, ...], ...], np.ndarray]:
    """For each stage, the line-up's distinct decision functions (ordered by their source
    identities, so that every line-up of the same strategies shares one kernel) and those
    identities; and ``Control.entries`` for the GPU: each seated strategy's index of its
    function among its stage's. Kept apart by stage, each site of a decision switches over its
    own stage's functions alone (``samsim.kernel.cuda``)."""
    from samsim.kernel import abi

    found = [{} for _ in STAGES]
    rows = []
    for member in seats.members:
        row = []
        for s, stage in enumerate(STAGES):
            fn = member.info.function(stage)
            key = abi.key(fn, member.info.stage_sources(stage))
            found[s][key] = fn
            row.append(key)
        rows.append(row)
    keys = tuple(tuple(sorted(stage)) for stage in found)
    index = [{key: k for k, key in enumerate(stage)} for stage in keys]
    entries = np.array([[index[s][key] for s, key in enumerate(row)] for row in rows], np.int64)
    functions = tuple(tuple(found[s][key] for key in stage) for s, stage in enumerate(keys))
    return functions, keys, entries


def _device(value):
    """A NamedTuple with its arrays copied to the device (scalars as they are)."""
    cuda = _kernel_module().cuda
    return type(value)(*(cuda.to_device(np.ascontiguousarray(v)) if isinstance(v, np.ndarray)
                         else v for v in value))


def _in_kernel(value):
    """What a launch is given: the device arrays, or in the simulator the host arrays under them
    (the kernel's functions are compiled for the CPU there: they take numpy arrays)."""
    if not _kernel_module().SIMULATOR:
        return value
    return type(value)(*(getattr(v, "_ary", v) for v in value))


class _Buffers:
    """Device arrays for ``capacity`` games of one shape, kept for the next batch."""

    def __init__(self, comp, players: int, capacity: int, log: bool, record: bool):
        cuda = _kernel_module().cuda
        template = allocate(comp, min(capacity, _TEMPLATE_ROWS), players, log=log, record=record)
        fields = []
        for host in template:
            if not len(host):  # a field kept only when logging or recording: none here
                fields.append(cuda.device_array(host.shape, host.dtype))
                continue
            dev = cuda.device_array((capacity, *host.shape[1:]), host.dtype)
            for first in range(0, capacity, len(host)):
                n = min(len(host), capacity - first)
                dev[first:first + n].copy_to_device(host[:n])
            fields.append(dev)
        self.state = State(*fields)
        self.capacity = capacity


_BUFFERS: dict[tuple, _Buffers] = {}


def _capacity(comp, players: int, log: bool, record: bool) -> int:
    row = row_bytes(comp, players, log, record)
    cuda = _kernel_module().cuda
    try:
        free, _ = cuda.current_context().get_memory_info()
    except Exception:  # noqa: BLE001  (a driver that cannot say)
        free = 8 << 30
    if not np.isfinite(free):  # the simulator's memory is the host's: as for a small GPU
        free = 8 << 30
    return max(_kernel_module().BLOCK, min(MAX_LAUNCH, int(free * MEMORY_SHARE) // row))


def _buffers(comp, data_key: str, players: int, log: bool, record: bool) -> _Buffers:
    key = (data_key, players, log, record)
    if key not in _BUFFERS:
        _BUFFERS.clear()  # one shape at a time: device memory is the bound
        _BUFFERS[key] = _Buffers(comp, players, _capacity(comp, players, log, record), log, record)
    return _BUFFERS[key]


def _rows(field, n: int):
    """A device field's first ``n`` rows. A field kept only when logging or recording has none,
    and stays so: numba-cuda slices a device array of shape (0, 0, 7) to (n, 0, 7) (its first
    stride is 0), and the kernel would count every event into a log it does not keep (seen on
    an H200; the simulator's arrays are numpy's)."""
    return field[:n] if field.shape[0] else field


def play(data, st: State, ctl: Control, seats, fields=None) -> None:
    """Play the games of ``st``'s rows (ids ``ctl.game0`` on) on the GPU, then copy ``fields``
    of the state (all, by default) into ``st``."""
    cuda = _kernel_module()
    if ctl.script.shape[0] or ctl.arrivals.shape[0]:
        raise ValueError("the cuda backend plays dealt games, not scripted scenarios")
    try:
        _play(cuda, data, st, ctl, seats, fields)
    except numba.core.errors.NumbaError:
        # A strategy Numba cannot compile fails inside the kernel's compile (or, in the
        # simulator, its first launch), where nothing names it: the CPU's compile of each
        # strategy does, in the one line the CPU backend gives (StrategyError).
        for member in seats.members:
            member.info.addresses()
        raise


def _play(cuda, data, st: State, ctl: Control, seats, fields) -> None:
    functions, keys, entries = decisions(seats)
    kernel = cuda.kernel(functions, keys, cuda.MAX_REGISTERS, cuda.state_rows(data.components))
    comp = _device(data.components)
    ctl = _device(ctl._replace(entries=entries))
    games, players = st.money.shape
    log, record = st.events.shape[0] > 0, st.record.shape[0] > 0
    buffers = _buffers(data.components, data.sha256, players, log, record)
    names = State._fields if fields is None else tuple(fields)
    for first in range(0, games, buffers.capacity):
        n = min(buffers.capacity, games - first)
        dev = State(*(_rows(a, n) for a in buffers.state))
        cuda.launch(kernel, _in_kernel(comp), _in_kernel(dev),
                    _in_kernel(ctl._replace(game0=ctl.game0 + first)), n)
        for name in names:
            if len(getattr(dev, name)):
                getattr(dev, name).copy_to_host(getattr(st, name)[first:first + n])
