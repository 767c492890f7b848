"""The batch driver: deals and plays many games in parallel, chunk by chunk.

Only this module knows about batching. Every game draws from its own streams keyed by (seed, game
id), so a result does not depend on the thread count, the chunk size, or which other games share a
chunk: game 17 of a million-game run equals game 17 played alone.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numba
import numpy as np

from samsim import components as comps
from samsim.components import GameData
from samsim.engine.lineup import Lineup, lineup
from samsim.illegal import IllegalDecision, illegal, reason
from samsim.kernel import abi
from samsim.kernel.contract import STAGES
from samsim.kernel.decisions import DECISION_LEN
from samsim.kernel.events import rows_to_tuples
from samsim.kernel.game import run_batch_nb
from samsim.kernel.jit import compiling
from samsim.kernel.state import (ERROR_CODE, ERROR_ROUND, ERROR_SEAT, Control, State, allocate,
                                 row_bytes)

#: Games per chunk by default: large enough to keep every thread busy, small enough (~40 MB of
#: state at 4 players) to keep memory flat however many games a run has.
DEFAULT_CHUNK = 16384
MAX_SEED = 2**64 - 1
#: Game ids are int64, and a range of them ends one past its last: ids are 0 .. MAX_GAMES-1.
MAX_GAMES = 2**63 - 1
#: Seconds of play between two chances to stop (``batches``): Ctrl-C waits at most about this.
UNIT_SECONDS = 0.25
#: Set when a Ctrl-C handler (``samsim.runs.interrupt``) raises KeyboardInterrupt. Python
#: swallows an exception raised where it runs a callback (a gc callback, a ``__del__``: Dask's
#: client has both), so a raise can be lost; the loops that play stop at this too.
STOP = threading.Event()


def stop_point() -> None:
    """Raise the KeyboardInterrupt a stop was asked with, if it has not come through."""
    if STOP.is_set():
        raise KeyboardInterrupt


#: The state fields a finished game's results are read from (results and rounds tables,
#: compare): what ``batches`` keeps of a chunk played where its state is elsewhere (a cluster's
#: worker, a GPU); the others (hotels, tiles, notebooks) stay there.
OUTCOME = ("money", "score", "free_rooms", "rank", "win_credit", "tiles_bought",
           "tourists_hosted", "income", "spent", "ties", "error")
#: Where games can be played: this machine's cores, or its GPU (``samsim.engine.gpu``).
BACKENDS = ("cpu", "cuda")
_BACKEND = ["cpu"]


@contextlib.contextmanager
def backend(name: str):
    """Inside: every batch of this process is played on the backend ``name`` (a GPU: checked
    first, ``gpu.CudaUnavailable`` if there is none)."""
    if name not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {name!r}")
    if name == "cuda":
        from samsim.engine import gpu

        gpu.check()
    _BACKEND.append(name)
    try:
        yield
    finally:
        _BACKEND.pop()


def active_backend() -> str:
    return _BACKEND[-1]


@dataclass
class GameRecord:
    """One game as both engines report it: its event log and the state it ended in."""

    events: list[tuple[int, ...]]
    snapshot: dict


def check_seed(seed) -> np.uint64:
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or not 0 <= seed <= MAX_SEED:
        raise ValueError(f"seed must be a whole number 0..2**64-1, got {seed!r}")
    return np.uint64(seed)


def control(data: GameData, seats: Lineup, seed, game0, script=None, arrivals=None,
             entries=None, per_deal: int = 1) -> Control:
    c, players = data.components, seats.players
    return Control(
        seed=check_seed(seed), game0=int(game0), per_deal=int(per_deal),
        batch=np.zeros(abi.packed_bytes(), np.uint8),
        entries=seats.entries() if entries is None else entries,
        seat_strategy=seats.seat_strategy, params=seats.params,
        script=np.full((0, c.rounds, players, DECISION_LEN), -1, np.int64) if script is None else script,
        arrivals=(np.full((0, c.rounds, c.max_groups, c.chips_per_nation), -1, np.int64)
                  if arrivals is None else arrivals),
    )


def _compile(data: GameData, seats: Lineup) -> None:
    """The engine, compiled (or loaded from the cache) once per process. From a cold cache the
    line-up's strategies compile in another process meanwhile (``abi.precompile``): on two cores
    that takes the strategies' share off the first run's wait. Another process compiling the
    engine into the same cache is waited for (``jit.compiling``), and its engine loaded. Plain
    Python (NUMBA_DISABLE_JIT=1) compiles nothing."""
    if numba.config.DISABLE_JIT or run_batch_nb.signatures:
        return
    with compiling("engine"):
        if run_batch_nb.signatures:  # another thread of this process compiled it meanwhile
            return
        helper = abi.precompile(seats.uncompiled())
        try:
            empty = allocate(data.components, 0, seats.players)
            run_batch_nb(data.components, empty, control(
                data, seats, 0, 0, entries=np.zeros((len(seats.members), len(STAGES)), np.int64)))
        except BaseException:
            if helper:
                helper.kill()
            raise
        if helper:
            helper.wait()


def compiled(infos=()) -> bool:
    """Whether the engine and the strategies ``infos`` are ready to run without compiling (in
    this process or in the disk cache): a caller says "compiling" only when it will be true."""
    if numba.config.DISABLE_JIT:
        return True
    if not run_batch_nb.signatures:
        try:
            index = Path(run_batch_nb._cache._cache_file._index_path)
        except AttributeError:  # Numba's cache layout moved: assume the worst
            return False
        if not index.is_file():
            return False
    return all(info.cached() for info in infos)


@contextlib.contextmanager
def _threads(threads: int | None):
    if threads is None:
        yield
        return
    if not 1 <= threads <= numba.config.NUMBA_NUM_THREADS:
        raise ValueError(f"threads must be 1..{numba.config.NUMBA_NUM_THREADS}, got {threads}")
    before = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        yield
    finally:
        numba.set_num_threads(before)


def check_players(data: GameData, players) -> int:
    if not isinstance(players, (int, np.integer)) or not data.min_players <= players <= data.max_players:
        raise ValueError(f"players must be {data.min_players}..{data.max_players}, got {players!r}")
    return int(players)


def run_batch(games: int, players: int, seed: int, game0: int = 0, data: GameData | None = None,
              params=None, threads: int | None = None, log: bool = False,
              reuse: State | None = None, strategies=None, record: bool = False,
              per_deal: int = 1, fields=None) -> State:
    """Deal and play games ``game0 .. game0+games-1`` in one batch; returns the final state arrays.

    ``strategies``: one strategy spec for every seat (``"greedy"``, ``"undercut(margin=2)"``) or a
    list with one per seat, or a ``Lineup``; ``random`` by default. ``params`` overrides strategy
    parameters (a dict for every seat, or one per seat).

    ``record`` keeps each seat's end-of-round record (``State.record``, schema ``rounds``).
    ``per_deal`` > 1 makes duplicate deals: game ids k*per_deal .. (k+1)*per_deal-1 share deal k
    (``samsim.kernel.rules.common.deal_of_nb``); pair it with a line-up of as many seatings.
    ``reuse`` is a state of at least ``games`` rows from an earlier batch of the same shape: the deal
    overwrites everything a game reads, and touching fresh memory cost as much as a fifth of the run.
    ``fields``: on a GPU (``backend``), the state fields to bring back (all by default); the CPU
    plays in the state itself.
    """
    data = data or comps.load()
    players = check_players(data, players)
    _check_ids(game0, _count(games, "games"))
    seats = lineup(players, strategies, params)
    on_gpu = active_backend() == "cuda"
    if not on_gpu:
        _compile(data, seats)
    if reuse is None:
        st = allocate(data.components, games, players, log=log, record=record)
    else:
        st = State(*(a[:games] for a in reuse))
    ctl = control(data, seats, seed, game0, per_deal=_count(per_deal, "per_deal"),
                  entries=np.zeros((len(seats.members), len(STAGES)), np.int64) if on_gpu else None)
    if on_gpu:
        from samsim.engine import gpu

        gpu.play(data, st, ctl, seats, fields)
    else:
        with _threads(threads):
            run_batch_nb(data.components, st, ctl)
    broken = np.flatnonzero(st.error[:, ERROR_CODE])
    if broken.size:  # a strategy broke a rule: a bug in it, never a result row
        g = int(broken[0])
        seat = int(st.error[g, ERROR_SEAT])
        raise IllegalDecision(f"strategy {seats.seating(game0 + g)[seat]} (seat {seat}) made an illegal "
                              f"decision in game {game0 + g} (seed {seed}), round "
                              f"{st.error[g, ERROR_ROUND]}: {reason(st.error[g, ERROR_CODE])}")
    return st


def _check_ids(game0, games: int) -> None:
    """Game ids are int64: a range past them would wrap round to other games, silently."""
    if not isinstance(game0, (int, np.integer)) or isinstance(game0, bool) or game0 < 0 \
            or game0 + games > MAX_GAMES:
        raise ValueError(f"game ids are whole numbers 0..{MAX_GAMES - 1:,} (2**63-2); "
                         f"{games:,} game{'s' * (games > 1)} from id {game0!r} do not fit")


def _count(value, name: str) -> int:
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 1:
        raise ValueError(f"{name} must be a positive whole number, got {value!r}")
    return int(value)


def physical_memory() -> int:
    """Bytes of memory this machine has (where the system cannot say: no limit)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return 2**62


