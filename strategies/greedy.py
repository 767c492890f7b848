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
from samsim.kernel.moves import G, best_card_now_nb, round_value_nb, typical_profile_nb, with_card_nb
from samsim.kernel.rng import below

PARAMS = {"tile_scale": 1.0, "temperature": 0.0}
# tile_scale multiplies a tile's estimated worth against its bid: 0 buys no tile; at 10 a special
# tile (estimated at 4 coins) and a room bought before the last rounds beat even the dearest bid
# (20), so a larger scale only adds last-round purchases. temperature: coins below the best card's
# worth a card may be and still be drawn; 0 plays the best and draws nothing from the seat's
# stream (the games of temperature 0 are those of greedy before it had one); at 200 any card of
# the hand may be drawn (a round never brought a seat 180 coins: see the holiday strategy).
LIMITS = {"tile_scale": (0, 10), "temperature": (0, 200)}


@decision
def _worth(comp, view, profile, card, tile_scale, out):
    value, _ = round_value_nb(comp, view, view.me, with_card_nb(profile, view.me, card), tile_scale,
                              out)
    return value


@decision
def _near_best(comp, view, profile, tile_scale, temperature, rng, out, best):
    """A card drawn uniformly among those worth at least the best's worth minus temperature."""
    floor = _worth(comp, view, profile, best, tile_scale, out) - temperature
    hand = view.hand[G, view.me] & ~(1 << comp.holiday_card)
    near, cards = 0, hand
    while cards:
        c = lowest_bit_nb(cards)
        cards &= cards - 1
        if _worth(comp, view, profile, c, tile_scale, out) >= floor:
            near |= 1 << c
    return kth_bit_nb(near, below(rng, G, popcount_nb(near)))


@decision
def card(comp, view, params, rng, out):
    profile = typical_profile_nb(comp, view)
    best = best_card_now_nb(comp, view, profile, params[0], out)
    if params[1] > 0 and best != comp.holiday_card:
        best = _near_best(comp, view, profile, params[0], params[1], rng, out, best)
    out[CARD] = best
