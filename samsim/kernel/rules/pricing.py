"""Step 3: choosing, revealing and switching price cards; step 6's discards; RECALL."""

from samsim.components import RECALL as RECALL_TILE
from samsim.components import SWITCH as SWITCH_TILE
from samsim.kernel.bits import popcount_nb
from samsim.kernel.decisions import (
    CARD,
    E_CARD,
    E_RECALL_CARD,
    E_RECALL_MANY,
    E_RECALL_TILE,
    E_SWITCH_CARD,
    E_SWITCH_TILE,
    MAX_PICKS,
    RECALL,
    SWITCH,
)
from samsim.kernel.events import DISCARD, KEEP, NO, PLAY, log_nb
from samsim.kernel.events import RECALL as RECALL_EVENT
from samsim.kernel.events import SWITCH as SWITCH_EVENT
from samsim.kernel.jit import rule
from samsim.kernel.rules.common import fail_nb


@rule
def apply_card_nb(comp, st, g, p, r):
    """RECALL (if chosen) then put the chosen card face down; it leaves the hand."""
    dec = st.decision[g]
    n_cards = comp.card_bid.shape[0]
    recalled = 0
    while recalled < MAX_PICKS and dec[RECALL + recalled] >= 0:
        recalled += 1
    if recalled:
        if st.specials[g, p, RECALL_TILE - SWITCH_TILE] <= 0:
            return fail_nb(st, g, E_RECALL_TILE, r + 1, p)
        if recalled != min(comp.recall_cards, popcount_nb(st.discard[g, p])):
            return fail_nb(st, g, E_RECALL_MANY, r + 1, p)
        st.specials[g, p, RECALL_TILE - SWITCH_TILE] -= 1
        for k in range(recalled):
            card = dec[RECALL + k]
            if card >= n_cards or ((st.discard[g, p] >> card) & 1) == 0:
                return fail_nb(st, g, E_RECALL_CARD, r + 1, p)
            st.discard[g, p] &= ~(1 << card)
            st.hand[g, p] |= 1 << card
            log_nb(st.events, st.n_events, g, r + 1, RECALL_EVENT, p, card, NO, NO, NO)
    card = dec[CARD]
    if card < 0 or card >= n_cards or ((st.hand[g, p] >> card) & 1) == 0:
        return fail_nb(st, g, E_CARD, r + 1, p)
    st.hand[g, p] &= ~(1 << card)
    st.played[g, p] = card
    return True


@rule
def reveal_cards_nb(st, g, r):
    for p in range(st.money.shape[1]):
        log_nb(st.events, st.n_events, g, r + 1, PLAY, p, st.played[g, p], NO, NO, NO)


@rule
def apply_switch_nb(comp, st, g, p, r):
    """SWITCH tile: the played card goes back to hand, another card from hand is played instead."""
    new = st.decision[g, SWITCH]
    if new < 0:
        return True
    if st.specials[g, p, 0] <= 0:
        return fail_nb(st, g, E_SWITCH_TILE, r + 1, p)
    if new >= comp.card_bid.shape[0] or ((st.hand[g, p] >> new) & 1) == 0:
        return fail_nb(st, g, E_SWITCH_CARD, r + 1, p)
    st.specials[g, p, 0] -= 1
    old = st.played[g, p]
    st.hand[g, p] = (st.hand[g, p] | (1 << old)) & ~(1 << new)
    st.played[g, p] = new
    log_nb(st.events, st.n_events, g, r + 1, SWITCH_EVENT, p, old, new, NO, NO)
    return True


@rule
def discard_cards_nb(comp, st, g, r):
    """A normal card that bought a tile or hosted a tourist is spent; any other card (the grey Staff
    holiday card always) returns to hand."""
    for p in range(st.money.shape[1]):
        card = st.played[g, p]
        if card != comp.holiday_card and (st.bought[g, p] > 0 or st.hosted[g, p] > 0):
            st.discard[g, p] |= 1 << card
            log_nb(st.events, st.n_events, g, r + 1, DISCARD, p, card, NO, NO, NO)
        else:
            st.hand[g, p] |= 1 << card
            log_nb(st.events, st.n_events, g, r + 1, KEEP, p, card, NO, NO, NO)
        st.played[g, p] = -1
