"""Planted: a toy with a known best parameter, for the tuning tests. It plays greedy's card, except
that with probability sqrt((|a - 7| + |b - 3|) / 14) it plays a card drawn at random from
its hand: the further its parameters are from a = 7, b = 3, the more often it throws a round away, so
its win rate against any sensible field peaks there and nowhere else."""

from samsim.kernel.bits import kth_bit_nb, popcount_nb
from samsim.kernel.contract import decision
from samsim.kernel.decisions import CARD
from samsim.kernel.moves import G, best_card_now_nb, typical_profile_nb
from samsim.kernel.rng import below

PARAMS = {"a": 2.0, "b": 8}
LIMITS = {"a": (0, 10), "b": (0, 10)}  # b takes whole numbers (its default is written so)


@decision
def card(comp, view, params, rng, out):
    hand = view.hand[G, view.me]
    # 0..1 over the ranges, and steep near the optimum, so that a small budget can find it
    miss = ((abs(params[0] - 7.0) + abs(params[1] - 3.0)) / 14.0) ** 0.5
    if below(rng, G, 1000) < int(miss * 1000):
        out[CARD] = kth_bit_nb(hand, below(rng, G, popcount_nb(hand)))
    else:
        out[CARD] = best_card_now_nb(comp, view, typical_profile_nb(comp, view), 1.0, out)
