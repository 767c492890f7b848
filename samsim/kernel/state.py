"""The batched game state: one NamedTuple of arrays, the game on the leading axis.

Kernels read and write row ``g`` only; only ``samsim.engine.play`` knows about batching. Every field says its
layout and units. Bitmaps are plain int32/int64 (bit k = room k, card k or chip k of a nation), so
kernels never mix unsigned and signed integers (Numba would promote the mix to float64).
"""

from typing import NamedTuple

import numpy as np

from samsim.components import MAX_SEATS, TILE_KINDS, Components
from samsim.kernel.decisions import DECISION_LEN, SWITCH
from samsim.kernel.events import MAX_EVENTS

#: int64 words of each seat's notebook (samsim.kernel.contract.View.memo).
MEMO_LEN = 32

#: error[g] fields: what went wrong (an ``samsim.kernel.decisions`` error code), in which round and seat.
ERROR_CODE, ERROR_ROUND, ERROR_SEAT = range(3)

#: record[g, p, r] fields, kept per seat at the end of each round when a run records rounds:
#: money (coins), rooms holding a tourist, price card played (index into the data file's cards,
#: after any SWITCH), tile kind bought (index into TILE_KINDS, -1 = none), tourists hosted.
#: The game's market, the same on every seat's row: tourists that arrived, free rooms in all hotels
#: when they arrived, tourists no one hosted; and the seat's income so far (guests and pools).
RECORD_FIELDS = ("money", "rooms_filled", "card", "tile", "hosted", "income", "arrived",
                 "free_rooms", "turned_away")
(REC_MONEY, REC_ROOMS, REC_CARD, REC_TILE, REC_HOSTED, REC_INCOME, REC_ARRIVED, REC_FREE,
 REC_TURNED_AWAY) = range(len(RECORD_FIELDS))

#: ties[g, p] fields: ties the tie-breaker card settled for the seat over the game, counted per
#: rival with the same bid (tile offers) or the same room price (tourist offers), won or lost.
TIE_FIELDS = ("build_ties_won", "build_ties_lost", "price_ties_won", "price_ties_lost")
TIE_BUILD_WON, TIE_BUILD_LOST, TIE_PRICE_WON, TIE_PRICE_LOST = range(len(TIE_FIELDS))


class State(NamedTuple):
    round_no: np.ndarray  # int64[G]: next round to play, 0-based (rounds when the game is over)
    tiebreak: np.ndarray  # int64[G]: t, the tie-breaker lies between seat t-1 and seat t
    flags: np.ndarray  # int64[G, rounds]: nation of each round's flag
    tile_stack: np.ndarray  # int64[G, n_tiles]: tile kinds of the face-down stack, top at stack_pos
    stack_pos: np.ndarray  # int64[G]: index of the next tile to reveal
    stack_len: np.ndarray  # int64[G]: tiles in tile_stack (revealing stops there)
    card_order: np.ndarray  # int64[G, n_tourist_cards]: tourist card drawn in each round
    table_tiles: np.ndarray  # int64[G, len(TILE_KINDS)]: face-up tiles waiting for a buyer, by kind
    group_chip: np.ndarray  # int64[G, max_groups, chips_per_nation]: chips on offer, -1 = none/taken
    group_left: np.ndarray  # int64[G, max_groups]: bitmap of positions of group_chip still on offer
    pile: np.ndarray  # int64[G, n_nations]: bitmap of the nation's chips in its face-down pile
    draw: np.ndarray  # int64[G, chips_per_nation]: scratch for the shuffle that draws arrivals
    money: np.ndarray  # int64[G, N]: coins
    hand: np.ndarray  # int64[G, N]: bitmap of price cards in hand
    discard: np.ndarray  # int64[G, N]: bitmap of discarded price cards
    played: np.ndarray  # int64[G, N]: card played this round, -1 between rounds
    n_rooms: np.ndarray  # int64[G, N]: rooms owned (base rooms + extra rooms)
    room_chip: np.ndarray  # int64[G, N, max_rooms, 2]: chips in each room, slot 0 first, -1 = empty
    # Bitmaps kept in step with room_chip / group_chip (the invariant tests check they agree): the hot
    # questions (free rooms, who leaves, anyone left to host) become one AND instead of a scan.
    occupied: np.ndarray  # int64[G, N]: bitmap of rooms holding a tourist
    nation_rooms: np.ndarray  # int64[G, N, n_nations]: bitmap of rooms holding a tourist of the nation
    suites: np.ndarray  # int64[G, N]: bitmap of rooms covered by a suite
    pools: np.ndarray  # int64[G, N]: swimming pools owned
    specials: np.ndarray  # int64[G, N, 3]: unused SWITCH, SEND_HOME, RECALL tiles
    rng: np.ndarray  # uint64[G, 1 + N]: [0] scratch deal stream, [1 + s] seat s's decision stream
    decision: np.ndarray  # int64[G, DECISION_LEN]: the decision being applied (decisions.py)
    chosen: np.ndarray  # int64[G, N, SWITCH]: price cards chosen face down (CARD, RECALL fields):
    #   every seat chooses before any card is put down, so no choice can see another
    memo: np.ndarray  # int64[G, N, MEMO_LEN]: each seat's own notebook for its strategy
    asked: np.ndarray  # int64[G, N]: this round's offers (ASKED_* bits), to catch unused scripts
    bought: np.ndarray  # int64[G, N]: tiles bought this round
    hosted: np.ndarray  # int64[G, N]: tourists hosted this round
    tiles_bought: np.ndarray  # int64[G, N]: tiles bought over the game
    tourists_hosted: np.ndarray  # int64[G, N]: tourists hosted over the game
    income: np.ndarray  # int64[G, N]: money earned from tourists and pool bonuses over the game
    spent: np.ndarray  # int64[G, N]: money paid for tiles over the game
    ties: np.ndarray  # int64[G, N, TIE_FIELDS]: ties the tie-breaker settled, won and lost
    score: np.ndarray  # int64[G, N]: final score (money + value of unused special tiles)
    free_rooms: np.ndarray  # int64[G, N]: free rooms at the end
    rank: np.ndarray  # int64[G, N]: 1 = winner; tied seats share the better rank
    win_credit: np.ndarray  # float64[G, N]: 1/k for each of k winners, else 0
    error: np.ndarray  # int64[G, 3]: ERROR_CODE, ERROR_ROUND, ERROR_SEAT; code 0 = fine
    events: np.ndarray  # int64[G or 0, MAX_EVENTS, 7]: event rows (events.py); 0 rows = no logging
    n_events: np.ndarray  # int64[G]: rows written to events[g]
    record: np.ndarray  # int64[G or 0, N, rounds, RECORD_FIELDS]: per-round record; 0 rows = none


