"""Weighted: scores each card by a weighted sum of features, to be tuned by simulation. Each card
in hand is scored by a weighted sum of features: this round's expected money with it
(``w_money``), its room price (``w_price``) and bid (``w_bid``), its price in a double round
(``w_double``), its price scaled by how scarce tourists are (``w_scarce``: tourists on offer over
free rooms at the table), its price scaled by the share of the game still to come (``w_future``:
keeping good cards), the rivals' free rooms (``w_rivals``), what spending the card costs later
rounds when cards are scarcer than rounds (``w_keep``: ``card_cost_nb``, counted only when the
card would be spent), and how many rivals would come before it if each played a card drawn from
its hand (``w_ahead``; ``w_risk``: the same times this round's money, the money at risk of being
undercut). The Staff holiday scores ``w_holiday`` plus ``w_full`` times the share of its own
rooms taken plus ``w_rest`` if the next round is doubled. The highest score is played; with
``w_money``, ``w_risk`` and ``w_keep`` at 0 the round's money is never worked out, which makes it
several times faster. After the reveal it uses a SWITCH tile when another card would bring
``switch_gain`` coins more against the cards on the table (200: never). Defaults make it a
cautious greedy.
"""

from samsim.kernel.bits import lowest_bit_nb, popcount_nb
from samsim.kernel.contract import decision
from samsim.kernel.decisions import CARD, SWITCH
from samsim.kernel.moves import (
    G,
    best_switch_nb,
    card_cost_nb,
    plan_round_nb,
    planned_value_nb,
    rivals_ahead_nb,
    rounds_left_nb,
    tourists_on_offer_nb,
    typical_profile_nb,
    with_card_nb,
)
from samsim.kernel.rules.hotel import free_rooms_nb

PARAMS = {"w_money": 1.0, "w_price": 0.0, "w_bid": 0.0, "w_double": 0.5, "w_scarce": 0.0,
          "w_future": -0.6, "w_rivals": 0.0, "w_holiday": -5.0, "w_full": 0.0, "w_keep": 0.0,
          "switch_gain": 200, "w_ahead": 0.0, "w_risk": 0.0, "w_rest": 0.0}
# Only the order of the scores decides, and scaling every weight by one positive factor keeps
# it: any weighting is one with all weights in -10..10 (ratios up to 1000:1 at two decimals), so a
# weight beyond that only says the others are negligible. switch_gain: coins, as in lookahead
# (a round never brought a seat 180).
LIMITS = {**{name: (-10, 10) for name in PARAMS}, "switch_gain": (0, 200)}
(W_MONEY, W_PRICE, W_BID, W_DOUBLE, W_SCARCE, W_FUTURE, W_RIVALS, W_HOLIDAY, W_FULL, W_KEEP,
 SWITCH_GAIN, W_AHEAD, W_RISK, W_REST) = range(14)


@decision
def card(comp, view, params, rng, out):
    p = view.me
    r = view.round_no[G]
    # with no weight on money, the round is not valued at all: what costs most, skipped
    valued = params[W_MONEY] != 0.0 or params[W_RISK] != 0.0 or params[W_KEEP] != 0.0
    profile = typical_profile_nb(comp, view) if valued else 0
    rooms, rival_rooms = 0, 0
    for q in range(view.money.shape[1]):
        free = popcount_nb(free_rooms_nb(view, G, q))
        rooms += free
        if q != p:
            rival_rooms += free
    scarce = tourists_on_offer_nb(view) / max(rooms, 1)
    future = rounds_left_nb(comp, view) / comp.rounds
    double = 1.0 if comp.round_factor[r] > 1 else 0.0
    best, best_score = comp.holiday_card, -1e18
    if (view.hand[G, p] >> comp.holiday_card) & 1:
        taken = 1.0 - popcount_nb(free_rooms_nb(view, G, p)) / view.n_rooms[G, p]
        best_score = params[W_HOLIDAY] + params[W_FULL] * taken
        if r + 1 < comp.rounds and comp.round_factor[r + 1] > 1:
            best_score += params[W_REST]
    plan = plan_round_nb(comp, view, p, out) if valued else (-1.0, False, 0)
    cards = view.hand[G, p] & ~(1 << comp.holiday_card)
    while cards:
        c = lowest_bit_nb(cards)
        cards &= cards - 1
        money, spent = 0.0, 0
        if valued:
            money, spent = planned_value_nb(comp, view, p, with_card_nb(profile, p, c), 1.0,
                                            plan, out)
        price = comp.card_price[c] / 10.0
        score = (params[W_MONEY] * money / 10.0 + params[W_PRICE] * price
                 + params[W_BID] * comp.card_bid[c] / 10.0 + params[W_DOUBLE] * double * price
                 + params[W_SCARCE] * scarce * price + params[W_FUTURE] * future * price
                 + params[W_RIVALS] * rival_rooms / 10.0)
        if spent > 0 and params[W_KEEP] != 0.0:
            score -= params[W_KEEP] * card_cost_nb(comp, view, p, c, 1.0) / 10.0
        if params[W_AHEAD] != 0.0 or params[W_RISK] != 0.0:
            ahead = rivals_ahead_nb(comp, view, p, c)
            score += params[W_AHEAD] * ahead + params[W_RISK] * ahead * money / 10.0
        if score > best_score:
            best, best_score = c, score
    out[CARD] = best


@decision
def switch(comp, view, params, rng, out):
    if params[SWITCH_GAIN] < 200:
        out[SWITCH] = best_switch_nb(comp, view, params[SWITCH_GAIN], 0.0, out)