def batches(ranges, players: int, seed: int, data: GameData, seats, chunk_size: int = DEFAULT_CHUNK,
            threads: int | None = None, record: bool = False, per_deal: int = 1,
            progress=None, log: bool = False) -> Iterator[tuple[int, int, State]]:
    """Play the games of ``ranges`` (``(first, stop)`` pairs of game ids) in chunks of at most
    ``chunk_size``; yields ``(first, games, state)``, the state's rows reused by the next chunk
    (copy what you keep). Arguments are those ``checked`` returns; ``progress(n)`` after each
    unit of n games (below), so that a progress bar moves while a long chunk plays; ``log``
    keeps every game's events (``State.events``).

    A chunk is played in units of about ``UNIT_SECONDS`` (sized from the speed measured so far;
    no game depends on the unit it is played in), because Python answers Ctrl-C only between
    two calls of the kernel: a KeyboardInterrupt then yields the chunk's finished games as a
    shorter chunk before it goes on, so a caller that writes chunks loses at most one unit."""
    ranges = [(int(a), int(b)) for a, b in ranges if b > a]
    if not ranges:
        return
    most = min(chunk_size, max(b - a for a, b in ranges))
    need, have = most * row_bytes(data.components, players, log, record), physical_memory()
    try:
        if need > have // 2:  # an overcommitting system would kill, not refuse
            raise MemoryError
        rows = allocate(data.components, most, players, log=log, record=record)
    except MemoryError:
        raise ValueError(f"a chunk of {most:,} games needs {need / 2**20:,.0f} MiB of memory, "
                         f"more than this machine gives (half of its {have / 2**30:,.0f} GiB at "
                         f"most): use smaller chunks (--chunk-size)") from None
    if active_backend() == "cpu":
        _compile(data, seats)  # before any unit is timed
    kept = OUTCOME + ("record",) * record + ("events", "n_events") * log
    with _threads(threads):
        smallest = 4 * numba.get_num_threads()
    unit = smallest
    for start, n in chunks(ranges, chunk_size):
        done = 0
        try:
            while done < n:
                stop_point()
                u = min(unit, n - done)
                began = time.perf_counter()
                run_batch(u, players, seed, start + done, data, None, threads,
                          reuse=State(*(a[done:done + u] for a in rows)), strategies=seats,
                          per_deal=per_deal, fields=kept)
                done += u
                if progress is not None:
                    progress(u)
                took = max(time.perf_counter() - began, 1e-6)
                unit = max(smallest, min(4 * u, int(u * UNIT_SECONDS / took)))
        except KeyboardInterrupt:
            if done:
                yield start, done, State(*(a[:done] for a in rows))
            raise
        yield start, n, State(*(a[:n] for a in rows))


