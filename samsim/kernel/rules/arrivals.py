"""Step 2b: the tourist card and the groups of new tourists (step 1, the tile reveal, lives in
build.py)."""

from samsim.kernel.bits import lowest_bit_nb
from samsim.kernel.decisions import E_PILE
from samsim.kernel.events import ARRIVE, LEFTOVER, NO, TOURIST_CARD, log_nb
from samsim.kernel.jit import rule
from samsim.kernel.rng import CHIPS_STREAM, shuffle, stream_key
from samsim.kernel.rules.common import deal_of_nb, fail_nb
from samsim.kernel.rules.hotel import return_chip_nb
from samsim.kernel.state import NO_OVERRIDE


@rule
def _place_in_group_nb(comp, st, g, r, group, pos, chip):
    per = comp.chips_per_nation
    bit = 1 << (chip % per)
    if st.pile[g, chip // per] & bit == 0:
        return fail_nb(st, g, E_PILE, r + 1, NO)
    st.pile[g, chip // per] &= ~bit
    st.group_chip[g, group, pos] = chip
    st.group_left[g, group] |= 1 << pos
    log_nb(st.events, st.n_events, g, r + 1, ARRIVE, NO, group, chip, NO, NO)
    return True


@rule
def arrivals_nb(comp, st, ctl, g, r):
    """Draw the round's groups from the nation's pile.

    The pile is always complete when its plane lands (its tourists just left, leftovers returned), so
    the draw is a partial shuffle of all the nation's chips keyed by (seed, game, round): the deal
    does not depend on play.
    """
    if ctl.arrivals.shape[0] > 0 and ctl.arrivals[g, r, 0, 0] != NO_OVERRIDE:
        for group in range(comp.max_groups):
            for pos in range(comp.chips_per_nation):
                chip = ctl.arrivals[g, r, group, pos]
                if chip >= 0 and not _place_in_group_nb(comp, st, g, r, group, pos, chip):
                    return False
        return True
    n_players = st.money.shape[1]
    card = st.card_order[g, r]
    log_nb(st.events, st.n_events, g, r + 1, TOURIST_CARD, NO, card, NO, NO, NO)
    factor = comp.round_factor[r]
    total = 0
    for group in range(comp.max_groups):
        total += comp.card_groups[card, n_players, group] * factor
    per = comp.chips_per_nation
    draw = st.draw[g]
    for k in range(per):
        draw[k] = k
    st.rng[g, 0] = stream_key(ctl.seed, deal_of_nb(ctl, g), CHIPS_STREAM + r)
    shuffle(st.rng[g], 0, draw, per, total)
    nation = st.flags[g, r]
    i = 0
    for group in range(comp.max_groups):
        for pos in range(comp.card_groups[card, n_players, group] * factor):
            if not _place_in_group_nb(comp, st, g, r, group, pos, nation * per + draw[i]):
                return False
            i += 1
    return True


@rule
def leftovers_nb(comp, st, g, r):
    """Tourists nobody took go back to their pile."""
    for group in range(comp.max_groups):
        left = st.group_left[g, group]
        while left:
            pos = lowest_bit_nb(left)
            left &= left - 1
            chip = st.group_chip[g, group, pos]
            return_chip_nb(comp, st, g, chip)
            st.group_chip[g, group, pos] = -1
            log_nb(st.events, st.n_events, g, r + 1, LEFTOVER, NO, chip, NO, NO, NO)
        st.group_left[g, group] = 0
