"""Undercut: plays just below the rivals' expected cards when tourists are scarce, high when rooms
are scarce. It reads the rivals' remaining hands. When tourists are scarce (fewer on offer than
``scarce`` times the free rooms at the table) it plays just below the cheapest card it expects from
a rival (each rival's median remaining card, minus ``margin``), to be offered tourists first; when
rooms are scarce everyone gets guests anyway, so it plays high and earns more per guest.
"""

from samsim.kernel.bits import lowest_bit_nb, popcount_nb
from samsim.kernel.contract import decision
from samsim.kernel.decisions import CARD
from samsim.kernel.moves import (
    G,
    cheapest_in_nb,
    dearest_in_nb,
    tourists_on_offer_nb,
    typical_card_nb,
)
from samsim.kernel.rules.hotel import free_rooms_nb

PARAMS = {"margin": 1, "scarce": 1.0}
# margin: coins below a rival's expected room price. Negative would mean playing above it, not
# undercutting; from the dearest price on (12; 15 in the steepest sensitivity variant) no card is
# low enough and it plays its cheapest, so 20 covers every distinct margin. scarce: tourists on
# offer per free room at the table: at 0 it always plays high; a round offers at most 18 tourists
# (the doubled 6-player groups), so from 20 it plays high only when every room is taken.
LIMITS = {"margin": (0, 20), "scarce": (0, 20)}


@decision
def card(comp, view, params, rng, out):
    p = view.me
    hand = view.hand[G, p]
    rooms = 0
    target = 1 << 30
    for q in range(view.money.shape[1]):
        rooms += popcount_nb(free_rooms_nb(view, G, q))
        if q != p:
            rival = typical_card_nb(comp, view.hand[G, q])
            if rival != comp.holiday_card:  # a rival left with the Staff holiday hosts nobody
                target = min(target, comp.card_price[rival] - params[0])
    if tourists_on_offer_nb(view) >= params[1] * rooms:
        pick = dearest_in_nb(comp, hand)
    else:
        pick, best_price = -1, -1
        cards = hand & ~(1 << comp.holiday_card)
        while cards:
            c = lowest_bit_nb(cards)
            cards &= cards - 1
            if best_price < comp.card_price[c] <= target:
                pick, best_price = c, comp.card_price[c]
        if pick < 0:
            pick = cheapest_in_nb(comp, hand)
    out[CARD] = pick if pick >= 0 else comp.holiday_card