def chunks(ranges, chunk_size: int) -> list[tuple[int, int]]:
    """(first game, games) of each chunk ``ranges`` are played in: the files of a run folder,
    wherever the games are played (``samsim.engine.cluster``), so only this cuts them."""
    return [(start, min(chunk_size, stop - start)) for first, stop in ranges
            for start in range(int(first), int(stop), chunk_size)]


def checked(games, players, seed, data, params, chunk_size, threads, strategies):
    """The arguments of a run, validated (ValueError naming the bad one) before any game is
    played: (games, players, seed, data, line-up, chunk_size, threads)."""
    data = data or comps.load()
    games, chunk_size = _count(games, "games"), _count(chunk_size, "chunk_size")
    if games > MAX_GAMES:
        raise ValueError(f"games must be at most {MAX_GAMES:,} (2**63-1: game ids are int64), "
                         f"got {games:,}")
    players = check_players(data, players)
    check_seed(seed)
    seats = lineup(players, strategies, params)
    with _threads(threads):
        pass  # validates the thread count now
    return games, players, seed, data, seats, chunk_size, threads


def snapshot(data: GameData, st: State, g: int = 0) -> dict:
    """The state of game g in the engines' common form (docs/protocol.md)."""
    c = data.components
    n_cards = len(c.card_bid)
    per = c.chips_per_nation

    def bits(mask, n):
        return [k for k in range(n) if (int(mask) >> k) & 1]

    seats = []
    for p in range(st.money.shape[1]):
        rooms = [[int(x) for x in st.room_chip[g, p, room] if x >= 0] for room in range(st.n_rooms[g, p])]
        seats.append({
            "money": int(st.money[g, p]), "hand": bits(st.hand[g, p], n_cards),
            "discard": bits(st.discard[g, p], n_cards), "rooms": rooms,
            "suites": bits(st.suites[g, p], c.max_rooms), "pools": int(st.pools[g, p]),
            "specials": [int(x) for x in st.specials[g, p]],
        })
    snap = {
        "round": int(st.round_no[g]) + 1, "tiebreak": int(st.tiebreak[g]),
        "table_tiles": [int(x) for x in st.table_tiles[g]],
        "tile_stack": [int(x) for x in st.tile_stack[g, st.stack_pos[g]:st.stack_len[g]]],
        "piles": [[n * per + k for k in bits(st.pile[g, n], per)] for n in range(c.n_nations)],
        "seats": seats,
    }
    if st.round_no[g] == c.rounds:
        snap["final"] = {"score": [int(x) for x in st.score[g]],
                         "free_rooms": [int(x) for x in st.free_rooms[g]],
                         "rank": [int(x) for x in st.rank[g]],
                         "win_credit": [float(x) for x in st.win_credit[g]]}
    return snap


def game_record(data: GameData, st: State, log: bool) -> GameRecord:
    if st.error[0, ERROR_CODE]:
        raise illegal(st.error[0, ERROR_ROUND], st.error[0, ERROR_SEAT], st.error[0, ERROR_CODE])
    events = rows_to_tuples(st.events[0], int(st.n_events[0])) if log else []
    return GameRecord(events, snapshot(data, st))


def play_game(data: GameData | None, players: int, seed: int, game: int = 0, params=None,
              log: bool = False, strategies=None) -> GameRecord:
    """One whole game, as ``simulate`` plays it, with its event log if asked."""
    data = data or comps.load()
    st = run_batch(1, players, seed, game, data, params, threads=None, log=log,
                   strategies=strategies)
    return game_record(data, st, log)


__all__ = ["BACKENDS", "OUTCOME", "active_backend", "backend", "batches", "checked", "compiled",
           "run_batch", "play_game",
           "GameRecord", "IllegalDecision", "snapshot"]
