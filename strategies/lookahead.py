"""Lookahead: plays the card with the best average outcome over sampled guesses of the rivals'
cards. It plays each candidate price card against ``samples`` guesses of the rivals' cards,
each drawn uniformly from the rival's remaining hand, and plays out the rest of the round for each
guess with fast default play (tiles in bid order, tourists in price order, each rival taking the
largest group that fits), then plays the card with the best average: this round's money, minus
what spending the card costs later rounds (``keep``). Every candidate meets the same guesses
(common random numbers), so their comparison is not blurred by the sampling; they are drawn once
and kept in the seat's notebook (``samples`` up to its length). After the reveal it
uses a SWITCH tile when another card is worth ``switch_gain`` coins more against the cards on the
table. It sits a round out with the Staff holiday card when its hotel is full and the round is
worth little or the next is doubled (``full``, ``worth``: as the holiday strategy). The slowest
strategy of the library, and the strongest but one (``tuned``, found by simulation, beats it).
"""

from samsim.kernel.bits import kth_bit_nb, lowest_bit_nb, popcount_nb
from samsim.kernel.contract import decision
from samsim.kernel.decisions import CARD, SWITCH
from samsim.kernel.moves import (
    G,
    best_switch_nb,
    card_cost_nb,
    holiday_pays_nb,
    plan_round_nb,
    planned_value_nb,
    with_card_nb,
)
from samsim.kernel.rng import below

PARAMS = {"samples": 12, "keep": 0.5, "switch_gain": 4, "full": 1, "worth": 8}
# samples: guesses per candidate card, at least one; the card choice's time grows with it, and
# 1000 takes about 80 times the default's. keep: what spending a card costs later rounds is up to
# 2 x keep x its price: at 10 up to 240 coins, more than a round ever brought a seat (180,
# measured: see holiday), so beyond it the cost swamps the round's money. switch_gain, full,
# worth: coins and rooms as in the holiday strategy, so a switch_gain of 200 means never switch.
LIMITS = {"samples": (1, 1000), "keep": (0, 10), "switch_gain": (0, 200), "full": (0, 12),
          "worth": (0, 200)}


@decision(inline=True)
def _sampled_profile(comp, view, rng):
    profile = 0
    for q in range(view.money.shape[1]):
        if q != view.me:
            hand = view.hand[G, q]
            profile = with_card_nb(profile, q, kth_bit_nb(hand, below(rng, G, popcount_nb(hand))))
    return profile


@decision(inline=True)
def _worth(comp, view, params, profile, card, plan, out):
    value, spent = planned_value_nb(comp, view, view.me, with_card_nb(profile, view.me, card), 1.0,
                                    plan, out)
    if spent > 0:
        value -= card_cost_nb(comp, view, view.me, card, params[1])
    return value


@decision
def card(comp, view, params, rng, out):
    p = view.me
    samples = int(params[0])
    start = rng[G]
    best, best_value = comp.holiday_card, -1e18
    plan = plan_round_nb(comp, view, p, out)
    kept = samples <= view.memo.shape[0]  # the guesses, drawn once (the notebook is scratch here)
    drawn = False
    cards = view.hand[G, p] & ~(1 << comp.holiday_card)
    while cards:
        c = lowest_bit_nb(cards)
        cards &= cards - 1
        if not drawn:
            rng[G] = start  # the same guesses for every candidate
        total = 0.0
        for s in range(samples):
            if drawn:
                profile = view.memo[s]
            else:
                profile = _sampled_profile(comp, view, rng)
                if kept:
                    view.memo[s] = profile
            total += _worth(comp, view, params, profile, c, plan, out)
        drawn = kept
        if total > best_value:
            best, best_value = c, total
    if holiday_pays_nb(comp, view, p, best_value / samples, params[3], params[4]):
        best = comp.holiday_card
    out[CARD] = best


@decision
def switch(comp, view, params, rng, out):
    out[SWITCH] = best_switch_nb(comp, view, params[2], params[1], out)