def allocate(comp: Components, games: int, players: int, log: bool = False,
             record: bool = False) -> State:
    """Zeroed state for ``games`` games of ``players`` players (the deal fills it in); ``log``
    keeps every event, ``record`` the per-round record."""
    if not 3 <= players <= MAX_SEATS:
        raise ValueError(f"players must be 3..{MAX_SEATS}, got {players}")
    g, n = games, players
    i64 = np.int64

    def z(*shape):
        return np.zeros(shape, i64)

    return State(
        round_no=z(g), tiebreak=z(g), flags=z(g, comp.rounds),
        tile_stack=z(g, int(comp.tile_count.sum())), stack_pos=z(g), stack_len=z(g),
        card_order=z(g, comp.card_groups.shape[0]), table_tiles=z(g, len(TILE_KINDS)),
        group_chip=np.full((g, comp.max_groups, comp.chips_per_nation), -1, i64),
        group_left=z(g, comp.max_groups),
        pile=z(g, comp.n_nations), draw=z(g, comp.chips_per_nation), money=z(g, n), hand=z(g, n), discard=z(g, n),
        played=np.full((g, n), -1, i64), n_rooms=z(g, n),
        room_chip=np.full((g, n, comp.max_rooms, 2), -1, i64),
        occupied=z(g, n), nation_rooms=z(g, n, comp.n_nations), suites=z(g, n), pools=z(g, n),
        specials=z(g, n, 3), rng=np.zeros((g, 1 + n), np.uint64),
        decision=np.full((g, DECISION_LEN), -1, i64), chosen=np.full((g, n, SWITCH), -1, i64),
        memo=z(g, n, MEMO_LEN), asked=z(g, n), bought=z(g, n),
        hosted=z(g, n), tiles_bought=z(g, n), tourists_hosted=z(g, n), income=z(g, n),
        spent=z(g, n), ties=z(g, n, len(TIE_FIELDS)), score=z(g, n), free_rooms=z(g, n), rank=z(g, n),
        win_credit=np.zeros((g, n)), error=z(g, 3),
        events=z(g if log else 0, MAX_EVENTS if log else 0, 7), n_events=z(g),
        record=z(g if record else 0, n, comp.rounds, len(RECORD_FIELDS)),
    )


class Control(NamedTuple):
    """What drives a batch besides the state: who decides, with which parameters, and overrides."""

    seed: np.uint64  # the run's seed
    game0: int  # game id of row 0 (game ids = game0 + g)
    per_deal: int  # games in a row that share a deal (1; more for duplicate deals: rules.common)
    batch: np.ndarray  # uint8[abi.packed_bytes()]: the batch's array headers, for the entry points
    entries: np.ndarray  # int64[K, stages]: address of each seated strategy's entry point per
    #   decision (samsim.engine.lineup.Lineup.entries; samsim.kernel.abi)
    seat_strategy: np.ndarray  # int64[S, N]: each seat's strategy (a row of entries and params)
    #   in each of the line-up's S seatings; game id k plays seating k mod S
    params: np.ndarray  # float64[K, MAX_PARAMS]: each seated strategy's parameters
    script: np.ndarray  # int64[G or 0, rounds, N, DECISION_LEN]: scripted decisions, CARD -1 = none
    arrivals: np.ndarray  # int64[G or 0, rounds, max_groups, chips_per_nation]: fixed groups, -1
    #   padded; arrivals[g, r, 0, 0] == NO_OVERRIDE leaves round r to the draw


NO_OVERRIDE = -2


def row_bytes(comp: Components, players: int, log: bool = False, record: bool = False) -> int:
    """Bytes of one game's state (a row of every field): what a chunk of games costs."""
    return sum(a.nbytes for a in allocate(comp, 1, players, log=log, record=record))
