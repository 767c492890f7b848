"""One round of Hotel Samoa in the rulebook's order (docs/rules.md, ruling 1), and a whole game.

This is where rules and decisions meet: each phase asks the seat's policy (``samsim.kernel.dispatch``) for a
decision at the moment the rules offer it, then applies it with the phase's rule function.
"""

import numpy as np

from samsim.components import SEND_HOME as SEND_HOME_TILE
from samsim.components import SWITCH as SWITCH_TILE
from samsim.kernel.bits import popcount_nb
from samsim.kernel.decisions import (
    BUILD,
    E_MONEY,
    E_NO_TURN,
    E_NOT_HOLIDAY,
    E_NOT_OFFERED,
    E_SEND_COUNT,
    E_SEND_TILE,
    GROUP,
    HOLIDAY,
    MAX_PICKS,
    SEND_HOME,
    SWITCH,
)
from samsim.kernel.dispatch import (
    decide_build_nb,
    decide_card_nb,
    decide_holiday_nb,
    decide_send_home_nb,
    decide_switch_nb,
    decide_take_nb,
    scripted_nb,
)
from samsim.kernel.events import BUILD_PASS, NO, PASS, TIEBREAK, TOURIST_PASS, log_nb
from samsim.kernel.events import HOLIDAY as HOLIDAY_EVENT
from samsim.kernel.events import SEND_HOME as SEND_HOME_EVENT
from samsim.kernel.jit import rule
from samsim.kernel.rules.arrivals import arrivals_nb, leftovers_nb
from samsim.kernel.rules.build import (
    apply_build_nb,
    next_builder_nb,
    reveal_tiles_nb,
    tiles_on_table_nb,
)
from samsim.kernel.rules.common import fail_nb, price_tie_rank_nb
from samsim.kernel.rules.departures import departures_nb
from samsim.kernel.rules.hotel import free_rooms_nb
from samsim.kernel.rules.pricing import (
    apply_card_nb,
    apply_switch_nb,
    discard_cards_nb,
    reveal_cards_nb,
)
from samsim.kernel.rules.scoring import final_scores_nb
from samsim.kernel.rules.tourists import (
    apply_removals_nb,
    apply_take_nb,
    next_host_nb,
    tourists_on_offer_nb,
)
from samsim.kernel.state import (
    REC_ARRIVED,
    REC_CARD,
    REC_FREE,
    REC_HOSTED,
    REC_INCOME,
    REC_MONEY,
    REC_ROOMS,
    REC_TILE,
    REC_TURNED_AWAY,
    TIE_BUILD_LOST,
    TIE_BUILD_WON,
    TIE_PRICE_LOST,
    TIE_PRICE_WON,
)

ASKED_BUILD = 1
ASKED_TURN = 2


@rule
def _build_phase_nb(comp, st, ctl, g, r):
    done = np.int64(0)  # np.int64: a literal 0 would compile the callee once more
    while True:
        p = next_builder_nb(comp, st, g, done)
        if p < 0 or tiles_on_table_nb(st, g) == 0:
            return True
        done |= 1 << p
        if st.money[g, p] < comp.card_bid[st.played[g, p]]:
            if scripted_nb(ctl, g, r, p) and ctl.script[g, r, p, BUILD] >= 0:
                return fail_nb(st, g, E_MONEY, r + 1, p)
            continue
        st.asked[g, p] |= ASKED_BUILD
        decide_build_nb(comp, st, ctl, g, p, r)
        if not apply_build_nb(comp, st, g, p, r):
            return False
        if st.record.shape[0] > 0:
            st.record[g, p, r, REC_TILE] = st.decision[g, BUILD]
        if st.decision[g, BUILD] < 0:
            log_nb(st.events, st.n_events, g, r + 1, PASS, p, BUILD_PASS, NO, NO, NO)


