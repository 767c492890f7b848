"""Step 1 (tiles revealed) and step 4 (the build phase): offers in bid order, one tile each."""

from samsim.components import EXTRA_ROOM, POOL, SUITE, SWITCH
from samsim.kernel.decisions import BUILD, E_ROOM_NOT_SUITE, E_SUITE_ROOM, E_TILE, SUITE_ROOM
from samsim.kernel.events import BUY, NO, POOL_BONUS, REVEAL, log_nb
from samsim.kernel.jit import rule
from samsim.kernel.rules.common import fail_nb
from samsim.kernel.rules.hotel import buoy_points_nb


@rule
def reveal_tiles_nb(comp, st, g, r):
    """New tiles join any unbought ones already on the table."""
    for _ in range(comp.tiles_revealed[st.money.shape[1], r]):
        if st.stack_pos[g] >= st.stack_len[g]:
            return
        kind = st.tile_stack[g, st.stack_pos[g]]
        st.stack_pos[g] += 1
        st.table_tiles[g, kind] += 1
        log_nb(st.events, st.n_events, g, r + 1, REVEAL, NO, kind, NO, NO, NO)


@rule
def tiles_on_table_nb(st, g):
    total = 0
    for kind in range(st.table_tiles.shape[1]):
        total += st.table_tiles[g, kind]
    return total


@rule
def next_builder_nb(comp, st, g, done):
    """The seat offered a tile next: highest bid; equal bids clockwise from the tie-breaker card.
    Seats that played Staff holiday are never offered; returns -1 when no seat is left."""
    n = st.money.shape[1]
    t = st.tiebreak[g]
    best, best_key = NO, -1  # NO, typed: the seat goes on to out-of-line calls (a literal -1
    # compiled the GPU's copies of decide_build_nb and the switch once more, for a seat of -1)
    for p in range(n):
        card = st.played[g, p]
        if (done >> p) & 1 or card == comp.holiday_card:
            continue
        key = comp.card_bid[card] * 8 + (n - 1 - (p - t) % n)
        if key > best_key:
            best, best_key = p, key
    return best


@rule
def apply_build_nb(comp, st, g, p, r):
    """Buy the chosen tile for the bid; a suite covers a room now, a pool pays for swimmers already
    in the hotel, a special tile waits for its use."""
    kind = st.decision[g, BUILD]
    if kind < 0:
        return True
    if kind >= st.table_tiles.shape[1] or st.table_tiles[g, kind] <= 0:
        return fail_nb(st, g, E_TILE, r + 1, p)
    room = -1
    if kind == SUITE:
        room = st.decision[g, SUITE_ROOM]
        if room < 0 or room >= st.n_rooms[g, p] or (st.suites[g, p] >> room) & 1:
            return fail_nb(st, g, E_SUITE_ROOM, r + 1, p)
        st.suites[g, p] |= 1 << room
    elif st.decision[g, SUITE_ROOM] >= 0:
        return fail_nb(st, g, E_ROOM_NOT_SUITE, r + 1, p)
    price = comp.card_bid[st.played[g, p]]
    st.table_tiles[g, kind] -= 1
    st.money[g, p] -= price
    st.spent[g, p] += price
    st.bought[g, p] += 1
    st.tiles_bought[g, p] += 1
    log_nb(st.events, st.n_events, g, r + 1, BUY, p, kind, price, room, NO)
    if kind == EXTRA_ROOM:
        st.n_rooms[g, p] += 1
    elif kind == POOL:
        st.pools[g, p] += 1
        bonus = buoy_points_nb(comp, st, g, p)
        st.money[g, p] += bonus
        st.income[g, p] += bonus
        log_nb(st.events, st.n_events, g, r + 1, POOL_BONUS, p, bonus, NO, NO, NO)
    elif kind >= SWITCH:
        st.specials[g, p, kind - SWITCH] += 1
    return True
