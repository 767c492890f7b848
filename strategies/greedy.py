"""Greedy: maximises this round's money. For each card in hand it reckons the income of the
tourists it would get (rivals assumed to play the median card of their hands and take, in price
order, the largest group that fits) plus the best tile's value above the bid, and plays the best;
it places tourists for the most pay and buys any tile worth more than its bid. No thought for later
rounds: it spends its good cards early.
"""

from samsim.kernel.contract import decision
from samsim.kernel.decisions import CARD
from samsim.kernel.moves import best_card_now_nb, typical_profile_nb

PARAMS = {"tile_scale": 1.0}
# tile_scale multiplies a tile's estimated worth against its bid: 0 buys no tile; at 10 a special
# tile (estimated at 4 coins) and a room bought before the last rounds beat even the dearest bid
# (20), so a larger scale only adds last-round purchases.
LIMITS = {"tile_scale": (0, 10)}


@decision
def card(comp, view, params, rng, out):
    out[CARD] = best_card_now_nb(comp, view, typical_profile_nb(comp, view), params[0], out)
