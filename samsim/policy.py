"""Who decides: the built-in random policy and scripted decisions, behind one dispatch.

Each ``decide_*_nb`` fills the fields of one decision stage into ``state.decision[g]``; the rules
then apply and check it. A seat whose script row for the round has a card (CARD >= 0) follows the
script for the whole round; otherwise its policy decides. The random policy draws from the seat's own
stream, in exactly the order docs/protocol.md gives, so the reference engine can replay it.
"""

from samsim.jit import rule

from samsim.components import CELEBRITY, LOVER, SUITE
from samsim.components import RECALL as RECALL_TILE
from samsim.components import SEND_HOME as SEND_HOME_TILE
from samsim.components import SWITCH as SWITCH_TILE
from samsim.decisions import (BUILD, CARD, DECISION_LEN, GROUP, HOLIDAY, MAX_PICKS, N_TAKE, RECALL,
                              SEND_HOME, SUITE_ROOM, SWITCH, TAKE)
from samsim.rng import below
from samsim.bits import kth_bit_nb, lowest_bit_nb, popcount_nb
from samsim.rules.hotel import free_rooms_nb, single_lover_rooms_nb

RECALL_PCT, SWITCH_PCT, SEND_HOME_PCT, TAKE_PCT = range(4)


@rule
def scripted_nb(ctl, g, r, p):
    return ctl.script.shape[0] > 0 and ctl.script[g, r, p, CARD] >= 0


@rule
def _follow_script_nb(st, ctl, g, r, p, first, end):
    """If the seat is scripted this round, copy the script's fields first..end-1 (one decision
    stage) into the decision record and say so."""
    if not scripted_nb(ctl, g, r, p):
        return False
    for k in range(first, end):
        st.decision[g, k] = ctl.script[g, r, p, k]
    return True


@rule
def _pick_rooms_nb(st, g, p, mask, count, first):
    """Write ``count`` rooms drawn one by one, uniformly, from ``mask`` to decision[first:]."""
    rng = st.rng[g]
    for k in range(count):
        room = kth_bit_nb(mask, below(rng, 1 + p, popcount_nb(mask)))
        mask &= ~(1 << room)
        st.decision[g, first + k] = room


@rule
def decide_card_nb(comp, st, ctl, g, p, r):
    """Price card, with RECALL first (it is used at the moment the card is chosen)."""
    for k in range(MAX_PICKS):
        st.decision[g, RECALL + k] = -1
    if _follow_script_nb(st, ctl, g, r, p, CARD, SWITCH):
        return
    rng = st.rng[g]
    hand = st.hand[g, p]
    discard = st.discard[g, p]
    if st.specials[g, p, RECALL_TILE - SWITCH_TILE] > 0 and discard != 0:
        if below(rng, 1 + p, 100) < ctl.params[p, RECALL_PCT]:
            for k in range(min(comp.recall_cards, popcount_nb(discard))):
                card = kth_bit_nb(discard, below(rng, 1 + p, popcount_nb(discard)))
                discard &= ~(1 << card)
                hand |= 1 << card
                st.decision[g, RECALL + k] = card
    st.decision[g, CARD] = kth_bit_nb(hand, below(rng, 1 + p, popcount_nb(hand)))


@rule
def decide_switch_nb(comp, st, ctl, g, p, r):
    st.decision[g, SWITCH] = -1
    if _follow_script_nb(st, ctl, g, r, p, SWITCH, BUILD):
        return
    hand = st.hand[g, p]
    if st.specials[g, p, 0] > 0 and hand != 0:
        rng = st.rng[g]
        if below(rng, 1 + p, 100) < ctl.params[p, SWITCH_PCT]:
            st.decision[g, SWITCH] = kth_bit_nb(hand, below(rng, 1 + p, popcount_nb(hand)))


