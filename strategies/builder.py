"""Builder: invests in tiles early, while they are plentiful. While tiles are plentiful (the first ``early`` rounds) it values every
tile at ``eager`` times its estimated worth, and picks its price card for this round's money with
that valuation, so it bids high when tiles it wants are on the table; later it values tiles
soberly. Suites, pools and extra rooms then pay for the rest of the game.
"""

from samsim.kernel.contract import decision
from samsim.kernel.decisions import CARD
from samsim.kernel.moves import G, best_card_now_nb, best_tile_nb, buy_nb, typical_profile_nb

PARAMS = {"early": 6, "eager": 1.8}
# early: rounds, compared with the 0-based round number: 0 is never eager, 12 (every round of the
# game) eager all game. eager: multiplies a tile's estimated worth against its bid, as greedy's
# tile_scale: 0 buys no tile early; at 10 nearly every tile beats even the dearest bid (20).
LIMITS = {"early": (0, 12), "eager": (0, 10)}


@decision
def tile_scale(view, params):
    return params[1] if view.round_no[G] < params[0] else 1.0


@decision
def card(comp, view, params, rng, out):
    scale = tile_scale(view, params)
    out[CARD] = best_card_now_nb(comp, view, typical_profile_nb(comp, view), scale, out)


@decision
def build(comp, view, params, rng, out):
    bid = comp.card_bid[view.played[G, view.me]]
    kind, _ = best_tile_nb(comp, view, view.me, bid, tile_scale(view, params))
    if kind >= 0:
        buy_nb(comp, view, view.me, kind, out)