@rule
def _tourist_phase_nb(comp, st, ctl, g, r):
    done = np.int64(0)  # np.int64: a literal 0 would compile the callee once more
    while tourists_on_offer_nb(st, g):
        p = next_host_nb(comp, st, g, done)
        if p < 0:
            return True
        done |= 1 << p
        st.asked[g, p] |= ASKED_TURN
        decide_send_home_nb(comp, st, ctl, g, p, r)
        if st.decision[g, SEND_HOME] >= 0:
            if st.specials[g, p, SEND_HOME_TILE - SWITCH_TILE] <= 0:
                return fail_nb(st, g, E_SEND_TILE, r + 1, p)
            asked = 0
            while asked < MAX_PICKS and st.decision[g, SEND_HOME + asked] >= 0:
                asked += 1
            if asked != min(comp.send_home_removals, popcount_nb(st.occupied[g, p])):
                return fail_nb(st, g, E_SEND_COUNT, r + 1, p)
            st.specials[g, p, SEND_HOME_TILE - SWITCH_TILE] -= 1
            if apply_removals_nb(comp, st, g, p, r, SEND_HOME, comp.send_home_removals,
                                 SEND_HOME_EVENT) < 0:
                return False
        hosted_before = st.hosted[g, p]
        decide_take_nb(comp, st, ctl, g, p, r)
        if not apply_take_nb(comp, st, g, p, r):
            return False
        if st.hosted[g, p] == hosted_before:
            log_nb(st.events, st.n_events, g, r + 1, PASS, p, TOURIST_PASS, st.decision[g, GROUP], NO, NO)
    return True


@rule
def _holidays_nb(comp, st, ctl, g, r):
    for p in range(st.money.shape[1]):
        on_holiday = st.played[g, p] == comp.holiday_card
        if on_holiday:
            decide_holiday_nb(comp, st, ctl, g, p, r)
            if apply_removals_nb(comp, st, g, p, r, HOLIDAY, comp.holiday_removals, HOLIDAY_EVENT) < 0:
                return False
        elif scripted_nb(ctl, g, r, p) and ctl.script[g, r, p, HOLIDAY] >= 0:
            return fail_nb(st, g, E_NOT_HOLIDAY, r + 1, p)
    return True


@rule
def _unused_script_nb(ctl, st, g, r):
    """A scripted build or tourist turn the game never asked for is an error, not a silent no-op."""
    for p in range(st.money.shape[1]):
        if not scripted_nb(ctl, g, r, p):
            continue
        if ctl.script[g, r, p, BUILD] >= 0 and not st.asked[g, p] & ASKED_BUILD:
            return fail_nb(st, g, E_NOT_OFFERED, r + 1, p)
        wants_turn = ctl.script[g, r, p, GROUP] >= 0 or ctl.script[g, r, p, SEND_HOME] >= 0
        if wants_turn and not st.asked[g, p] & ASKED_TURN:
            return fail_nb(st, g, E_NO_TURN, r + 1, p)
    return True


@rule
def _on_offer_nb(st, g):
    total = 0
    for group in range(st.group_left.shape[1]):
        total += popcount_nb(st.group_left[g, group])
    return total


@rule
def _record_market_nb(comp, st, g, r, field, value):
    for p in range(st.money.shape[1]):
        st.record[g, p, r, field] = value


@rule
def _record_arrivals_nb(comp, st, g, r):
    """The market as the tourists arrive: how many, and how many rooms are free for them."""
    free = 0
    for p in range(st.money.shape[1]):
        free += popcount_nb(free_rooms_nb(st, g, p))
    _record_market_nb(comp, st, g, r, REC_ARRIVED, _on_offer_nb(st, g))
    _record_market_nb(comp, st, g, r, REC_FREE, free)


@rule
def _record_round_nb(comp, st, g, r):
    """The seats' end-of-round record (state.RECORD_FIELDS), taken before the cards are discarded;
    the tile was noted when bought, the arrivals when they came."""
    for p in range(st.money.shape[1]):
        st.record[g, p, r, REC_MONEY] = st.money[g, p]
        st.record[g, p, r, REC_ROOMS] = popcount_nb(st.occupied[g, p])
        st.record[g, p, r, REC_CARD] = st.played[g, p]
        st.record[g, p, r, REC_HOSTED] = st.hosted[g, p]
        st.record[g, p, r, REC_INCOME] = st.income[g, p]


