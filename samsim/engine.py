"""The batch driver: deals and plays many games in parallel, chunk by chunk.

Only this module knows about batching. Every game draws from its own streams keyed by (seed, game
id), so a result does not depend on the thread count, the chunk size, or which other games share a
chunk: game 17 of a million-game run equals game 17 played alone.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numba
import numpy as np
import pandas as pd
from numba import prange

from samsim import abi, schema
from samsim import components as comps
from samsim.components import TILE_KINDS, GameData
from samsim.decisions import (BUILD, CARD, DECISION_LEN, ERRORS, GROUP, HOLIDAY, MAX_PICKS, MAX_TAKE,
                              N_TAKE, RECALL, SEND_HOME, SUITE_ROOM, SWITCH, TAKE)
from samsim.events import rows_to_tuples
from samsim.jit import rule
from samsim.rules.common import deal_of_nb
from samsim.rules.round import play_rounds_nb
from samsim.rules.setup import deal_nb, log_flags_nb
from samsim.strategy import STAGES, Lineup, lineup
from samsim.state import (ERROR_CODE, ERROR_ROUND, ERROR_SEAT, NO_OVERRIDE, Control, State,
                          allocate)

#: Games per chunk by default: large enough to keep every thread busy, small enough (~40 MB of
#: state at 4 players) to keep memory flat however many games a run has.
DEFAULT_CHUNK = 16384
MAX_SEED = 2**64 - 1
#: Game ids are int64, and a range of them ends one past its last: ids are 0 .. MAX_GAMES-1.
MAX_GAMES = 2**63 - 1
#: Seconds of play between two chances to stop (``batches``): Ctrl-C waits at most about this.
UNIT_SECONDS = 0.25


class IllegalDecision(ValueError):
    """A scripted decision the rules forbid (or never ask for)."""


@dataclass
class GameRecord:
    """One game as both engines report it: its event log and the state it ended in."""

    events: list[tuple[int, ...]]
    snapshot: dict


_FIRST_ROUND = np.int64(0)  # typed: with a literal 0 the game loop compiled twice (batch, position)


# nogil: while a batch plays, another thread can run (``samsim.interrupt``'s watchdog, which ends
# a process whose strategy never returns: Python's own signal handlers wait for the kernel).
@rule(parallel=True, inline="never", nogil=True)
def _run_batch_nb(comp, st, ctl):
    abi.pack_nb(comp, st, ctl)
    for i in prange(st.money.shape[0]):
        g = np.int64(i)  # prange counts in uint64; the rules are compiled for int64 rows
        deal_nb(comp, st, g, ctl.seed, deal_of_nb(ctl, g))
        log_flags_nb(comp, st, g)
        play_rounds_nb(comp, st, ctl, g, _FIRST_ROUND, comp.rounds)


_ONLY_GAME = np.int64(0)  # typed, so the rules compile once for batches and single games alike


@rule(inline="never", nogil=True)
def _deal_one_nb(comp, st, seed, game):
    deal_nb(comp, st, _ONLY_GAME, seed, game)


@rule(inline="never", nogil=True)
def _play_one_nb(comp, st, ctl, first, last):
    abi.pack_nb(comp, st, ctl)
    log_flags_nb(comp, st, _ONLY_GAME)
    return play_rounds_nb(comp, st, ctl, _ONLY_GAME, first, last)


def _check_seed(seed) -> np.uint64:
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or not 0 <= seed <= MAX_SEED:
        raise ValueError(f"seed must be a whole number 0..2**64-1, got {seed!r}")
    return np.uint64(seed)


def _control(data: GameData, seats: Lineup, seed, game0, script=None, arrivals=None,
             entries=None, per_deal: int = 1) -> Control:
    c, players = data.components, seats.players
    return Control(
        seed=_check_seed(seed), game0=int(game0), per_deal=int(per_deal),
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
    that takes the strategies' share off the first run's wait."""
    if _run_batch_nb.signatures:
        return
    helper = abi.precompile(seats.uncompiled())
    try:
        empty = allocate(data.components, 0, seats.players)
        _run_batch_nb(data.components, empty, _control(
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
    if not _run_batch_nb.signatures:
        try:
            index = Path(_run_batch_nb._cache._cache_file._index_path)
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


def _check_players(data: GameData, players) -> int:
    if not isinstance(players, (int, np.integer)) or not data.min_players <= players <= data.max_players:
        raise ValueError(f"players must be {data.min_players}..{data.max_players}, got {players!r}")
    return int(players)


def run_batch(games: int, players: int, seed: int, game0: int = 0, data: GameData | None = None,
              params=None, threads: int | None = None, log: bool = False,
              reuse: State | None = None, strategies=None, record: bool = False,
              per_deal: int = 1) -> State:
    """Deal and play games ``game0 .. game0+games-1`` in one batch; returns the final state arrays.

    ``strategies``: one strategy spec for every seat (``"greedy"``, ``"undercut(margin=2)"``) or a
    list with one per seat, or a ``Lineup``; ``random`` by default. ``params`` overrides strategy
    parameters (a dict for every seat, or one per seat).

    ``record`` keeps each seat's end-of-round record (``State.record``, schema ``rounds``).
    ``per_deal`` > 1 makes duplicate deals: game ids k*per_deal .. (k+1)*per_deal-1 share deal k
    (``samsim.rules.common.deal_of_nb``); pair it with a line-up of as many seatings.
    ``reuse`` is a state of at least ``games`` rows from an earlier batch of the same shape: the deal
    overwrites everything a game reads, and touching fresh memory cost as much as a fifth of the run.
    """
    data = data or comps.load()
    players = _check_players(data, players)
    _check_ids(game0, _count(games, "games"))
    seats = lineup(players, strategies, params)
    _compile(data, seats)
    if reuse is None:
        st = allocate(data.components, games, players, log=log, record=record)
    else:
        st = State(*(a[:games] for a in reuse))
    ctl = _control(data, seats, seed, game0, per_deal=_count(per_deal, "per_deal"))
    with _threads(threads):
        _run_batch_nb(data.components, st, ctl)
    broken = np.flatnonzero(st.error[:, ERROR_CODE])
    if broken.size:  # a strategy broke a rule: a bug in it, never a result row
        g = int(broken[0])
        seat = int(st.error[g, ERROR_SEAT])
        raise IllegalDecision(f"strategy {seats.seating(game0 + g)[seat]} (seat {seat}) made an illegal "
                              f"decision in game {game0 + g} (seed {seed}), round "
                              f"{st.error[g, ERROR_ROUND]}: {ERRORS[int(st.error[g, ERROR_CODE])]}")
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
    rows = allocate(data.components, most, players, log=log, record=record)
    _compile(data, seats)  # before any unit is timed
    with _threads(threads):
        smallest = 4 * numba.get_num_threads()
    unit = smallest
    for first, stop in ranges:
        for start in range(first, stop, chunk_size):
            n = min(chunk_size, stop - start)
            done = 0
            try:
                while done < n:
                    u = min(unit, n - done)
                    began = time.perf_counter()
                    run_batch(u, players, seed, start + done, data, None, threads,
                              reuse=State(*(a[done:done + u] for a in rows)), strategies=seats,
                              per_deal=per_deal)
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


def checked(games, players, seed, data, params, chunk_size, threads, strategies):
    """The arguments of a run, validated (ValueError naming the bad one) before any game is
    played: (games, players, seed, data, line-up, chunk_size, threads)."""
    data = data or comps.load()
    games, chunk_size = _count(games, "games"), _count(chunk_size, "chunk_size")
    if games > MAX_GAMES:
        raise ValueError(f"games must be at most {MAX_GAMES:,} (2**63-1: game ids are int64), "
                         f"got {games:,}")
    players = _check_players(data, players)
    _check_seed(seed)
    seats = lineup(players, strategies, params)
    with _threads(threads):
        pass  # validates the thread count now
    return games, players, seed, data, seats, chunk_size, threads


def simulate_chunks(games: int, players: int = 4, seed: int = 0, data: GameData | None = None,
                    params=None, chunk_size: int = DEFAULT_CHUNK,
                    threads: int | None = None, strategies=None) -> Iterator[pd.DataFrame]:
    """``simulate``, one chunk of games at a time, so a caller can show progress or write as it
    goes; the chunks concatenated are ``simulate``'s frame.

    Inputs are checked now, before the first chunk is asked for: a bad one is reported before any
    work starts.
    """
    games, players, seed, data, seats, chunk_size, threads = checked(
        games, players, seed, data, params, chunk_size, threads, strategies)
    specs = seats.specs()
    return (schema.results_frame(st, start, n, specs) for start, n, st in
            batches([(0, games)], players, seed, data, seats, chunk_size, threads))


def simulate(games: int, players: int = 4, seed: int = 0, data: GameData | None = None,
             params=None, chunk_size: int = DEFAULT_CHUNK, threads: int | None = None,
             strategies=None) -> pd.DataFrame:
    """Play ``games`` games (seats playing ``strategies``, see ``run_batch``; a pool seated by a
    balanced design is ``samsim.designs.pool_design``); one row per game and seat, in the
    ``results`` layout of ``samsim.schema`` (README "Results").

    Game g of any run with the same seed is the same game, whatever the chunk size or thread
    count.
    """
    parts = list(simulate_chunks(games, players, seed, data, params, chunk_size, threads,
                                 strategies))
    return parts[0] if len(parts) == 1 else pd.concat(parts, ignore_index=True)


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


def _record(data: GameData, st: State, log: bool) -> GameRecord:
    if st.error[0, ERROR_CODE]:
        raise IllegalDecision(f"round {st.error[0, ERROR_ROUND]}, seat {st.error[0, ERROR_SEAT]}: "
                              f"{ERRORS[int(st.error[0, ERROR_CODE])]}")
    events = rows_to_tuples(st.events[0], int(st.n_events[0])) if log else []
    return GameRecord(events, snapshot(data, st))


def play_game(data: GameData | None, players: int, seed: int, game: int = 0, params=None,
              log: bool = False, strategies=None) -> GameRecord:
    """One whole game, as ``simulate`` plays it, with its event log if asked."""
    data = data or comps.load()
    st = run_batch(1, players, seed, game, data, params, threads=None, log=log,
                   strategies=strategies)
    return _record(data, st, log)


# ---------------------------------------------------------------- positions (scenarios)

_POSITION_KEYS = {"players", "seed", "game", "round", "rounds", "flags", "tile_stack", "tourist_cards",
                  "table_tiles", "tiebreak", "seats", "arrivals", "decisions", "params",
                  "strategies"}
_SEAT_KEYS = {"money", "hand", "discard", "rooms", "suites", "pools", "specials"}
_DECISION_KEYS = {"card", "recall", "switch", "build", "send_home", "group", "take", "holiday"}


def _ints(value, field, lo, hi, most=None) -> list[int]:
    if not isinstance(value, list) or not all(isinstance(v, int) and lo <= v <= hi for v in value):
        raise ValueError(f"{field}: must be a list of whole numbers {lo}..{hi}, got {value!r}")
    if most is not None and len(value) > most:
        raise ValueError(f"{field}: at most {most} values, got {len(value)}")
    return value


def _int(value, field, lo, hi) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise ValueError(f"{field}: must be a whole number {lo}..{hi}, got {value!r}")
    return value


def _apply_seats(data: GameData, st: State, seats) -> None:
    c = data.components
    n_cards, n_chips = len(c.card_bid), c.n_nations * c.chips_per_nation
    players = st.money.shape[1]
    if not isinstance(seats, list) or len(seats) != players:
        raise ValueError(f"seats: give one entry per seat ({players})")
    seen: set[int] = set()
    for p, seat in enumerate(seats):
        f = f"seats[{p}]"
        if not isinstance(seat, dict) or set(seat) - _SEAT_KEYS:
            raise ValueError(f"{f}: must be an object with keys among {', '.join(sorted(_SEAT_KEYS))}")
        st.money[0, p] = _int(seat.get("money", c.starting_money), f"{f}.money", 0, 10**9)
        discard = _ints(seat.get("discard", []), f"{f}.discard", 0, n_cards - 1)
        hand = _ints(seat.get("hand", [k for k in range(n_cards) if k not in discard]), f"{f}.hand",
                     0, n_cards - 1)
        if sorted(hand + discard) != list(range(n_cards)):
            raise ValueError(f"{f}: hand and discard must hold each of the {n_cards} price cards once")
        st.hand[0, p] = sum(1 << k for k in hand)
        st.discard[0, p] = sum(1 << k for k in discard)
        rooms = seat.get("rooms", [[] for _ in range(c.base_rooms)])
        if not isinstance(rooms, list) or not c.base_rooms <= len(rooms) <= c.max_rooms:
            raise ValueError(f"{f}.rooms: must list {c.base_rooms}..{c.max_rooms} rooms")
        st.n_rooms[0, p] = len(rooms)
        st.room_chip[0, p] = -1
        st.occupied[0, p] = 0
        st.nation_rooms[0, p] = 0
        for room, chips in enumerate(rooms):
            chips = _ints(chips, f"{f}.rooms[{room}]", 0, n_chips - 1, most=2)
            if len(chips) == 2 and not all(c.chip_kind[x] == comps.LOVER for x in chips):
                raise ValueError(f"{f}.rooms[{room}]: only two lovers may share a room")
            for slot, chip in enumerate(chips):
                if chip in seen:
                    raise ValueError(f"{f}.rooms[{room}]: chip {data.chip_name(chip)} is in two places")
                seen.add(chip)
                st.room_chip[0, p, room, slot] = chip
                st.occupied[0, p] |= 1 << room
                st.nation_rooms[0, p, chip // c.chips_per_nation] |= 1 << room
        suites = _ints(seat.get("suites", []), f"{f}.suites", 0, len(rooms) - 1)
        st.suites[0, p] = sum(1 << k for k in set(suites))
        st.pools[0, p] = _int(seat.get("pools", 0), f"{f}.pools", 0, 99)
        st.specials[0, p] = _ints(seat.get("specials", [0, 0, 0]), f"{f}.specials", 0, 99)
        if len(seat.get("specials", [0, 0, 0])) != 3:
            raise ValueError(f"{f}.specials: give [switch, send_home, recall]")
    full = (1 << c.chips_per_nation) - 1
    for nation in range(c.n_nations):
        st.pile[0, nation] = full & ~sum(1 << (x % c.chips_per_nation) for x in seen
                                         if x // c.chips_per_nation == nation)


def _script_row(data: GameData, row: np.ndarray, dec: dict, field: str) -> None:
    c = data.components
    n_cards, n_chips = len(c.card_bid), c.n_nations * c.chips_per_nation
    if not isinstance(dec, dict) or set(dec) - _DECISION_KEYS or "card" not in dec:
        raise ValueError(f"{field}: must be null or an object with a card and keys among "
                         f"{', '.join(sorted(_DECISION_KEYS))}")
    row[CARD] = _int(dec["card"], f"{field}.card", 0, n_cards - 1)
    for first, key, hi in ((RECALL, "recall", n_cards - 1), (SEND_HOME, "send_home", c.max_rooms - 1),
                           (HOLIDAY, "holiday", c.max_rooms - 1)):
        values = _ints(dec.get(key, []), f"{field}.{key}", 0, hi, most=MAX_PICKS)
        row[first:first + len(values)] = values
    if dec.get("switch") is not None:
        row[SWITCH] = _int(dec["switch"], f"{field}.switch", 0, n_cards - 1)
    build = dec.get("build")
    if build is not None:
        if not isinstance(build, dict) or set(build) - {"tile", "room"}:
            raise ValueError(f"{field}.build: must be null or {{tile, room}}")
        row[BUILD] = _int(build.get("tile"), f"{field}.build.tile", 0, len(TILE_KINDS) - 1)
        if build.get("room") is not None:
            row[SUITE_ROOM] = _int(build["room"], f"{field}.build.room", 0, c.max_rooms - 1)
    if dec.get("group") is not None:
        row[GROUP] = _int(dec["group"], f"{field}.group", 0, c.max_groups - 1)
    take = dec.get("take", [])
    if not isinstance(take, list) or len(take) > MAX_TAKE:
        raise ValueError(f"{field}.take: must be a list of at most {MAX_TAKE} [chip, room] pairs")
    if take and row[GROUP] < 0:
        raise ValueError(f"{field}.take: tourists taken without a group")
    row[N_TAKE] = len(take)
    for i, pair in enumerate(take):
        if not isinstance(pair, list) or len(pair) != 2:
            raise ValueError(f"{field}.take[{i}]: must be a [chip, room] pair")
        chip = _int(pair[0], f"{field}.take[{i}] chip", 0, n_chips - 1)
        room = _int(pair[1], f"{field}.take[{i}] room", 0, c.max_rooms - 1)
        row[TAKE + 2 * i] = chip
        row[TAKE + 2 * i + 1] = room


def play_position(data: GameData | None, position: dict, log: bool = True) -> GameRecord:
    """Play a position (docs/protocol.md, 'Positions'): the seeded deal with overrides, from a given
    round, with scripted decisions where given."""
    data = data or comps.load()
    c = data.components
    if not isinstance(position, dict):
        raise ValueError("position: must be an object")
    unknown = set(position) - _POSITION_KEYS
    if unknown:
        raise ValueError(f"position: unknown key {sorted(unknown)[0]!r} "
                         f"(known: {', '.join(sorted(_POSITION_KEYS))})")
    players = _check_players(data, position.get("players"))
    seed = _check_seed(position.get("seed", 0))
    game = _int(position.get("game", 0), "game", 0, 2**63 - 1)
    first = _int(position.get("round", 1), "round", 1, c.rounds) - 1
    last = first + _int(position.get("rounds", c.rounds - first), "rounds", 1, c.rounds - first)

    st = allocate(c, 1, players, log=log)
    _deal_one_nb(c, st, seed, game)
    st.round_no[0] = first
    if "flags" in position:
        flags = _ints(position["flags"], "flags", 0, c.n_nations - 1)
        if len(flags) != c.rounds:
            raise ValueError(f"flags: give one nation per round ({c.rounds})")
        st.flags[0] = flags
    if "tile_stack" in position:
        stack = _ints(position["tile_stack"], "tile_stack", 0, len(TILE_KINDS) - 1,
                      most=st.tile_stack.shape[1])
        st.tile_stack[0, :len(stack)] = stack
        st.stack_pos[0], st.stack_len[0] = 0, len(stack)
    if "tourist_cards" in position:
        cards = _ints(position["tourist_cards"], "tourist_cards", 0, st.card_order.shape[1] - 1,
                      most=c.rounds - first)
        st.card_order[0, first:first + len(cards)] = cards
    if "table_tiles" in position:
        table = _ints(position["table_tiles"], "table_tiles", 0, 99)
        if len(table) != len(TILE_KINDS):
            raise ValueError(f"table_tiles: give a count per tile kind ({', '.join(TILE_KINDS)})")
        st.table_tiles[0] = table
    st.tiebreak[0] = _int(position.get("tiebreak", 0), "tiebreak", 0, players - 1)
    if "seats" in position:
        _apply_seats(data, st, position["seats"])

    arrivals = np.full((1, c.rounds, c.max_groups, c.chips_per_nation), -1, np.int64)
    arrivals[0, :, 0, 0] = NO_OVERRIDE
    for key, groups in (position.get("arrivals") or {}).items():
        r = _int(int(key) if str(key).isdigit() else key, "arrivals round", first + 1, last) - 1
        if not isinstance(groups, list) or not 1 <= len(groups) <= c.max_groups:
            raise ValueError(f"arrivals.{key}: give 1..{c.max_groups} groups")
        arrivals[0, r] = -1
        for i, group in enumerate(groups):
            chips = _ints(group, f"arrivals.{key}[{i}]", 0, c.n_nations * c.chips_per_nation - 1,
                          most=c.chips_per_nation)
            if any(x // c.chips_per_nation != st.flags[0, r] for x in chips):
                raise ValueError(f"arrivals.{key}[{i}]: every arriving chip must be of the round's "
                                 f"nation ({data.nation_names[st.flags[0, r]]})")
            arrivals[0, r, i, :len(chips)] = chips

    script = np.full((1, c.rounds, players, DECISION_LEN), -1, np.int64)
    for key, per_seat in (position.get("decisions") or {}).items():
        r = _int(int(key) if str(key).isdigit() else key, "decisions round", first + 1, last) - 1
        if not isinstance(per_seat, list) or len(per_seat) != players:
            raise ValueError(f"decisions.{key}: give one entry (or null) per seat ({players})")
        for p, dec in enumerate(per_seat):
            if dec is not None:
                _script_row(data, script[0, r, p], dec, f"decisions.{key}[{p}]")

    seats = lineup(players, position.get("strategies"), position.get("params"))
    ctl = _control(data, seats, seed, game, script, arrivals)
    _play_one_nb(c, st, ctl, first, last)
    return _record(data, st, log)


__all__ = ["simulate", "simulate_chunks", "batches", "checked", "compiled", "run_batch", "play_game",
           "play_position", "GameRecord", "IllegalDecision", "snapshot"]
