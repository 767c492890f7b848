"""Greedy: maximises this round's money. For each card in hand it reckons the income of the
tourists it would get (rivals assumed to play the median card of their hands and take, in price
order, the largest group that fits) plus the best tile's value above the bid, and plays the best;
it places tourists for the most pay and buys any tile worth more than its bid. No thought for later
rounds: it spends its good cards early. With a temperature it plays a card drawn at random among
those worth within that many coins of the best, so that greedy players at one table need not all
play the same card (as people would not).
"""

from samsim.kernel.bits import kth_bit_nb, lowest_bit_nb, popcount_nb
from samsim.kernel.contract import decision
from samsim.kernel.decisions import CARD
from samsim.kernel.moves import (
    G,
    best_planned_card_nb,
    plan_round_nb,
    planned_value_nb,
    typical_profile_nb,
    with_card_nb,
)
from samsim.kernel.rng import below

PARAMS = {"tile_scale": 1.0, "temperature": 0.0}
# tile_scale multiplies a tile's estimated worth against its bid: 0 buys no tile; at 10 a special
# tile (estimated at 4 coins) and a room bought before the last rounds beat even the dearest bid
# (20), so a larger scale only adds last-round purchases. temperature: coins below the best card's
# worth a card may be and still be drawn; 0 plays the best and draws nothing from the seat's
# stream (the games of temperature 0 are those of greedy before it had one); at 200 any card of
# the hand may be drawn (a round never brought a seat 180 coins: see the holiday strategy).
LIMITS = {"tile_scale": (0, 10), "temperature": (0, 200)}


@decision(inline=True)
def _near_best(comp, view, profile, tile_scale, plan, floor, rng, out):
    """A card drawn uniformly among those worth at least ``floor`` (the best's worth minus the
    temperature)."""
    hand = view.hand[G, view.me] & ~(1 << comp.holiday_card)
    near, cards = 0, hand
    while cards:
        c = lowest_bit_nb(cards)
        cards &= cards - 1
        value, _ = planned_value_nb(comp, view, view.me, with_card_nb(profile, view.me, c),
                                    tile_scale, plan, out)
        if value >= floor:
            near |= 1 << c
    return kth_bit_nb(near, below(rng, G, popcount_nb(near)))


@decision
def card(comp, view, params, rng, out):
    profile = typical_profile_nb(comp, view)
    plan = plan_round_nb(comp, view, view.me, out)
    best, value = best_planned_card_nb(comp, view, profile, params[0], plan, out)
    if params[1] > 0 and best != comp.holiday_card:
        best = _near_best(comp, view, profile, params[0], plan, value - params[1], rng, out)
    out[CARD] = best
