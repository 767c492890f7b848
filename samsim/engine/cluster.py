"""Games played on a Dask cluster: the same chunks and the same rows, on other processes or
machines.

Inside ``with Cluster(...):`` every batch of games (``batches``, which the run folder, compare,
balance and the benchmark all play through) is cut into the chunks a single process would play
and each chunk becomes a Dask task. A worker plays it with the kernel and sends back only the
outcome of its games (``OUTCOME``); the client yields the chunks in game order, as
``samsim.engine.play.batches`` does, so what is written from them, file for file and row for
row, is what one process writes: every game is keyed by (seed, game id), never by where it ran.

What travels is data, not paths: the rules (``GameData``), and the line-up with every strategy
that is not the library's by its sources (``Lineup.shipped``), so a user's strategy file need
not exist on the workers, nor still exist on the client. A worker rebuilds the line-up once and
compiles it once into its on-disk cache (``Cluster.prepare``: one worker first, so that workers
sharing a disk then load instead of compiling side by side).

A lost worker loses nothing: its tasks are played again elsewhere by Dask's scheduler (up to its
``allowed-failures``) and give the same games. A worker with other samsim sources would not give
comparable games, so the cluster is refused (``fingerprint``) when it is joined, and each task
checks again (a worker may join later). At most ``window`` chunks are asked for ahead of the
oldest one not yet handed on, which bounds the memory a slow chunk makes the client hold.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import logging
import os
import pickle
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import samsim
from samsim.components import GameData
from samsim.engine import play
from samsim.engine.lineup import Lineup, lineup, unshipped
from samsim.kernel.jit import CACHE_DIR, source_key
from samsim.kernel.state import State, allocate

#: All a worker sends back of a chunk (``samsim.engine.play.OUTCOME``).
OUTCOME = play.OUTCOME
#: Seconds to reach a scheduler, and to wait for a first worker, before saying so.
CONNECT_SECONDS = 5
#: Where the strategies that came by their sources are written on a worker.
SHIPPED_DIR = CACHE_DIR / "shipped"

_ACTIVE: list[Cluster] = []


class ClusterError(ValueError):
    """A cluster that cannot be used: unreachable, without workers, or running other sources."""


def fingerprint() -> str:
    """samsim's version and the hash of every source file it plays with (the package and the
    strategy library): two processes with the same fingerprint play the same games."""
    return f"{samsim.__version__}+{_sources_key()}"


@functools.cache
def _sources_key() -> str:
    """Hashed once per process (a run asks for every batch): sources do not change under it."""
    package = Path(samsim.__file__).resolve().parent
    library = Path(play.__file__).resolve().parents[2] / "strategies"
    return source_key((package, library) if library.is_dir() else (package,))


@dataclass(frozen=True)
class Job:
    """What a worker needs to play chunks of one batch, as data."""

    fingerprint: str
    players: int
    seed: int
    data: GameData
    lineup: tuple  # Lineup.shipped()
    threads: int | None
    record: bool
    per_deal: int
    backend: str  # samsim.engine.play.BACKENDS: where the worker plays


def _packed(job: Job) -> tuple[str, bytes]:
    blob = pickle.dumps(job, protocol=pickle.HIGHEST_PROTOCOL)
    return hashlib.sha256(blob).hexdigest()[:16], blob


# ----------------------------------------------------------------------------- on a worker

_JOBS: dict[str, tuple[Job, Lineup]] = {}
_ROWS: dict[tuple, State] = {}  # a state to play chunks in, reused (fresh memory is slow)
_PLAYING = threading.Lock()  # one batch at a time per process: the kernel uses every thread


def _job(key: str, blob: bytes) -> tuple[Job, Lineup]:
    if key not in _JOBS:
        job = pickle.loads(blob)
        if job.fingerprint != fingerprint():
            raise ClusterError(f"a worker runs samsim {fingerprint()}, the client "
                               f"{job.fingerprint}: results would not be comparable; install the "
                               f"same samsim (and strategy library) on every worker")
        if len(_JOBS) > 16:
            _JOBS.clear()
        _JOBS[key] = job, unshipped(job.lineup, SHIPPED_DIR)
    return _JOBS[key]


def play_chunk(key: str, blob: bytes, first: int, games: int) -> dict[str, np.ndarray]:
    """Play games ``first .. first+games-1`` of the job: the task a worker runs."""
    job, seats = _job(key, blob)
    fields = OUTCOME + (("record",) if job.record else ())
    with _PLAYING, play.backend(job.backend):
        shape = (job.players, job.record, job.data.sha256)
        if shape not in _ROWS or len(_ROWS[shape].money) < games:
            _ROWS.clear()
            _ROWS[shape] = allocate(job.data.components, games, job.players, record=job.record)
        st = play.run_batch(games, job.players, job.seed, first, job.data, threads=job.threads,
                            strategies=seats, record=job.record, per_deal=job.per_deal,
                            reuse=_ROWS[shape], fields=fields)
        return {name: _narrow(getattr(st, name)) for name in fields}


def _narrow(values: np.ndarray) -> np.ndarray:
    """``values`` (a copy) in the smallest integer type that holds them all: what crosses the
    network is then a quarter to an eighth of the state's int64 (the client widens it back)."""
    if values.dtype.kind != "i" or not values.size:
        return values.copy()
    lo, hi = values.min(), values.max()
    for kind in (np.int8, np.int16, np.int32):
        info = np.iinfo(kind)
        if info.min <= lo and hi <= info.max:
            return values.astype(kind)
    return values.copy()


