"""Fixed: plays its price cards in one fixed order and takes every tourist it can. Cheapest room
price first (``dearest_first=1`` reverses it), never the Staff holiday, tourists placed for the
most pay.
A predictable, thoughtless opponent: the floor a pricing idea must clear besides random.
"""

from samsim.kernel.contract import decision
from samsim.kernel.decisions import CARD
from samsim.kernel.moves import G, cheapest_in_nb, dearest_in_nb

PARAMS = {"dearest_first": 0}
LIMITS = {"dearest_first": (0, 1)}  # a switch: any value above 0 plays dearest first


@decision
def card(comp, view, params, rng, out):
    hand = view.hand[G, view.me]
    pick = dearest_in_nb(comp, hand) if params[0] > 0 else cheapest_in_nb(comp, hand)
    out[CARD] = pick if pick >= 0 else comp.holiday_card