@rule
def _count_ties_nb(comp, st, g, t):
    """The ties the tie-breaker card settles this round (State.ties): an equal bid with a rival
    decides who is offered a tile first (clockwise from the card), an equal room price who is
    offered tourists first (counter-clockwise, or as the data's price_ties says). Staff holiday seats are in neither."""
    n = st.money.shape[1]
    for p in range(n):
        a = st.played[g, p]
        if a == comp.holiday_card:
            continue
        for q in range(n):
            b = st.played[g, q]
            if q == p or b == comp.holiday_card:
                continue
            if comp.card_bid[a] == comp.card_bid[b]:
                won = (p - t) % n < (q - t) % n
                st.ties[g, p, TIE_BUILD_WON if won else TIE_BUILD_LOST] += 1
            if comp.card_price[a] == comp.card_price[b]:
                won = price_tie_rank_nb(comp, n, t, p) < price_tie_rank_nb(comp, n, t, q)
                st.ties[g, p, TIE_PRICE_WON if won else TIE_PRICE_LOST] += 1


@rule
def play_round_nb(comp, st, ctl, g, r):
    """Play round r (0-based) of game g; False if a scripted decision broke a rule."""
    n = st.money.shape[1]
    reveal_tiles_nb(comp, st, g, r)
    departures_nb(comp, st, g, r)
    if not arrivals_nb(comp, st, ctl, g, r):
        return False
    if st.record.shape[0] > 0:
        _record_arrivals_nb(comp, st, g, r)
    for p in range(n):  # every seat chooses before any card is put down (no peeking)
        st.asked[g, p] = 0
        st.bought[g, p] = 0
        st.hosted[g, p] = 0
        if st.record.shape[0] > 0:
            st.record[g, p, r, REC_TILE] = -1
        decide_card_nb(comp, st, ctl, g, p, r)
        for k in range(SWITCH):
            st.chosen[g, p, k] = st.decision[g, k]
        st.decision[g, SWITCH:] = -1  # scratch a strategy left there must not reach the next seat
    for p in range(n):
        for k in range(SWITCH):
            st.decision[g, k] = st.chosen[g, p, k]
        if not apply_card_nb(comp, st, g, p, r):
            return False
    reveal_cards_nb(st, g, r)
    t = st.tiebreak[g]
    for k in range(n):
        p = (t + k) % n
        decide_switch_nb(comp, st, ctl, g, p, r)
        if not apply_switch_nb(comp, st, g, p, r):
            return False
    _count_ties_nb(comp, st, g, t)
    if not _build_phase_nb(comp, st, ctl, g, r):
        return False
    if not _tourist_phase_nb(comp, st, ctl, g, r):
        return False
    if not _holidays_nb(comp, st, ctl, g, r):
        return False
    if st.record.shape[0] > 0:
        _record_market_nb(comp, st, g, r, REC_TURNED_AWAY, _on_offer_nb(st, g))
    leftovers_nb(comp, st, g, r)
    if st.record.shape[0] > 0:
        _record_round_nb(comp, st, g, r)
    discard_cards_nb(comp, st, g, r)
    if not _unused_script_nb(ctl, st, g, r):
        return False
    st.tiebreak[g] = (t + 1) % n
    log_nb(st.events, st.n_events, g, r + 1, TIEBREAK, NO, st.tiebreak[g], NO, NO, NO)
    st.round_no[g] = r + 1
    return True


@rule(inline="never")
def play_rounds_nb(comp, st, ctl, g, first, last):
    """Rounds first..last-1 of game g, then the final scoring if the last round was played."""
    for r in range(first, last):
        if not play_round_nb(comp, st, ctl, g, r):
            return False
    if last == comp.rounds:
        final_scores_nb(comp, st, g)
    return True