def warm(key: str, blob: bytes) -> str:
    """Compile (or load) the engine and the job's strategies on this worker."""
    job, seats = _job(key, blob)
    with _PLAYING, play.backend(job.backend):
        play.run_batch(1, job.players, job.seed, 0, job.data, threads=job.threads,
                       strategies=seats)
    return fingerprint()


def _gpu() -> str:
    """This worker's GPU in words, or why it has none (``error: ...``)."""
    from samsim.engine import gpu

    try:
        return gpu.check()
    except gpu.CudaUnavailable as error:
        return f"error: {error}"


def _deaf_to_ctrl_c():
    """A plugin for the workers samsim starts itself (and those their nannies start again):
    Ctrl-C in the terminal reaches every process of its group, and the command, not each
    worker, answers it (they would each print a traceback; only a worker still starting, in
    the second or so before the plugin reaches it, does). Workers a user started are left as
    they are. Built here so that importing samsim does not import Dask."""
    from distributed import WorkerPlugin

    class DeafToCtrlC(WorkerPlugin):
        name = "samsim-deaf-to-ctrl-c"

        def setup(self, worker) -> None:
            import signal

            signal.signal(signal.SIGINT, signal.SIG_IGN)

    return DeafToCtrlC()


# ----------------------------------------------------------------------------- on the client

def _state(outcome: dict[str, np.ndarray]) -> State:
    """A chunk's outcome as a ``State``: the fields not sent are empty, so reading one fails
    loudly instead of giving numbers."""
    games = len(outcome["money"])
    empty = np.zeros((games, 0), np.int64)
    return State(*(outcome[name].astype(np.int64) if name in outcome and outcome[name].dtype.kind == "i"
                   else outcome.get(name, empty) for name in State._fields))


def _reason(error: BaseException) -> str:
    return " ".join(str(error).split()) or type(error).__name__


