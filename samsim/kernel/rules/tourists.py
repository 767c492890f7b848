"""Step 5: the tourist phase (turn order, SEND_HOME, one group per turn, placement, payment) and the
Staff holiday removals."""

from samsim.components import LOVER
from samsim.kernel.bits import lowest_bit_nb
from samsim.kernel.decisions import (
    E_EMPTY_ROOM,
    E_GROUP,
    E_NO_ROOM,
    E_NOT_IN_GROUP,
    E_REMOVALS,
    E_ROOM_TAKEN,
    E_TAKE_MANY,
    GROUP,
    MAX_PICKS,
    MAX_TAKE,
    N_TAKE,
    TAKE,
)
from samsim.kernel.events import HOST, NO, log_nb
from samsim.kernel.jit import rule
from samsim.kernel.rules.common import fail_nb, price_tie_rank_nb
from samsim.kernel.rules.hotel import empty_room_nb, place_chip_nb
from samsim.kernel.rules.payment import payment_nb


@rule
def next_host_nb(comp, st, g, done):
    """The seat offered tourists next: lowest price; equal prices counter-clockwise from the
    tie-breaker card (or as the data's price_ties says). Staff holiday seats are skipped; returns -1 when no seat is left."""
    n = st.money.shape[1]
    t = st.tiebreak[g]
    best, best_key = NO, 1 << 30  # NO, typed: see next_builder_nb
    for p in range(n):
        card = st.played[g, p]
        if (done >> p) & 1 or card == comp.holiday_card:
            continue
        key = comp.card_price[card] * 8 + price_tie_rank_nb(comp, n, t, p)
        if key < best_key:
            best, best_key = p, key
    return best


@rule
def tourists_on_offer_nb(st, g):
    for group in range(st.group_left.shape[1]):
        if st.group_left[g, group]:
            return True
    return False


@rule
def apply_removals_nb(comp, st, g, p, r, first, most, kind):
    """Empty the rooms listed at ``decision[first:]`` (-1 ends the list): Staff holiday and SEND_HOME
    send tourists home a room at a time, so a lover couple counts as one. Returns the rooms emptied,
    or -1 on an illegal choice."""
    count = 0
    while count < MAX_PICKS and st.decision[g, first + count] >= 0:
        room = st.decision[g, first + count]
        count += 1
        if count > most:
            fail_nb(st, g, E_REMOVALS, r + 1, p)
            return -1
        if room >= st.n_rooms[g, p]:
            fail_nb(st, g, E_NO_ROOM, r + 1, p)
            return -1
        if not (st.occupied[g, p] >> room) & 1:
            fail_nb(st, g, E_EMPTY_ROOM, r + 1, p)
            return -1
        empty_room_nb(comp, st, g, p, room, kind, r + 1)
    return count


@rule
def apply_take_nb(comp, st, g, p, r):
    """Host the chosen chips of one group, one at a time in the chosen order, each paying on move-in.

    A chip goes to an empty room, or (a lover) into a room holding exactly one lover.
    """
    dec = st.decision[g]
    group = dec[GROUP]
    if group < 0:
        return True
    if group >= comp.max_groups:
        return fail_nb(st, g, E_GROUP, r + 1, p)
    if st.group_left[g, group] == 0:
        return fail_nb(st, g, E_GROUP, r + 1, p)
    if dec[N_TAKE] > MAX_TAKE:
        return fail_nb(st, g, E_TAKE_MANY, r + 1, p)
    price = comp.card_price[st.played[g, p]]
    for i in range(dec[N_TAKE]):
        chip = dec[TAKE + 2 * i]
        room = dec[TAKE + 2 * i + 1]
        at = -1
        left = st.group_left[g, group]
        while left:
            pos = lowest_bit_nb(left)
            left &= left - 1
            if st.group_chip[g, group, pos] == chip:
                at = pos
        if at < 0:
            return fail_nb(st, g, E_NOT_IN_GROUP, r + 1, p)
        if room < 0 or room >= st.n_rooms[g, p]:
            return fail_nb(st, g, E_NO_ROOM, r + 1, p)
        first = st.room_chip[g, p, room, 0]
        if first < 0:
            slot = 0
        elif (comp.chip_kind[chip] == LOVER and comp.chip_kind[first] == LOVER
              and st.room_chip[g, p, room, 1] < 0):
            slot = 1
        else:
            return fail_nb(st, g, E_ROOM_TAKEN, r + 1, p)
        pay = payment_nb(comp, st, g, p, chip, room, price)
        place_chip_nb(comp, st, g, p, room, slot, chip)
        st.group_chip[g, group, at] = -1
        st.group_left[g, group] &= ~(1 << at)
        st.money[g, p] += pay
        st.income[g, p] += pay
        st.hosted[g, p] += 1
        st.tourists_hosted[g, p] += 1
        log_nb(st.events, st.n_events, g, r + 1, HOST, p, chip, room, pay, group)
    return True
