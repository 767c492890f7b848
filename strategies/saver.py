"""Saver: declines small groups to keep its price cards for the big rounds. A price card is spent
only when it buys a tile or hosts a guest, so the saver keeps its cards for the big rounds: the double rounds (6 and 12) and the round right after each (the
doubled groups' rooms empty then). Outside them it declines groups smaller than ``min_group``
and buys no tiles; in them it plays its dearest card and takes all it can.
"""

from samsim.kernel.contract import decision
from samsim.kernel.decisions import CARD
from samsim.kernel.moves import (
    G,
    best_take_nb,
    dearest_in_nb,
    default_build,
    largest_group_nb,
    typical_card_nb,
)

PARAMS = {"min_group": 3}
# min_group: tourists in the largest group on offer, 1 to 8 outside a double round (the 6-player
# cards): at 1 it takes every group, from 9 none outside the big rounds; 16 (a doubled group of 8)
# is the most any round shows.
LIMITS = {"min_group": (1, 16)}


@decision
def big_round(comp, view):
    r = view.round_no[G]
    return comp.round_factor[r] > 1 or (r > 0 and comp.round_factor[r - 1] > 1)


@decision
def card(comp, view, params, rng, out):
    hand = view.hand[G, view.me]
    if big_round(comp, view):
        out[CARD] = dearest_in_nb(comp, hand)
    else:
        out[CARD] = typical_card_nb(comp, hand)
    if out[CARD] < 0:
        out[CARD] = comp.holiday_card


@decision
def build(comp, view, params, rng, out):
    if big_round(comp, view):
        default_build(comp, view, params, rng, out)


@decision
def take(comp, view, params, rng, out):
    if big_round(comp, view) or largest_group_nb(view) >= params[0]:
        price = comp.card_price[view.played[G, view.me]]
        best_take_nb(comp, view, view.me, price, 1 << 20, out)