@rule
def decide_build_nb(comp, st, ctl, g, p, r):
    """Called when a tile is offered and affordable: which kind (and the suite's room), or pass."""
    st.decision[g, BUILD] = -1
    st.decision[g, SUITE_ROOM] = -1
    if _follow_script_nb(st, ctl, g, r, p, BUILD, SEND_HOME):
        return
    owned = (1 << st.n_rooms[g, p]) - 1
    no_suite = owned & ~st.suites[g, p]
    options = 0
    for kind in range(st.table_tiles.shape[1]):
        if st.table_tiles[g, kind] > 0 and (kind != SUITE or no_suite != 0):
            options |= 1 << kind
    n = popcount_nb(options)
    rng = st.rng[g]
    choice = below(rng, 1 + p, n + 1)
    if choice < n:
        kind = kth_bit_nb(options, choice)
        st.decision[g, BUILD] = kind
        if kind == SUITE:
            st.decision[g, SUITE_ROOM] = kth_bit_nb(no_suite, below(rng, 1 + p, popcount_nb(no_suite)))


@rule
def decide_send_home_nb(comp, st, ctl, g, p, r):
    """At the start of the seat's tourist turn: rooms to empty with the SEND_HOME tile, if any."""
    for k in range(MAX_PICKS):
        st.decision[g, SEND_HOME + k] = -1
    if _follow_script_nb(st, ctl, g, r, p, SEND_HOME, GROUP):
        return
    occupied = st.occupied[g, p]
    if st.specials[g, p, SEND_HOME_TILE - SWITCH_TILE] > 0 and occupied != 0:
        if below(st.rng[g], 1 + p, 100) < ctl.params[p, SEND_HOME_PCT]:
            count = min(comp.send_home_removals, popcount_nb(occupied))
            _pick_rooms_nb(st, g, p, occupied, count, SEND_HOME)


@rule
def decide_take_nb(comp, st, ctl, g, p, r):
    """One group, a random subset, placed celebrities first; lovers pair up, others get a random
    free room."""
    st.decision[g, GROUP] = -1
    st.decision[g, N_TAKE] = 0
    if _follow_script_nb(st, ctl, g, r, p, GROUP, HOLIDAY):
        return
    rng = st.rng[g]
    nonempty = 0
    for group in range(comp.max_groups):
        if st.group_left[g, group]:
            nonempty |= 1 << group
    n = popcount_nb(nonempty)
    choice = below(rng, 1 + p, n + 1)
    if choice == n:
        return
    group = kth_bit_nb(nonempty, choice)
    st.decision[g, GROUP] = group
    selected = 0
    left = st.group_left[g, group]
    while left:
        pos = lowest_bit_nb(left)
        left &= left - 1
        if below(rng, 1 + p, 100) < ctl.params[p, TAKE_PCT]:
            selected |= 1 << pos
    free = free_rooms_nb(st, g, p)
    single_lovers = single_lover_rooms_nb(comp, st, g, p)
    placed = 0
    for celebrities_pass in (True, False):
        pending = selected
        while pending:
            pos = lowest_bit_nb(pending)
            pending &= pending - 1
            chip = st.group_chip[g, group, pos]
            if (comp.chip_kind[chip] == CELEBRITY) != celebrities_pass:
                continue
            if comp.chip_kind[chip] == LOVER and single_lovers != 0:
                room = kth_bit_nb(single_lovers, 0)
                single_lovers &= ~(1 << room)
            elif free != 0:
                room = kth_bit_nb(free, below(rng, 1 + p, popcount_nb(free)))
                free &= ~(1 << room)
                if comp.chip_kind[chip] == LOVER:
                    single_lovers |= 1 << room
            else:
                continue
            st.decision[g, TAKE + 2 * placed] = chip
            st.decision[g, TAKE + 2 * placed + 1] = room
            placed += 1
    st.decision[g, N_TAKE] = placed


@rule
def decide_holiday_nb(comp, st, ctl, g, p, r):
    """Staff holiday: how many tourists (rooms) to send home, and which."""
    for k in range(MAX_PICKS):
        st.decision[g, HOLIDAY + k] = -1
    if _follow_script_nb(st, ctl, g, r, p, HOLIDAY, DECISION_LEN):
        return
    occupied = st.occupied[g, p]
    if occupied != 0:
        count = below(st.rng[g], 1 + p, min(comp.holiday_removals, popcount_nb(occupied)) + 1)
        _pick_rooms_nb(st, g, p, occupied, count, HOLIDAY)
