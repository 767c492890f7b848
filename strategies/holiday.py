"""Holiday: times the Staff holiday card to clear rooms before big arrivals. The card always
comes back to hand. When its hotel has at most ``full`` free rooms and the next round is a double round, or
this round would bring it less than ``worth`` coins, it sits the round out and sends home the
guests who would block their rooms longest; otherwise it plays like greedy.
"""

from samsim.kernel.contract import decision
from samsim.kernel.decisions import CARD
from samsim.kernel.moves import best_planned_card_nb, holiday_pays_nb, plan_round_nb, typical_profile_nb

PARAMS = {"full": 1, "worth": 8}
# full: free rooms of its own hotel, which has at most 12 (6 base rooms and 6 extra-room tiles): at
# 12 any hotel counts as full. worth: coins this round would bring: at 0 a poor round never sends
# it on holiday; no seat earned more than 180 coins in one round (18,000 measured games of
# greedy, holiday and lookahead at 3 and 6 players), so at 200 every round counts as poor.
LIMITS = {"full": (0, 12), "worth": (0, 200)}


@decision
def card(comp, view, params, rng, out):
    p = view.me
    profile = typical_profile_nb(comp, view)
    best, value = best_planned_card_nb(comp, view, profile, 1.0, plan_round_nb(comp, view, p, out),
                                       out)
    if best == comp.holiday_card:  # no normal card left: the round brings nothing
        value = 0.0
    out[CARD] = comp.holiday_card if holiday_pays_nb(comp, view, p, value, params[0], params[1]) else best