class Cluster:
    """A Dask cluster to play on: an existing one (``scheduler``: its address) or ``workers``
    worker processes started on this machine (a ``LocalCluster``), each with ``threads`` kernel
    threads (default: this machine's cores shared out), playing on ``backend`` (``cuda``: each
    worker on its GPU). Use it as a context manager; inside it, ``batches`` plays there."""

    def __init__(self, scheduler: str | None = None, workers: int | None = None,
                 threads: int | None = None, backend: str = "cpu"):
        if (scheduler is None) == (workers is None):
            raise ClusterError("give a scheduler address or a number of workers, not both")
        if workers is not None and (not isinstance(workers, int) or isinstance(workers, bool)
                                    or workers < 1):
            raise ClusterError(f"workers must be a positive whole number, got {workers!r}")
        cores = os.cpu_count() or 1
        if workers is not None and workers > cores:
            raise ClusterError(f"{workers} local worker processes on {cores} cores would only "
                               f"compete for them: give at most {cores}, or --scheduler for a "
                               f"cluster of several machines")
        if threads is not None and (not isinstance(threads, int) or threads < 1):
            raise ClusterError(f"threads must be a positive whole number, got {threads!r}")
        if backend not in play.BACKENDS:
            raise ClusterError(f"backend must be one of {', '.join(play.BACKENDS)}, got {backend!r}")
        self.scheduler, self.workers, self.threads = scheduler, workers, threads
        self.backend = backend
        self.client = None
        self._local = None

    def __enter__(self) -> Cluster:
        from distributed import Client, LocalCluster

        if self.workers is not None:
            each = self.threads or max(1, (os.cpu_count() or 1) // self.workers)
            # No dashboard, and the scheduler's HTTP server (health, metrics) on a free port:
            # on Dask's 8787 a second cluster (another samsim, a user's own) warned in 4 lines.
            self._local = LocalCluster(
                n_workers=self.workers, threads_per_worker=1, processes=True,
                dashboard_address=None, scheduler_kwargs={"dashboard_address": ":0"},
                silence_logs=logging.ERROR,
                env={"NUMBA_NUM_THREADS": str(each)})
            self.client = Client(self._local)
            self.client.register_plugin(_deaf_to_ctrl_c())
        else:
            try:
                self.client = Client(self.scheduler, timeout=CONNECT_SECONDS)
            except ValueError as error:  # Dask's word for an address it cannot parse
                raise ClusterError(f"{self.scheduler!r} is not a scheduler address "
                                   f"({_reason(error)}): give it as 'dask scheduler' prints it, "
                                   f"e.g. tcp://10.0.0.5:8786") from None
            except Exception as error:  # noqa: BLE001  (OSError, TimeoutError...)
                raise ClusterError(f"cannot reach a Dask scheduler at {self.scheduler} "
                                   f"({_reason(error)}): start one with 'dask scheduler' and "
                                   f"give the address it prints") from None
        try:
            self._check_workers()
        except BaseException:
            self.close()
            raise
        _ACTIVE.append(self)
        return self

    def __exit__(self, *exc) -> None:
        if self in _ACTIVE:
            _ACTIVE.remove(self)
        self.close()

    def close(self) -> None:
        with contextlib.suppress(Exception):
            if self.client is not None:
                self.client.close(timeout=CONNECT_SECONDS)
        with contextlib.suppress(Exception):
            if self._local is not None:
                self._local.close(timeout=CONNECT_SECONDS)
        self.client = self._local = None

    def _check_workers(self) -> None:
        try:
            self.client.wait_for_workers(1, timeout=CONNECT_SECONDS)
        except Exception:  # noqa: BLE001  (a TimeoutError of asyncio or of dask)
            raise ClusterError(f"no worker has joined the scheduler at {self.scheduler} within "
                               f"{CONNECT_SECONDS} s: start some with 'dask worker "
                               f"{self.scheduler}'") from None
        mine = fingerprint()
        for worker, theirs in sorted(self.client.run(fingerprint).items()):
            if theirs != mine:
                raise ClusterError(f"worker {worker} runs samsim {theirs}, this process {mine}: "
                                   f"results would not be comparable; install the same samsim "
                                   f"(and strategy library) on every worker")
        if self.backend == "cuda":
            for worker, gpu in sorted(self.client.run(_gpu).items()):
                if gpu.startswith("error: "):
                    raise ClusterError(f"worker {worker}: {gpu[len('error: '):]}")

    def describe(self) -> str:
        """The cluster in a few words: scheduler, workers, threads."""
        info = self.client.scheduler_info(n_workers=-1)
        workers, slots = len(info["workers"]), self.slots()
        return (f"the Dask cluster at {info.get('address', self.scheduler)}: {workers} "
                f"worker{'s' * (workers != 1)}, {slots} task slot{'s' * (slots != 1)}"
                + (", each on its GPU" if self.backend == "cuda" else ""))

    def slots(self) -> int:
        """Tasks the cluster runs at once (one per worker thread)."""
        info = self.client.scheduler_info(n_workers=-1)["workers"]
        return max(1, sum(w.get("nthreads", 1) for w in info.values()))

    def _job(self, players, seed, data, seats: Lineup, threads, record, per_deal):
        return _packed(Job(fingerprint(), int(players), int(seed), data, seats.shipped(),
                           threads, bool(record), int(per_deal), self.backend))

    def prepare(self, players: int, seed: int, data: GameData, seats: Lineup,
                threads: int | None = None) -> None:
        """Load or compile the engine and ``seats`` on every worker: on one first, then on the
        rest (which then find its compiled code if they share its disk)."""
        key, blob = self._job(players, seed, data, seats, threads, False, 1)
        workers = sorted(self.client.scheduler_info(n_workers=-1)["workers"])
        try:
            self.client.run(warm, key, blob, workers=workers[:1])
            if workers[1:]:
                self.client.run(warm, key, blob, workers=workers[1:])
        except KeyError:  # the worker left meanwhile: its tasks will compile where they run
            pass

    def batches(self, ranges, players: int, seed: int, data: GameData, seats: Lineup,
                chunk_size: int, threads: int | None = None, record: bool = False,
                per_deal: int = 1, progress=None) -> Iterator[tuple[int, int, State]]:
        """``samsim.engine.play.batches`` on the cluster: the same chunks, in the same order,
        each with its outcome fields (``OUTCOME``). ``progress(n)`` as each chunk comes back.
        Ctrl-C cancels the chunks in flight and yields those already back, then re-raises."""
        from distributed import wait

        key, blob = self._job(players, seed, data, seats, threads, record, per_deal)
        chunks = play.chunks(ranges, chunk_size)
        sizes = dict(chunks)
        window = 2 * self.slots() + 2
        ahead = iter(chunks)
        flying, back = {}, {}  # start -> future / outcome
        at = 0  # the next chunk to yield
        try:
            while at < len(chunks):
                play.stop_point()
                while len(flying) + len(back) < window:
                    chunk = next(ahead, None)
                    if chunk is None:
                        break
                    flying[chunk[0]] = self.client.submit(
                        play_chunk, key, blob, *chunk, pure=False,
                        key=f"samsim-{key}-{chunk[0]}-{chunk[1]}-{time.monotonic_ns()}")
                start, n = chunks[at]
                if start in back:
                    at += 1
                    yield start, n, _state(back.pop(start))
                    continue
                with contextlib.suppress(TimeoutError):  # a chance for Ctrl-C, 4 times a second
                    wait(list(flying.values()), timeout=0.25, return_when="FIRST_COMPLETED")
                for start, future in list(flying.items()):
                    if future.done():
                        back[start] = self._result(future)
                        del flying[start]
                        if progress is not None:
                            progress(sizes[start])
        except KeyboardInterrupt:
            self.client.cancel(list(flying.values()))
            flying.clear()
            for start in sorted(back):  # finished chunks are kept, out of order as they are
                yield start, sizes[start], _state(back[start])
            raise
        finally:
            if flying:  # the caller stopped early (or failed): no one wants the rest
                self.client.cancel(list(flying.values()))

    @staticmethod
    def _result(future):
        try:
            return future.result()
        except Exception as error:
            if type(error).__name__ == "KilledWorker":
                raise ClusterError(f"a chunk of games killed every worker it was given to "
                                   f"({_reason(error)}): out of memory? try a smaller "
                                   f"--chunk-size") from None
            raise


def active() -> Cluster | None:
    """The cluster games are played on now (the innermost ``with Cluster``), or None."""
    return _ACTIVE[-1] if _ACTIVE else None


@contextlib.contextmanager
def here():
    """Inside: games are played in this process, even where a cluster is active (what a
    benchmark compares it with)."""
    saved = _ACTIVE[:]
    _ACTIVE.clear()
    try:
        yield
    finally:
        _ACTIVE[:] = saved


def batches(ranges, players: int, seed: int, data: GameData, seats, chunk_size: int = play.DEFAULT_CHUNK,
            threads: int | None = None, record: bool = False, per_deal: int = 1,
            progress=None, log: bool = False) -> Iterator[tuple[int, int, State]]:
    """Play the games of ``ranges`` chunk by chunk (``samsim.engine.play.batches``: arguments,
    order, and what is yielded), on the active cluster if there is one. Event logs are only
    kept here (a trace plays a few games)."""
    cluster = active()
    ranges = [(int(a), int(b)) for a, b in ranges if b > a]
    if cluster is None or log or not ranges:
        return play.batches(ranges, players, seed, data, seats, chunk_size, threads, record,
                            per_deal, progress, log)
    return cluster.batches(ranges, players, seed, data, lineup(players, seats), chunk_size,
                           threads, record, per_deal, progress)


def warm_up(players: int, seed: int, data: GameData, seats, threads: int | None = None) -> None:
    """Load (or compile) the engine and ``seats``' strategies (a line-up or specs) where the
    games will be played."""
    cluster = active()
    if cluster is None:
        play.run_batch(1, players, seed, 0, data, threads=threads, strategies=seats)
    else:
        cluster.prepare(players, seed, data, lineup(players, seats), threads)


__all__ = ["Cluster", "ClusterError", "OUTCOME", "active", "batches", "fingerprint", "here",
           "warm_up", "play_chunk"]
